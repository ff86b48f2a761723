"""%agent evolve in a real kernel: the switches, a reflection run now and waited for, the log
with its diff, undo, and the commander refused."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import SETUP
from .kernel import Kernel

pytestmark = [pytest.mark.kernel, pytest.mark.slow]

SKILL = "---\\nname: unit-check\\ndescription: Check units.\\n---\\nAlways state the unit.\\n"


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Kernel, Path]]:
    base = tmp_path_factory.mktemp("evolve")
    ws = base / "project"
    (ws / ".orkas" / "agents").mkdir(parents=True)
    (ws / ".orkas" / "agents" / "researcher.md").write_text(
        "---\nname: researcher\ndescription: Finds facts.\n---\nYou research.\n")
    env = {"ORKAS_RENDERER": "text", "ORKAS_CONFIG_DIR": str(base / "config"), "HOME": str(base)}
    with Kernel(ws, env=env) as k:
        k.run(SETUP)
        yield k, ws


def test_switches_run_log_and_undo(kernel: tuple[Kernel, Path]) -> None:
    k, ws = kernel
    assert "self-evolution off" in k.run("%agent evolve status").stream()
    assert "threshold = 6.0" in k.run("%agent evolve set threshold 6").stream()
    bad = k.run("%agent evolve set threshold -1", allow_error=True).stream("stderr")
    assert bad.startswith("UsageError: threshold:")
    assert "threshold 6," in k.run("%agent evolve status").stream()
    assert "researcher has not reflected yet" in k.run("%agent evolve log researcher").stream()
    out = k.run("%agent evolve on researcher").stream()
    assert "on for researcher" in out and "workspace's switch is off" in out
    assert "on for this workspace" in k.run("%agent evolve on").stream()
    bad = k.run("%agent evolve on commander", allow_error=True).stream("stderr")
    assert "never evolves" in bad
    k.run(f'm = ScriptedModel([reply("", call("write_skill", name="unit-check", text="{SKILL}")), '
          f'reply("Added unit-check.")])')
    run = k.run("%agent evolve run researcher -m $m").stream()
    assert ": done" in run and "+Always state the unit." in run
    skill = ws / ".orkas" / "skills" / ".private" / "researcher" / "unit-check" / "SKILL.md"
    assert skill.is_file()
    log = k.run("%agent evolve log researcher").stream()
    assert "manual  done" in log and "+Always state the unit." in log
    assert "cost unknown" in log and "$0" not in log  # a scripted model has no price
    from orkas_nb.team.evolution import AgentStore, Reflection

    AgentStore(ws, "researcher").log(Reflection(id="r1-priced", agent="researcher", started=1.0,
                                                model="gpt-4o-mini", cost_usd=0.000123))
    assert "cost $0.000123  model: gpt-4o-mini" in k.run("%agent evolve log researcher").stream()
    assert "private skills: unit-check" in k.run("%agent evolve status").stream()
    undone = k.run("%agent evolve undo researcher").stream()
    assert "undid reflection" in undone and not skill.exists()
    again = k.run("%agent evolve undo researcher", allow_error=True).stream("stderr")
    assert "no reflection to undo" in again
