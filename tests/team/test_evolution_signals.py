"""Signals are read from a run's structure (events), weighted by the settings."""

from __future__ import annotations

import itertools

from orkas_nb.core.events import Done, RunResult, Steer, TextDelta, ToolEnd, ToolStart
from orkas_nb.team.evolution import EvolutionSettings, RunObserver


def observe(events, **kw):
    obs = RunObserver(EvolutionSettings(complex_tool_calls=4, inefficient_steps=3), lambda: 7.0, **kw)
    for e in events:
        obs.observe(e)
    return {s.kind: s for s in obs.finish()}


_IDS = itertools.count(1)


def tool(tool_name, status="ok", **args):
    cid = f"c{next(_IDS)}"
    return [ToolStart(call_id=cid, name=tool_name, arguments=args),
            ToolEnd(call_id=cid, name=tool_name, status=status)]


def done(stop="end_turn"):
    return Done(result=RunResult(text="x", stop_reason=stop))


def test_a_quiet_run_says_nothing_whatever_its_words():
    assert observe([TextDelta(text="You are wrong, that is not what I asked. Fix it."), done()]) == {}


def test_a_steer_and_a_retry_are_corrections():
    found = observe([Steer(text="use ms"), done()], retry_of="find A")
    assert found["correction"].weight == 5.0 and found["correction"].ts == 7.0
    assert "correction" in observe([done()], retry_of="find A")


def test_recovery_complexity_weakness_and_an_inefficient_skill():
    events = [*tool("skill", name="pdf"), *tool("bash", "error"), *tool("bash", "error"),
              *tool("read_file"), done()]
    found = observe(events)
    assert set(found) == {"recovery", "complexity", "weakness", "inefficient_skill"}
    assert "bash" in found["weakness"].note and "pdf" in found["inefficient_skill"].note
    assert observe([*tool("bash", "error"), done("error")])["weakness"].note.endswith("error")
    assert observe([done("cancelled")]) == {}
