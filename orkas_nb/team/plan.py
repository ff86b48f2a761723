"""The plan model: the ``PlanStep`` shape of SPEC §11, which the plan view draws.

The plan engine (teams) comes later; this is the contract its ledger will be drawn from. It lives
in ``team`` (a capability) so the engine can use it without Jupyter; the widget that draws it is
:mod:`orkas_nb.notebook.views.lab.plan_view`. The view draws ``wait_for`` as edges, so a plan must be
a DAG over known step indices: a plan that is not is refused here with a message naming the
bad step, before anything is drawn. Runtime fields (``status``, ``output_summary``, ``output_files``, ``failure_reason``) are
written only by the executor (SPEC §3.2); the view only asks, through
:class:`~orkas_nb.notebook.views.lab.protocol.PlanAction`.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

StepStatus = Literal["pending", "running", "done", "failed", "skipped", "blocked"]
OnFailure = Literal["abort_plan", "continue", "ask_commander"]
PlanState = Literal["running", "paused", "done", "failed", "aborted"]


class FormField(BaseModel):
    """One input of the form a ``blocked`` step asks the user to fill."""

    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    label: str = ""
    kind: Literal["text", "choice", "bool"] = "text"
    choices: list[str] = Field(default_factory=list)
    required: bool = True


class StepForm(BaseModel):
    prompt: str
    fields: list[FormField] = Field(default_factory=list)


class PlanStep(BaseModel):
    model_config = ConfigDict(extra="forbid")

    index: int = Field(ge=0)
    title: str
    assignee: str = "agent"  # "user", "commander", or an agent's name
    input: str = ""  # template, e.g. "{{step_1.output_summary}}"
    wait_for: list[int] = Field(default_factory=list)
    on_failure: OnFailure = "ask_commander"
    # runtime fields, written by the executor only
    status: StepStatus = "pending"
    output_summary: str = ""
    output_files: list[str] = Field(default_factory=list)
    failure_reason: str = ""
    # what a blocked step waits for: a form to fill, or (no form) an approval
    form: StepForm | None = None


class Plan(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = "plan"
    title: str = ""
    state: PlanState = "running"
    steps: list[PlanStep]

    @model_validator(mode="after")
    def _is_a_dag(self) -> Plan:
        known = {s.index for s in self.steps}
        if len(known) != len(self.steps):
            raise ValueError("plan: two steps share an index")
        for step in self.steps:
            missing = [d for d in step.wait_for if d not in known]
            if missing:
                raise ValueError(f"plan: step {step.index} waits for unknown step(s) {missing}")
            if step.index in step.wait_for:
                raise ValueError(f"plan: step {step.index} waits for itself")
        deps = {s.index: list(s.wait_for) for s in self.steps}
        state: dict[int, int] = {}  # 1 = on the current path, 2 = finished

        def visit(node: int, path: list[int]) -> None:
            state[node] = 1
            for dep in deps[node]:
                if state.get(dep) == 1:
                    cycle = path[path.index(dep):] + [dep] if dep in path else [node, dep]
                    raise ValueError(f"plan: wait_for has a cycle {' -> '.join(map(str, cycle))}")
                if dep not in state:
                    visit(dep, [*path, dep])
            state[node] = 2

        for index in deps:
            if index not in state:
                visit(index, [index])
        return self

    def step(self, index: int) -> PlanStep:
        for s in self.steps:
            if s.index == index:
                return s
        raise KeyError(f"plan has no step {index}")

    def ready(self) -> list[int]:
        """Steps that may start: pending with every dependency done or skipped (SPEC §11)."""
        finished = {s.index for s in self.steps if s.status in ("done", "skipped")}
        return [s.index for s in self.steps
                if s.status == "pending" and all(d in finished for d in s.wait_for)]


def check_action(plan: Plan, action: str, index: int, values: dict[str, Any]) -> str | None:
    """Why an action on a step is not allowed now (``None`` when it is)."""
    try:
        step = plan.step(index)
    except KeyError as exc:
        return str(exc.args[0])
    if action == "answer":
        if step.status != "blocked" or step.form is None:
            return f"step {index} is not waiting for an answer"
        missing = [f.name for f in step.form.fields if f.required and values.get(f.name) in (None, "")]
        if missing:
            return f"step {index}: please fill {', '.join(missing)}"
        for f in step.form.fields:
            if f.kind == "choice" and f.name in values and values[f.name] not in f.choices:
                return f"step {index}: {values[f.name]!r} is not a choice for {f.name}"
        return None
    if action == "approve":
        return None if step.status == "blocked" and step.form is None else (
            f"step {index} is not waiting for an approval")
    if action == "retry":
        return None if step.status == "failed" else f"only a failed step can be retried (step {index} is {step.status})"
    if action == "skip":
        return None if step.status in ("pending", "blocked", "failed") else (
            f"step {index} is {step.status} and cannot be skipped")
    return f"unknown action {action!r}"


__all__ = ["FormField", "Plan", "PlanState", "PlanStep", "StepForm", "StepStatus", "check_action"]
