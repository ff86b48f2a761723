"""The text view prints each member's lane with the member's name; workers stay unseen."""

from __future__ import annotations

from orkas_nb import Agent
from orkas_nb.agent.team import build_team
from orkas_nb.core.events import Done
from orkas_nb.notebook.views.renderer import RunInfo
from orkas_nb.notebook.views.text import TextRenderer
from orkas_nb.testing import call, reply
from tests.team.teamkit import Router, Slot, write_agents


async def test_lanes_are_printed_with_their_members_name(workspace):
    write_agents(workspace, researcher="Finds facts.", writer="Writes.")
    router = Router(
        commander=[reply("Asking.", call("dispatch_to", agent="researcher", task="A"),
                         call("dispatch_to", agent="writer", task="B"),
                         call("run_worker", task="secret")),
                   reply("All done.")],
        researcher=[reply("found\nthe fact", chunk_chars=3, delay_s=0.001)],
        writer=[reply("wrote it", chunk_chars=3, delay_s=0.001)],
        worker=[reply("hidden worker text")])
    team = build_team(Agent(router.model(), workspace=workspace), user_dir=workspace / "none")
    view = TextRenderer(Slot(), interval=0)
    view.start(RunInfo(agent="commander", model="scripted"))
    async for event in team.run("go"):
        if isinstance(event, Done):
            view.finish(event.result)
        else:
            view.render(event)
    lines = view.text.splitlines()
    assert "[researcher] found" in lines and "[researcher] the fact" in lines
    assert "[writer] wrote it" in lines
    assert any(line.startswith("[researcher] [done · 1 model requests") for line in lines)
    assert "hidden worker text" not in view.text  # an anonymous worker is not shown
    assert "All done." in view.text and "  → dispatch_to(" in view.text
    team.close()
