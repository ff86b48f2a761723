"""The plan contract (SPEC §11 PlanStep): a DAG over known steps, and which controls apply."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from orkas_nb.team.plan import FormField, Plan, PlanStep, StepForm, check_action


def _plan(**overrides: object) -> Plan:
    steps = [
        PlanStep(index=0, title="load"),
        PlanStep(index=1, title="analyse", wait_for=[0]),
        PlanStep(index=2, title="ask", assignee="user", wait_for=[0], status="blocked",
                 form=StepForm(prompt="Which?", fields=[
                     FormField(name="style", kind="choice", choices=["bar", "line"]),
                     FormField(name="note", required=False)])),
        PlanStep(index=3, title="write", wait_for=[1, 2]),
    ]
    return Plan(steps=steps, **overrides)  # type: ignore[arg-type]


@pytest.mark.parametrize("steps, message", [
    ([{"index": 0, "title": "a", "wait_for": [7]}], "waits for unknown step(s) [7]"),
    ([{"index": 0, "title": "a", "wait_for": [0]}], "waits for itself"),
    ([{"index": 0, "title": "a"}, {"index": 0, "title": "b"}], "share an index"),
    ([{"index": 0, "title": "a", "wait_for": [2]}, {"index": 1, "title": "b", "wait_for": [0]},
      {"index": 2, "title": "c", "wait_for": [1]}], "cycle"),
    ([{"index": 0, "title": "a", "status": "finished"}], "status"),
    ([{"index": 0, "title": "a", "colour": "red"}], "colour"),
])
def test_bad_plans_are_refused_with_a_reason(steps: list[dict[str, object]], message: str) -> None:
    with pytest.raises(ValidationError) as err:
        Plan.model_validate({"steps": steps})
    assert message in str(err.value)


def test_ready_steps_follow_dependencies() -> None:
    plan = _plan()
    assert plan.ready() == [0]
    data = plan.model_dump()
    data["steps"][0]["status"] = "done"
    assert Plan.model_validate(data).ready() == [1]  # step 2 is blocked, not pending
    data["steps"][1]["status"] = "skipped"
    data["steps"][2]["status"] = "done"
    assert Plan.model_validate(data).ready() == [3]


def test_actions_allowed_only_where_they_make_sense() -> None:
    plan = _plan()
    assert check_action(plan, "answer", 2, {"style": "bar"}) is None
    assert "please fill style" in check_action(plan, "answer", 2, {})
    assert "not a choice" in check_action(plan, "answer", 2, {"style": "pie"})
    assert "not waiting for an answer" in check_action(plan, "answer", 1, {})
    assert "not waiting for an approval" in check_action(plan, "approve", 2, {})
    assert "only a failed step" in check_action(plan, "retry", 0, {})
    assert check_action(plan, "skip", 0, {}) is None
    assert "no step 9" in check_action(plan, "skip", 9, {})
    done = plan.model_copy(update={"steps": [s.model_copy(update={"status": "done"}) for s in plan.steps]})
    assert "cannot be skipped" in check_action(done, "skip", 0, {})
    approval = _plan().model_dump()
    approval["steps"][1].update(status="blocked")
    assert check_action(Plan.model_validate(approval), "approve", 1, {}) is None
