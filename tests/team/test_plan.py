"""The plan contract (SPEC §11, seed 001): 1-based steps, a DAG, which controls apply."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from orkas_nb.team.plan import FormField, Plan, PlanStep, StepForm, check_action
from orkas_nb.team.plan_check import StepSpec, dispatch_text, problems, render


def _plan(**overrides: object) -> Plan:
    steps = [
        PlanStep(index=1, title="load", assignee="researcher"),
        PlanStep(index=2, title="analyse", assignee="researcher"),  # waits for 1 by default
        PlanStep(index=3, title="ask", assignee="user", wait_for=[1], status="blocked",
                 form=StepForm(prompt="Which?", fields=[
                     FormField(name="style", kind="choice", choices=["bar", "line"]),
                     FormField(name="note", required=False)])),
        PlanStep(index=4, title="write", assignee="writer", wait_for=[2, 3]),
    ]
    return Plan(steps=steps, **overrides)  # type: ignore[arg-type]


@pytest.mark.parametrize("steps, message", [
    ([{"index": 1, "title": "a", "wait_for": [7]}], "waits for unknown step(s) [7]"),
    ([{"index": 1, "title": "a", "wait_for": [1]}], "waits for itself"),
    ([{"index": 1, "title": "a"}, {"index": 1, "title": "b"}], "share an index"),
    ([{"index": 1, "title": "a", "wait_for": [3]}, {"index": 2, "title": "b", "wait_for": [1]},
      {"index": 3, "title": "c", "wait_for": [2]}], "cycle"),
    ([{"index": 1, "title": "a", "status": "running"}], "status"),  # the seed's statuses only
    ([{"index": 0, "title": "a"}], "greater than or equal to 1"),  # 1-based
    ([{"index": 1, "title": "a", "colour": "red"}], "colour"),
])
def test_bad_plans_are_refused_with_a_reason(steps: list[dict[str, object]], message: str) -> None:
    with pytest.raises(ValidationError) as err:
        Plan.model_validate({"steps": steps})
    assert message in str(err.value)


def test_wait_for_absent_means_the_previous_step_and_empty_means_none() -> None:
    assert PlanStep(index=1, title="a").deps == []
    assert PlanStep(index=4, title="a").deps == [3]
    assert PlanStep(index=4, title="a", wait_for=[]).deps == []
    assert PlanStep(index=4, title="a", wait_for=[1, 2]).deps == [1, 2]


def test_ready_steps_follow_dependencies() -> None:
    plan = _plan()
    assert plan.ready() == [1]
    data = plan.model_dump()
    data["steps"][0]["status"] = "done"
    assert Plan.model_validate(data).ready() == [2]  # step 3 is blocked, not pending
    data["steps"][1]["status"] = "skipped"
    data["steps"][2]["status"] = "done"
    assert Plan.model_validate(data).ready() == [4]


def test_actions_allowed_only_where_they_make_sense() -> None:
    plan = _plan()
    assert check_action(plan, "answer", 3, {"style": "bar"}) is None
    assert "please fill style" in check_action(plan, "answer", 3, {})
    assert "not a choice" in check_action(plan, "answer", 3, {"style": "pie"})
    assert "has no field colour" in check_action(plan, "answer", 3, {"style": "bar", "colour": 1})
    assert "not waiting for an answer" in check_action(plan, "answer", 2, {})
    assert "not waiting for an approval" in check_action(plan, "approve", 3, {})
    assert "only a failed step" in check_action(plan, "retry", 1, {})
    assert check_action(plan, "skip", 1, {}) is None
    # a skip obeys the dependency rules: step 2 still waits for step 1
    assert "still waits for step(s) [1]" in check_action(plan, "skip", 2, {})
    assert "no step 9" in check_action(plan, "skip", 9, {})
    done = plan.model_copy(update={"steps": [s.model_copy(update={"status": "done"}) for s in plan.steps]})
    assert "cannot be skipped" in check_action(done, "skip", 1, {})
    approval = _plan().model_dump()
    approval["steps"][1].update(status="blocked", form={"prompt": "Go on?"})
    assert check_action(Plan.model_validate(approval), "approve", 2, {}) is None


AGENTS = ["researcher", "writer"]


def _steps(*specs: dict[str, object]) -> list[PlanStep]:
    return [StepSpec.model_validate(s).to_step(i) for i, s in enumerate(specs, 1)]


@pytest.mark.parametrize("specs, message", [
    ([{"title": "a", "assignee": "nobody"}], "no assignee called 'nobody'"),
    ([{"title": "a", "assignee": "writer"}, {"title": "b", "assignee": "writer", "wait_for": [3]}],
     "waits for step 3, which does not exist"),
    ([{"title": "a", "assignee": "writer", "wait_for": [2]}, {"title": "b", "assignee": "writer"}],
     "not an earlier step"),
    ([{"title": "a", "assignee": "writer"},
      {"title": "b", "assignee": "writer", "wait_for": [], "input": "{{step_1.output_summary}}"}],
     "names step 1, which it does not wait for"),
    ([{"title": "a", "assignee": "writer"},
      {"title": "b", "assignee": "writer", "input": "{{step_1.transcript}}"}],
     "not a template field"),
    ([{"title": "a", "assignee": "user"}], "a user step needs a form"),
    ([], "at least one step"),
])
def test_a_proposal_that_cannot_run_lists_its_problem(specs, message) -> None:
    found = problems(_steps(*specs), AGENTS)
    assert any(message in p for p in found), found


def test_a_template_may_name_any_step_it_waits_for_even_through_others() -> None:
    steps = _steps({"title": "a", "assignee": "researcher"},
                   {"title": "b", "assignee": "researcher"},
                   {"title": "c", "assignee": "Writer", "input": "{{step_1.output_summary}}"})
    assert problems(steps, AGENTS) == []


def test_the_model_cannot_write_runtime_fields() -> None:
    with pytest.raises(ValidationError, match="status"):
        StepSpec.model_validate({"title": "a", "assignee": "writer", "status": "done"})


def test_templates_resolve_summaries_and_skips_and_the_request_goes_along() -> None:
    plan = Plan(request="Study the launch", attachments=["brief.pdf"], steps=[
        PlanStep(index=1, title="market", status="done", output_summary="grows 20%"),
        PlanStep(index=2, title="rivals", status="skipped", failure_reason="no data", wait_for=[]),
        PlanStep(index=3, title="sum", wait_for=[1, 2],
                 input="A: {{step_1.output_summary}} B: {{ step_2.output_summary }}"),
    ])
    assert render(plan.step(3).input, plan) == "A: grows 20% B: (step 2 skipped: no data)"
    text = dispatch_text(plan, plan.step(3))
    assert "A: grows 20%" in text and "Study the launch" in text and "brief.pdf" in text
