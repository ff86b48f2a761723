"""What every view of a plan draws: a picture of the executor's plan (SPEC §11, seed 001).

The plan executor (``orkas_nb.team``) owns the plan; a view only reads snapshots of it. A
:class:`PlanPicture` is the one shape the views read (the labextension's plan view, the
built-in widgets fallback, the text rendering and the static output a saved notebook keeps):
indexes are 1-based as the seed has them, ``wait_for`` is resolved (absent in the plan means
the previous step, ``[]`` none), and the plan's state is the executor's when it says one, else
read off the steps (pending steps with nothing ready or running: paused). A step's form, its
statuses and the plan's states are the team's own (:mod:`orkas_nb.team.plan`), not copies.

:func:`plan_bundle` is the static output: a JSON MIME bundle the labextension draws as the same
graph, with a text rendering beside it, so a saved notebook reads without a kernel.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

# The plan's own vocabulary (the notebook layer reads the team's model, never a copy of it).
from ...team.plan import OnFailure, PlanState, StepForm, StepStatus

PLAN_MIME = "application/vnd.orkas.plan+json"
PLAN_SCHEMA_VERSION = 1

FINISHED = ("done", "skipped")
STATUS_WORDS = {"pending": "pending", "in_progress": "in progress", "done": "done",
                "failed": "failed", "skipped": "skipped", "blocked": "needs you"}


class StepPicture(BaseModel):
    model_config = ConfigDict(extra="ignore")

    index: int = Field(ge=1)
    title: str
    assignee: str = "commander"
    input: str = ""
    wait_for: list[int] = Field(default_factory=list)  # resolved by picture()
    on_failure: OnFailure = "ask_commander"
    status: StepStatus = "pending"
    output_summary: str = ""
    output_files: list[str] = Field(default_factory=list)
    failure_reason: str = ""
    attempts: int = 0
    form: StepForm | None = None  # what a blocked step (or a user step) asks


class PlanPicture(BaseModel):
    model_config = ConfigDict(extra="ignore")

    schema_version: int = PLAN_SCHEMA_VERSION
    id: str = "plan"
    title: str = ""
    state: PlanState = "running"
    steps: list[StepPicture]

    def step(self, index: int) -> StepPicture:
        for s in self.steps:
            if s.index == index:
                return s
        raise KeyError(f"the plan has no step {index}")


def _dump(plan: Any) -> dict[str, Any]:
    if isinstance(plan, PlanPicture):
        return plan.model_dump(mode="json")
    if hasattr(plan, "model_dump"):
        return dict(plan.model_dump(mode="json"))
    if isinstance(plan, dict):
        return dict(plan)
    raise TypeError(f"not a plan: {type(plan).__name__}")


def _status(raw: Any) -> str:
    # The seed's ``in_progress``; ``running`` is what plans said before the seed was followed.
    return "in_progress" if raw == "running" else str(raw or "pending")


def resolve_wait_for(steps: list[dict[str, Any]]) -> list[list[int]]:
    """Each step's dependencies: its ``wait_for``, or (absent or None) the previous step, as
    the executor reads it (``index - 1``; in a plan with a gap there, the step before in index
    order); the first step waits for nothing."""
    order = sorted(int(s["index"]) for s in steps)
    known = set(order)
    previous = {i: (i - 1 if i - 1 in known else order[n - 1] if n else None)
                for n, i in enumerate(order)}
    out = []
    for s in steps:
        deps = s.get("wait_for")
        if deps is None:
            before = previous[int(s["index"])]
            out.append([] if before is None else [before])
        else:
            out.append([int(d) for d in deps])
    return out


def derive_state(steps: list[StepPicture]) -> PlanState:
    """The plan's state read off its steps, for an executor that does not say it."""
    statuses = [s.status for s in steps]
    if any(s == "in_progress" for s in statuses):
        return "running"
    if all(s in FINISHED for s in statuses):
        return "done"
    done = {s.index for s in steps if s.status in FINISHED}
    ready = [s for s in steps if s.status == "pending" and all(d in done for d in s.wait_for)]
    if ready:
        return "running"
    if any(s == "failed" for s in statuses) and not any(s in ("pending", "blocked") for s in statuses):
        return "failed"
    return "paused"


def picture(plan: Any, *, state: str | None = None) -> PlanPicture:
    """The picture of ``plan`` (an executor's plan model, a dict, or a picture; None: no plan
    written yet, an empty picture)."""
    if plan is None:
        return PlanPicture(state="paused", steps=[])
    data = _dump(plan)
    raw_steps = [dict(s) for s in data.get("steps", [])]
    for s, deps in zip(raw_steps, resolve_wait_for(raw_steps), strict=True):
        s["wait_for"] = deps
        s["status"] = _status(s.get("status"))
        s.setdefault("title", f"step {s['index']}")
        if s.get("attempts") is None:
            s["attempts"] = 0
    steps = [StepPicture.model_validate(s) for s in raw_steps]
    told = state or data.get("state") or data.get("status")
    if told == "aborted" or told in ("running", "paused", "done", "failed"):
        final: PlanState = told  # type: ignore[assignment]
    else:
        final = derive_state(steps)
    return PlanPicture(id=str(data.get("id") or "plan"), title=str(data.get("title") or ""),
                       state=final, steps=steps)


def plan_text(p: PlanPicture) -> str:
    """The plan as plain text: one line per step, what it waits for, what it gave or why not."""
    if not p.steps:
        return "Plan: none yet (the commander has not written one)"
    counts: dict[str, int] = {}
    for s in p.steps:
        counts[s.status] = counts.get(s.status, 0) + 1
    summary = ", ".join(f"{n} {STATUS_WORDS[k]}" for k, n in counts.items())
    lines = [f"Plan{': ' + p.title if p.title else ''} ({p.state}; {summary or 'no steps'})"]
    for s in sorted(p.steps, key=lambda s: s.index):
        waits = f"  after {', '.join(f'#{d}' for d in s.wait_for)}" if s.wait_for else ""
        lines.append(f"  #{s.index} [{STATUS_WORDS[s.status]}] {s.title} ({s.assignee}){waits}")
        if s.output_summary:
            first = s.output_summary.strip().splitlines()[0] if s.output_summary.strip() else ""
            lines.append(f"      → {first[:200]}")
        if s.failure_reason:
            lines.append(f"      ✗ {s.failure_reason}")
        if s.status == "blocked" and s.form is not None:
            fields = ", ".join(f.name for f in s.form.fields)
            lines.append(f"      ? {s.form.prompt}" + (f" ({fields})" if fields else " (approve)"))
    return "\n".join(lines)


def plan_bundle(p: PlanPicture) -> dict[str, Any]:
    """The static output of a plan: the labextension draws the JSON, others read the text."""
    return {PLAN_MIME: p.model_dump(mode="json"), "text/plain": plan_text(p)}


__all__ = [
    "PLAN_MIME",
    "PlanPicture",
    "PlanState",
    "StepPicture",
    "StepStatus",
    "derive_state",
    "picture",
    "plan_bundle",
    "plan_text",
    "resolve_wait_for",
]
