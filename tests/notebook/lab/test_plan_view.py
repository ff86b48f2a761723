"""The plan view's kernel side: updates are validated, actions are checked before a handler."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from orkas_nb.notebook.views.lab import PlanAction, PlanWidget
from orkas_nb.team.plan import FormField, Plan, PlanStep, StepForm

PLAN = Plan(title="t", steps=[
    PlanStep(index=0, title="a", status="failed", failure_reason="boom"),
    PlanStep(index=1, title="b", wait_for=[0], status="blocked", assignee="user",
             form=StepForm(prompt="Which?", fields=[FormField(name="x")])),
])


def _widget(handler: Any = None) -> tuple[PlanWidget, list[dict[str, Any]]]:
    w = PlanWidget(PLAN, on_action=handler)
    sent: list[dict[str, Any]] = []
    w.send = lambda content, buffers=None: sent.append(content)  # type: ignore[method-assign]
    return w, sent


def test_actions_are_checked_before_the_handler_sees_them() -> None:
    seen: list[PlanAction] = []
    w, sent = _widget(seen.append)
    w._on_view_message(w, {"type": "plan_action", "action": "answer", "step": 1, "values": {}}, [])
    assert sent[-1] == {"type": "error", "message": "step 1: please fill x"}
    w._on_view_message(w, {"type": "plan_action", "action": "explode", "step": 1}, [])
    assert sent[-1]["type"] == "error"
    w._on_view_message(w, {"type": "stop"}, [])
    assert "does not take 'stop'" in sent[-1]["message"]
    assert seen == []
    w._on_view_message(w, {"type": "plan_action", "action": "answer", "step": 1, "values": {"x": "1"}}, [])
    w._on_view_message(w, {"type": "plan_action", "action": "retry", "step": 0}, [])
    assert [(a.action, a.step, a.values) for a in seen] == [("answer", 1, {"x": "1"}), ("retry", 0, {})]


def test_a_failing_handler_is_reported_not_raised() -> None:
    def handler(action: PlanAction) -> None:
        raise RuntimeError("executor is gone")

    w, sent = _widget(handler)
    w._on_view_message(w, {"type": "plan_action", "action": "skip", "step": 0}, [])
    assert sent[-1] == {"type": "error", "message": "skip failed: executor is gone"}


def test_no_handler_means_an_explanation() -> None:
    w, sent = _widget()
    w._on_view_message(w, {"type": "plan_action", "action": "skip", "step": 0}, [])
    assert sent[-1] == {"type": "error", "message": "no plan executor is listening to this view"}


def test_updates_are_validated_and_a_bad_one_changes_nothing() -> None:
    w, _ = _widget()
    w.set_step(0, status="running", failure_reason="")
    assert w.plan["steps"][0]["status"] == "running"
    before = dict(w.plan)
    with pytest.raises(ValidationError):
        w.set_step(0, wait_for=[1])  # would make a cycle 0 -> 1 -> 0
    with pytest.raises(KeyError):
        w.set_step(5, status="done")
    assert w.plan == before and w.current.step(0).wait_for == []
    w.set_state("paused")
    assert w.plan["state"] == "paused"
