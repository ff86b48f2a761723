"""The plan's durable state: a log of changes beside the conversation's bus (``plan.jsonl``).

Like the ledger, an append-only log folded on load (:mod:`.durable_log`): each change is one
fsynced line — a whole plan when one is written or revised, a step's changed runtime fields,
the plan's state, a user's answer — so a change is on disk before the executor acts on it
(the answer is saved before it is used), and a kill -9 can only tear the last line, which the
next open cuts. Folding a 200-step plan's log is a few milliseconds (``bench_plan.py``).

The store keeps no rule of its own: :mod:`.plan_executor` decides, the store records.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from ..harness.durable import decode_jsonl
from .bus import team_folder
from .durable_log import DurableLog
from .plan import Plan, PlanState


class _Written(BaseModel):
    model_config = ConfigDict(extra="forbid")
    op: Literal["plan"] = "plan"
    plan: Plan


class _StepChanged(BaseModel):
    model_config = ConfigDict(extra="forbid")
    op: Literal["step"] = "step"
    index: int
    set: dict[str, Any]


class _StateChanged(BaseModel):
    model_config = ConfigDict(extra="forbid")
    op: Literal["state"] = "state"
    state: PlanState
    decisions: list[int] = Field(default_factory=list)


_Event = Annotated[_Written | _StepChanged | _StateChanged, Field(discriminator="op")]


class _Batch(BaseModel):
    """The changes of one reconciliation, on one line: all of them survive a crash, or none."""

    model_config = ConfigDict(extra="forbid")
    op: Literal["batch"] = "batch"
    events: list[_Event]


_Line = Annotated[_Written | _StepChanged | _StateChanged | _Batch, Field(discriminator="op")]
_EVENT: TypeAdapter[_Written | _StepChanged | _StateChanged | _Batch] = TypeAdapter(_Line)
_FIELDS: TypeAdapter[dict[str, Any]] = TypeAdapter(dict[str, Any])  # runtime fields, as JSON values


def plan_path(workspace: str | os.PathLike[str], conversation: str) -> Path:
    return team_folder(workspace, conversation) / "plan.jsonl"


class PlanStore(DurableLog):
    """The current plan of one conversation (``None`` before the first ``write_plan``)."""

    what = "plan"

    def _reset(self) -> None:
        self.plan: Plan | None = None
        self._depth = 0
        self._pending: list[BaseModel] = []

    def _load(self) -> None:
        assert self._file is not None
        events, notes = decode_jsonl(self._file.read(), _EVENT)
        for event in events:
            try:
                self._fold(event)
            except (KeyError, ValueError) as exc:
                notes.append(f"dropped a plan change that does not apply: {exc}")
        self.repair_notes = notes
        if self.readonly:
            return
        if notes:  # rewrite what was understood, so the next append follows a whole line
            self._file.rewrite([] if self.plan is None else [_line(_Written(plan=self.plan))])
        self._file.open_for_append()

    def _fold(self, event: _Written | _StepChanged | _StateChanged | _Batch) -> None:
        if isinstance(event, _Batch):
            for inner in event.events:
                self._fold(inner)
            return
        if isinstance(event, _Written):
            self.plan = event.plan
            return
        if self.plan is None:
            raise ValueError("a change before any plan")
        if isinstance(event, _StepChanged):
            step = self.plan.step(event.index)
            for name, value in event.set.items():
                if name not in type(step).model_fields:
                    raise ValueError(f"step has no field {name!r}")
                # validated as it is set: what came from disk becomes the field's own type
                step.__pydantic_validator__.validate_assignment(step, name, value)
        else:
            self.plan.state = event.state
            self.plan.decisions = list(event.decisions)

    # -- writing (each on disk before it returns) --------------------------------------------

    def write(self, plan: Plan) -> None:
        """Save a whole plan (written or revised)."""
        self._append(_Written(plan=plan))
        self.plan = plan

    def set_step(self, index: int, **fields: Any) -> None:
        """Save changed runtime fields of one step and apply them."""
        assert self.plan is not None
        step = self.plan.step(index)
        self._append(_StepChanged(index=index, set=_FIELDS.dump_python(fields, mode="json")))
        for name, value in fields.items():
            setattr(step, name, value)

    def set_state(self, state: PlanState, decisions: list[int] | None = None) -> None:
        """The plan's state; saved only when it cannot be derived from the steps again
        (``aborted``, the decisions owed): the rest is recomputed on load."""
        assert self.plan is not None
        decisions = list(self.plan.decisions if decisions is None else decisions)
        if state == self.plan.state and decisions == self.plan.decisions:
            return
        if state == "aborted" or decisions != self.plan.decisions:
            self._append(_StateChanged(state=state, decisions=decisions))
        self.plan.state = state
        self.plan.decisions = decisions

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """Changes made inside go to disk as one line when the outermost batch ends."""
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1
            if self._depth == 0:
                self.flush()

    def flush(self) -> None:
        """Write the batched changes now (before something outside may see them)."""
        events, self._pending = self._pending, []
        if events and self._file is not None:
            line = events[0] if len(events) == 1 else _Batch.model_validate(
                {"events": [e.model_dump() for e in events]})
            with self._lock:
                self._file.append(_line(line))

    def _append(self, event: BaseModel) -> None:
        if self._file is None:
            return
        if self._depth:
            self._pending.append(event)
            return
        with self._lock:
            self._file.append(_line(event))


def _line(event: BaseModel) -> bytes:
    return event.model_dump_json(exclude_defaults=False).encode("utf-8") + b"\n"


__all__ = ["PlanStore", "plan_path"]
