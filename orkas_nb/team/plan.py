"""The plan model (SPEC §11, seed 001): a DAG of steps the commander writes and the executor runs.

The model writes intent only (``index``, ``title``, ``assignee``, ``input``, ``wait_for``,
``on_failure``, and a ``user`` step's ``form``) through the plan tools (:mod:`.plan_tools`); the
runtime fields (:data:`RUNTIME_FIELDS`) are written by the executor only
(:mod:`.plan_executor`, SPEC §3.2). Indexes are 1-based, stable and never renumbered; a step
without ``wait_for`` waits for the previous step, ``wait_for=[]`` for nothing. The plan view
(:mod:`orkas_nb.notebook.views.lab.plan_view`) draws this model and asks for changes through
:func:`check_action` and the executor.

A plan that is not a DAG over its own steps is refused here with a message naming the bad step
(the stdlib ``graphlib`` finds cycles); the finer checks of a model's proposal (known assignees,
no wait on a later step, templates naming only steps waited for) are :mod:`.plan_check`'s.
"""

from __future__ import annotations

import graphlib
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

StepStatus = Literal["pending", "in_progress", "done", "failed", "skipped", "blocked"]
OnFailure = Literal["abort_plan", "continue", "ask_commander"]
# running: a step is in flight (or about to be); paused: nothing ready or running but not
# finished (a blocked step, a failure awaiting a decision, a stop, a reload); done: every step
# done or skipped; failed: nothing left to run and some step failed; aborted: abort_plan.
PlanState = Literal["running", "paused", "done", "failed", "aborted"]

SATISFIED: frozenset[str] = frozenset({"done", "skipped"})  # what lets a dependent start
TERMINAL_PLAN: frozenset[str] = frozenset({"done", "failed", "aborted"})
RUNTIME_FIELDS: frozenset[str] = frozenset({
    "status", "output_summary", "output_files", "failure_reason", "attempts", "runs",
    "transient_failures", "question_id", "answer",
})


class FormField(BaseModel):
    """One input of the form a ``user`` or ``blocked`` step asks the user to fill."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    label: str = ""
    kind: Literal["text", "choice", "bool"] = "text"
    choices: list[str] = Field(default_factory=list)
    required: bool = True


class StepForm(BaseModel):
    """What the user is asked: a prompt and its fields (no fields: an approval)."""

    model_config = ConfigDict(extra="forbid")

    prompt: str
    fields: list[FormField] = Field(default_factory=list)


class PlanStep(BaseModel):
    model_config = ConfigDict(extra="forbid")

    index: int = Field(ge=1)  # 1-based, stable, never renumbered
    title: str
    assignee: str = "commander"  # "user", "commander", or an agent's name
    input: str = ""  # a template, e.g. "{{step_1.output_summary}}", resolved at dispatch
    wait_for: list[int] | None = None  # None: the previous step; []: none
    on_failure: OnFailure = "ask_commander"
    # a user step's form (written by the model), or a blocked agent's question (the executor)
    form: StepForm | None = None
    # --- runtime fields, written by the executor only ---
    status: StepStatus = "pending"
    output_summary: str = ""  # the assignee's final text, capped
    output_files: list[str] = Field(default_factory=list)
    failure_reason: str = ""
    attempts: int = Field(default=0, ge=0)  # dispatches so far (each one bus message)
    runs: int = Field(default=0, ge=0)  # dispatches + resumes: the token a completion carries
    transient_failures: int = Field(default=0, ge=0)
    question_id: str = ""  # the ask_user call a blocked step waits on
    answer: dict[str, Any] | None = None  # the user's saved answer to the form

    @property
    def deps(self) -> list[int]:
        """The steps this one waits for (``wait_for`` absent: the previous one)."""
        if self.wait_for is not None:
            return list(self.wait_for)
        return [self.index - 1] if self.index > 1 else []


class Plan(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = "plan"
    title: str = ""
    state: PlanState = "paused"
    request: str = ""  # the user's original request, handed to every step
    attachments: list[str] = Field(default_factory=list)
    steps: list[PlanStep]
    # failed ask_commander steps the commander has not been woken for yet (after a reload)
    decisions: list[int] = Field(default_factory=list)

    @model_validator(mode="after")
    def _is_a_dag(self) -> Plan:
        known = {s.index for s in self.steps}
        if len(known) != len(self.steps):
            raise ValueError("plan: two steps share an index")
        graph: dict[int, list[int]] = {}
        for step in self.steps:
            deps = step.deps
            missing = [d for d in deps if d not in known]
            if missing:
                raise ValueError(f"plan: step {step.index} waits for unknown step(s) {missing}")
            if step.index in deps:
                raise ValueError(f"plan: step {step.index} waits for itself")
            graph[step.index] = deps
        try:
            graphlib.TopologicalSorter(graph).prepare()
        except graphlib.CycleError as exc:
            cycle = list(reversed(exc.args[1]))
            raise ValueError(f"plan: wait_for has a cycle {' -> '.join(map(str, cycle))}") from None
        return self

    def step(self, index: int) -> PlanStep:
        if 0 < index <= len(self.steps) and self.steps[index - 1].index == index:
            return self.steps[index - 1]  # the usual layout: 1, 2, ... in order
        for s in self.steps:
            if s.index == index:
                return s
        raise KeyError(f"plan has no step {index}")

    def ready(self) -> list[int]:
        """Steps that may start: pending with every dependency done or skipped (SPEC §11),
        lowest index first."""
        status = {s.index: s.status for s in self.steps}
        ready = []
        for s in self.steps:
            if s.status != "pending":
                continue
            deps = s.wait_for if s.wait_for is not None else ([s.index - 1] if s.index > 1 else [])
            if all(status[d] in SATISFIED for d in deps):
                ready.append(s.index)
        return sorted(ready)

    def snapshot(self) -> Plan:
        """A copy that later changes do not reach (the executor replaces fields, never edits
        them in place, so copying each step is enough; a deep copy is ~100x slower)."""
        return self.model_copy(update={"steps": [s.model_copy() for s in self.steps],
                                       "decisions": list(self.decisions)})

    @property
    def finished(self) -> bool:
        return self.state in TERMINAL_PLAN


def check_action(plan: Plan, action: str, index: int, values: dict[str, Any]) -> str | None:
    """Why a user's action on a step is not allowed now (``None`` when it is).

    ``answer`` fills a blocked step's form, ``approve`` answers one without fields, ``retry``
    re-runs a failed step, ``skip`` passes over a step as ``continue`` would — only a step
    whose own dependencies are done or skipped (a skip obeys the dependency rules: its
    dependents must never start before what it waited for has finished).
    """
    try:
        step = plan.step(index)
    except KeyError as exc:
        return str(exc.args[0])
    if plan.state == "aborted" and action != "answer":
        return "the plan was aborted"
    if action == "answer":
        if step.status != "blocked" or step.form is None:
            return f"step {index} is not waiting for an answer"
        if step.answer is not None:  # saved before a restart: it resumes from that one
            return f"step {index} has its answer already; it goes on when the plan resumes"
        missing = [f.name for f in step.form.fields if f.required and values.get(f.name) in (None, "")]
        if missing:
            return f"step {index}: please fill {', '.join(missing)}"
        unknown = sorted(set(values) - {f.name for f in step.form.fields})
        if unknown:
            return f"step {index}: the form has no field {', '.join(unknown)}"
        for f in step.form.fields:
            if f.kind == "choice" and f.name in values and values[f.name] not in f.choices:
                return f"step {index}: {values[f.name]!r} is not a choice for {f.name}"
        return None
    if action == "approve":
        return None if step.status == "blocked" and step.form is not None \
            and not step.form.fields and step.answer is None \
            else f"step {index} is not waiting for an approval"
    if action == "retry":
        return None if step.status == "failed" else (
            f"only a failed step can be retried (step {index} is {step.status})")
    if action == "skip":
        if step.status not in ("pending", "blocked", "failed"):
            return f"step {index} is {step.status} and cannot be skipped"
        if step.status == "pending":
            waiting = [d for d in step.deps if plan.step(d).status not in SATISFIED]
            if waiting:
                return (f"step {index} still waits for step(s) {waiting}; it can be skipped "
                        f"once they are done or skipped")
        return None
    return f"unknown action {action!r}"


__all__ = ["RUNTIME_FIELDS", "SATISFIED", "FormField", "OnFailure", "Plan", "PlanState",
           "PlanStep", "StepForm", "StepStatus", "check_action"]
