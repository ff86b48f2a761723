"""A kill -9 in the middle of a reflection leaves the private library, the profile, the state
and the log loadable, and what the reflection wrote so far listed and undoable."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from orkas_nb.team.evolution import AgentStore, Evolution
from orkas_nb.team.skills import SkillRoot, discover_skills
from tests.fakes.model_server import ModelServer
from tests.fakes.wire import Fault, Reply
from tests.team.evolvekit import call, skill_text, turn_on

ROOT = Path(__file__).resolve().parents[2]

CHILD = """
import asyncio, sys
from orkas_nb import Agent
from orkas_nb.agent.evolution_wiring import evolution_for
agent = Agent("openai/gpt-4o-mini", workspace=sys.argv[1], base_url=sys.argv[2], api_key="sk-test")
asyncio.run(evolution_for(agent).run_now("researcher"))
"""


def test_kill_9_during_a_reflection_leaves_everything_loadable(workspace):
    turn_on(workspace, "researcher")
    store = AgentStore(workspace, "researcher")
    steps = [Reply(tool_calls=[call("write_skill", name="kept", text=skill_text("kept")),
                               call("update_profile", text="Weak: units.")]),
             Fault.stall(120)]  # the model hangs on its next answer: the child is killed there
    with ModelServer(lambda p: steps.pop(0)) as server:
        env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(workspace), server.openai_url],
                                 env=env)
        try:
            deadline = time.monotonic() + 120
            while server.count("/v1/chat/completions") < 2 and time.monotonic() < deadline:
                assert child.poll() is None, "the reflection ended before it could be killed"
                time.sleep(0.05)
            assert server.count("/v1/chat/completions") == 2
        finally:
            child.send_signal(signal.SIGKILL)
            child.wait()
    skills, problems = discover_skills([SkillRoot(path=store.skills_dir, tier="private", label="p")])
    assert [s.name for s in skills] == ["kept"] and problems == []
    assert store.profile() == "Weak: units."
    state = store.state()
    assert state.created == ["kept"] and state.enabled
    assert not list(store.folder.glob(".*.tmp")) and not list(store.skills_dir.glob("*/.*.tmp"))
    (record,) = store.history()
    assert record.status == "failed" and "did not finish" in record.reason
    assert [c.skill for c in record.changes] == ["kept", None]
    Evolution(workspace, guard=lambda t: None).undo("researcher", record.id)
    assert not store.skill_path("kept").exists() and not store.profile_path.exists()
