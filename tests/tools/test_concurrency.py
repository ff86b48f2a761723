"""Optimistic concurrency through the real Agent and runner: two runs edit one file; the loser
gets the stale error and nothing of the winner's change is overwritten."""

from __future__ import annotations

import asyncio
from pathlib import Path

from orkas_nb import Agent
from orkas_nb.core.messages import ToolResultMessage
from orkas_nb.providers.base import ModelRequest
from orkas_nb.testing import Reply, ScriptedModel, call, reply


def _script(new: str, *, has_read: asyncio.Event, edit_after: asyncio.Event,
            has_edited: asyncio.Event) -> ScriptedModel:
    """Read the plan, then edit it once ``edit_after`` is set: events order the two runs' edits,
    not the clock. ``has_read`` / ``has_edited`` are set as the model is asked after each."""

    def answer(request: ModelRequest) -> Reply:
        step = len(model.requests)
        if step == 1:
            return reply("", call("read_file", path="plan.md"))
        if step == 2:
            has_read.set()
            return reply("editing", call("edit_file", path="plan.md", old_string="status: draft",
                                         new_string=f"status: {new}"), wait=edit_after)
        has_edited.set()
        return reply("done")

    model = ScriptedModel(answer)
    return model


def _results(agent: Agent, name: str) -> list[ToolResultMessage]:
    return [m for m in agent.messages if isinstance(m, ToolResultMessage) and m.name == name]


async def test_two_concurrent_runs_edit_one_file(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "plan.md").write_text("# Plan\nstatus: draft\nowner: team\n")
    # both read before either edits; the winner edits first, the loser after the winner's edit
    winner_read, loser_read, winner_edited, loser_edited = (asyncio.Event() for _ in range(4))
    winner = Agent(_script("approved", has_read=winner_read, edit_after=loser_read,
                           has_edited=winner_edited), workspace=ws, name="winner")
    loser = Agent(_script("rejected", has_read=loser_read, edit_after=winner_edited,
                          has_edited=loser_edited), workspace=ws, name="loser")
    won, lost = await asyncio.gather(winner.arun("approve the plan"), loser.arun("reject the plan"))

    assert won.stop_reason == lost.stop_reason == "end_turn"
    assert [r.status for r in _results(winner, "edit_file")] == ["ok"]
    assert won.output_files == ["plan.md"]
    (stale,) = _results(loser, "edit_file")
    assert stale.status == "error"
    assert stale.text.startswith("Error: stale: plan.md changed since you read it")
    assert lost.output_files == []
    assert (ws / "plan.md").read_text() == "# Plan\nstatus: approved\nowner: team\n"
    # Both reads happened before the first edit: each agent saw the draft.
    for agent in (winner, loser):
        (read,) = _results(agent, "read_file")
        assert "status: draft" in read.text


async def test_loser_recovers_by_reading_again(tmp_path: Path) -> None:
    """After the stale error the model reads again and its edit then lands on the new text."""
    ws = tmp_path / "ws"
    ws.mkdir()
    target = ws / "notes.txt"
    target.write_text("a\nb\n")
    changed = asyncio.Event()  # the edit is asked for only after the other writer's change
    model = ScriptedModel([
        reply("", call("read_file", path="notes.txt")),
        reply("thinking it over", call("edit_file", path="notes.txt", old_string="b",
                                       new_string="B"), wait=changed),
        reply("", call("read_file", path="notes.txt")),
        reply("", call("edit_file", path="notes.txt", old_string="b", new_string="B")),
        reply("done"),
    ])
    agent = Agent(model, workspace=ws)

    async def other_writer() -> None:
        # Another process changes the file between the agent's read and its edit.
        while not _results(agent, "read_file"):
            await asyncio.sleep(0.001)
        target.write_text("a\nb\nc (other)\n")
        changed.set()

    result, _ = await asyncio.gather(agent.arun("capitalise b"), other_writer())
    statuses = [r.status for r in _results(agent, "edit_file")]
    assert statuses == ["error", "ok"], statuses
    assert result.stats.tool_failures == 1
    assert target.read_text() == "a\nB\nc (other)\n"
