"""What a model may propose as a plan, how the proposal is checked, and how templates resolve.

A proposal (:class:`StepSpec`) carries intent only: a model cannot set a status or a summary
(``extra="forbid"``). :func:`problems` lists every reason to refuse a proposed plan — a cycle
(stdlib ``graphlib``), an unknown assignee, a ``wait_for`` naming a later or missing step, a
template naming a step the step does not wait for (directly or through its dependencies), a
``user`` step without a form; an empty list means the plan may be saved. A refused proposal
changes nothing: the tool returns the problems as its observation.

Templates name ``{{step_N.output_summary}}`` or ``{{step_N.output_files}}``; :func:`render`
resolves them at dispatch time, a skipped step as ``(step N skipped: reason)``.
"""

from __future__ import annotations

import graphlib
import re
from collections.abc import Collection, Sequence

from pydantic import BaseModel, ConfigDict, Field

from .plan import OnFailure, Plan, PlanStep, StepForm

TEMPLATE = re.compile(r"\{\{\s*step_(\d+)\.(\w+)\s*\}\}")
TEMPLATE_FIELDS = frozenset({"output_summary", "output_files"})
USER, COMMANDER = "user", "commander"


class StepSpec(BaseModel):
    """One step as the model writes it (intent only)."""

    model_config = ConfigDict(extra="forbid")

    index: int | None = Field(default=None, ge=1)  # None: its place in the list
    title: str = Field(min_length=1)
    assignee: str
    input: str = ""
    wait_for: list[int] | None = None
    on_failure: OnFailure = "ask_commander"
    form: StepForm | None = None

    def to_step(self, index: int) -> PlanStep:
        return PlanStep(index=index, title=self.title, assignee=self.assignee, input=self.input,
                        wait_for=self.wait_for, on_failure=self.on_failure, form=self.form)


def deps_of(index: int, wait_for: list[int] | None) -> list[int]:
    if wait_for is not None:
        return list(wait_for)
    return [index - 1] if index > 1 else []


def references(template: str) -> list[tuple[int, str]]:
    """The ``(step, field)`` pairs a template names, in order."""
    return [(int(n), f) for n, f in TEMPLATE.findall(template)]


def canonical_assignee(name: str, agents: Collection[str]) -> str | None:
    """``name`` as the team spells it (any case), or None when nobody is called so."""
    low = name.lower()
    if low in (USER, COMMANDER):
        return low
    return next((a for a in agents if a.lower() == low), None)


def problems(steps: Sequence[PlanStep], agents: Collection[str]) -> list[str]:
    """Every reason the plan ``steps`` cannot run (empty: it can)."""
    found: list[str] = []
    known = {s.index for s in steps}
    if [s.index for s in steps] != list(range(1, len(steps) + 1)):
        found.append(f"step indexes must be 1, 2, ... in order (got {[s.index for s in steps]})")
    if not steps:
        found.append("a plan needs at least one step")
    graph: dict[int, list[int]] = {}
    for s in steps:
        deps = s.deps
        graph[s.index] = [d for d in deps if d in known]
        if canonical_assignee(s.assignee, agents) is None:
            found.append(f"step {s.index}: no assignee called {s.assignee!r} (choose user, "
                         f"commander or one of: {', '.join(agents) or 'no agents'})")
        for d in deps:
            if d not in known:
                found.append(f"step {s.index} waits for step {d}, which does not exist")
            elif d >= s.index:
                found.append(f"step {s.index} waits for step {d}, which is not an earlier step")
        if s.assignee.lower() == USER and s.form is None:
            found.append(f"step {s.index}: a user step needs a form (a prompt, and fields)")
    try:
        order = list(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as exc:
        found.append(f"wait_for has a cycle: {' -> '.join(map(str, reversed(exc.args[1])))}")
        return found
    ancestors: dict[int, set[int]] = {}
    for index in order:
        ancestors[index] = set()
        for d in graph[index]:
            ancestors[index] |= {d} | ancestors[d]
    for s in steps:
        for n, field in references(s.input):
            if field not in TEMPLATE_FIELDS:
                found.append(f"step {s.index}: {{{{step_{n}.{field}}}}} is not a template "
                             f"field (use output_summary or output_files)")
            elif n not in ancestors.get(s.index, set()):
                found.append(f"step {s.index}: its input names step {n}, which it does not "
                             f"wait for (add {n} to its wait_for)")
    return found


def check_plan(plan: Plan, agents: Collection[str]) -> list[str]:
    return problems(plan.steps, agents)


def render(template: str, plan: Plan) -> str:
    """``template`` with each ``{{step_N.field}}`` replaced by that step's output."""

    def one(match: re.Match[str]) -> str:
        n, field = int(match.group(1)), match.group(2)
        try:
            step = plan.step(n)
        except KeyError:
            return match.group(0)
        if step.status == "skipped":
            return f"(step {n} skipped: {step.failure_reason or 'no reason given'})"
        if field == "output_files":
            return ", ".join(step.output_files) or "(no files)"
        if field == "output_summary":
            return step.output_summary or "(no summary)"
        return match.group(0)

    return TEMPLATE.sub(one, template)


def dispatch_text(plan: Plan, step: PlanStep) -> str:
    """What the assignee receives: the input resolved now, the original request and
    attachments (a step three hand-offs away still knows what was asked), and where it stands."""
    parts = [render(step.input, plan) or step.title]
    if plan.request:
        parts.append(f"The user's original request: {plan.request}")
    if plan.attachments:
        parts.append("Attachments: " + ", ".join(plan.attachments))
    parts.append(f"(Plan step {step.index} of {len(plan.steps)}: {step.title})")
    return "\n\n".join(parts)


def revised(plan: Plan, specs: Sequence[StepSpec], remove: Sequence[int],
            agents: Collection[str]) -> tuple[Plan, list[str]]:
    """``plan`` with pending steps replaced (same index), steps added (the next indexes) and
    ``remove``d pending steps skipped ("removed from the plan"), and the problems of the result
    (any problem: the caller keeps ``plan``). Indexes never change."""
    if plan.state == "aborted":
        return plan, ["the plan was aborted; write a new one"]
    found: list[str] = []
    new = plan.model_copy(deep=True)
    by_index = {s.index: s for s in new.steps}
    next_index = len(new.steps) + 1
    for spec in specs:
        index = spec.index if spec.index is not None else next_index
        if index in by_index:
            if by_index[index].status != "pending":
                found.append(f"step {index} is {by_index[index].status}: only steps not "
                             f"started can be revised")
                continue
            new.steps[index - 1] = spec.to_step(index)
        elif index == next_index:
            new.steps.append(spec.to_step(index))
            by_index[index] = new.steps[-1]
            next_index += 1
        else:
            found.append(f"a new step must take the next index, {next_index} (got {index})")
    for index in remove:
        step = by_index.get(index)
        if step is None or step.status != "pending":
            found.append(f"step {index} cannot be removed "
                         f"({'no such step' if step is None else step.status})")
        else:
            step.status, step.failure_reason = "skipped", "removed from the plan"
    for s in new.steps:
        s.assignee = canonical_assignee(s.assignee, agents) or s.assignee
    found += problems(new.steps, agents)
    return new, found


__all__ = [
    "StepSpec",
    "canonical_assignee",
    "check_plan",
    "deps_of",
    "dispatch_text",
    "problems",
    "references",
    "render",
    "revised",
]
