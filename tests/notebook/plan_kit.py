"""A stand-in for the plan executor's API, for the views' unit tests: it records what a view
asks and lets a test change the plan as the executor would. The executor's own rules are tested
in tests/team; tests/notebook/test_plan_cells.py and tests/browser/test_plan_view.py drive the
views with the real one."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any


def diamond() -> dict[str, Any]:
    """Seed 001's diamond: two research steps, a user's choice, a summary waiting for all."""
    return {"id": "p1", "title": "Diamond", "state": "running", "steps": [
        {"index": 1, "title": "Research A", "assignee": "researcher", "wait_for": []},
        {"index": 2, "title": "Research B", "assignee": "researcher", "wait_for": []},
        {"index": 3, "title": "Pick a style", "assignee": "user", "wait_for": [],
         "form": {"prompt": "Which style?", "fields": [
             {"name": "style", "kind": "choice", "choices": ["bar", "line"]}]}},
        {"index": 4, "title": "Summary", "assignee": "writer", "wait_for": [1, 2, 3]},
        {"index": 5, "title": "Publish", "assignee": "commander"},  # wait_for absent: step 4
    ]}


class ScriptedExecutor:
    def __init__(self, plan: dict[str, Any], *, refuse: str | None = None) -> None:
        self.plan = plan
        self.calls: list[tuple[Any, ...]] = []
        self.listeners: list[Callable[..., Any]] = []
        self.refuse = refuse

    def snapshot(self) -> dict[str, Any]:
        return copy.deepcopy(self.plan)

    def subscribe(self, listener: Callable[..., Any]) -> Callable[[], None]:
        self.listeners.append(listener)
        return lambda: self.listeners.remove(listener)

    def set(self, index: int, **changes: Any) -> None:
        for s in self.plan["steps"]:
            if s["index"] == index:
                s.update(changes)
        for listener in list(self.listeners):
            listener()

    def set_state(self, state: str) -> None:
        self.plan["state"] = state
        for listener in list(self.listeners):
            listener(self.snapshot())

    def _call(self, *call: Any) -> None:
        if self.refuse:
            raise ValueError(self.refuse)
        self.calls.append(call)

    def act(self, action: str, index: int, values: dict[str, Any] | None = None) -> None:
        self._call(action, index, values or {})

    def resume(self) -> None:
        self._call("resume")

    def stop(self) -> None:
        self._call("stop")
