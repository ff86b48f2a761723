"""Group stop and crash reload: every runner ends, the state reloads valid, nothing re-runs."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from orkas_nb import Agent
from orkas_nb.agent.team import build_team
from orkas_nb.core.events import MemberEvent
from orkas_nb.harness.repair import open_calls
from orkas_nb.team.bus import MessageBus
from orkas_nb.team.state import TeamState
from orkas_nb.testing import call, reply
from tests.team.teamkit import Router, user_texts, write_agents

REPO = Path(__file__).resolve().parents[2]
SLOW = "x" * 4000  # streamed 4 characters every 10 ms: 10 s unless stopped


async def test_group_stop_ends_parallel_dispatches_and_workers_and_reloads(workspace):
    write_agents(workspace, researcher="Finds facts.", writer="Writes.")
    router = Router(
        commander=[reply("", call("dispatch_to", agent="researcher", task="long A"),
                         call("dispatch_to", agent="writer", task="long B"),
                         call("run_worker", task="long C"))],
        researcher=[reply(SLOW, chunk_chars=4, delay_s=0.01)],
        writer=[reply(SLOW, chunk_chars=4, delay_s=0.01)],
        worker=[reply(SLOW, chunk_chars=4, delay_s=0.01)])
    team = build_team(Agent(router.model(), workspace=workspace), user_dir=workspace / "none")
    streaming: set[str] = set()
    team.subscribe(lambda e: isinstance(e, MemberEvent) and e.event.type == "text_delta"
                   and streaming.add(e.member))
    turn = asyncio.ensure_future(team.arun("run everything"))
    while len(streaming) < 3:
        await asyncio.sleep(0.01)
    assert len(team.running) == 3
    pressed = time.perf_counter()
    team.stop("the user pressed Stop")
    result = await asyncio.wait_for(turn, 5)
    assert time.perf_counter() - pressed < 1.0  # a bound a user feels, with margin
    assert result.stop_reason == "cancelled" and team.running == {}
    statuses = {t.assignee: (t.status, t.reason) for t in team.state.ledger.tasks}
    assert statuses == {n: ("interrupted", "the user pressed Stop")
                        for n in ("commander", "researcher", "writer", "worker-1")}
    team.close()
    with TeamState(workspace, "default") as state:  # reload: bus, ledger, sessions all valid
        assert state.bus.repair_notes == [] and state.ledger.repair_notes == []
        for name in ("researcher", "writer"):
            session = state.session(name)
            assert session.repair_notes == [] and open_calls(session.messages) == []
            assert session.messages[-1].role == "assistant"  # the partial text was kept


CRASH = r'''
import asyncio, sys
from orkas_nb import Agent
from orkas_nb.agent.team import build_team
from orkas_nb.testing import ScriptedModel, reply, call
from tests.team.teamkit import who
def answer(request):
    if who(request.system) == "commander":
        return reply("", call("dispatch_to", agent="researcher", task="long task"))
    print("member started", flush=True)
    return reply("y" * 100000, chunk_chars=1, delay_s=0.01)
team = build_team(Agent(ScriptedModel(answer), workspace=sys.argv[1]), user_dir=sys.argv[1] + "/none")
asyncio.run(team.arun("start it"))
'''


def test_a_dispatch_in_flight_when_the_kernel_dies_is_reported_and_not_rerun(workspace):
    write_agents(workspace, researcher="Finds facts.")
    proc = subprocess.Popen([sys.executable, "-c", CRASH, str(workspace)], cwd=REPO,
                            stdout=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(REPO)})
    try:
        assert proc.stdout is not None and "member started" in proc.stdout.readline()
        time.sleep(0.2)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    router = Router(commander=[reply("I see task was interrupted.")])
    team = build_team(Agent(router.model(), workspace=workspace), user_dir=workspace / "none")
    task = next(t for t in team.state.ledger.tasks if t.assignee == "researcher")
    assert task.status == "interrupted" and task.noticed
    assert team.running == {}  # after a restart nothing runs by itself
    result = asyncio.run(team.arun("what happened?"))
    assert result.text == "I see task was interrupted."
    prompt = user_texts(router.requests["commander"][0])
    assert f"Task {task.id} for researcher was interrupted" in prompt
    assert "researcher" not in router.requests  # never run again
    assert open_calls(team.state.session("researcher").messages) == []
    team.close()
    with MessageBus(workspace / ".orkas/teams/default/bus.jsonl", readonly=True) as bus:
        assert [m.kind for m in bus.messages if m.task_id == task.id] == ["task", "system"]
