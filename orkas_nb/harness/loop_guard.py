"""The loop guard: the same (tool, arguments) proposed again and again in a row.

The 3rd consecutive identical call gets a reminder in its result; the 5th is not run and
stops the turn. Any different signature resets the count.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

Verdict = Literal["run", "remind", "stop"]

REMINDER = (
    "[loop guard: this is the {n}th identical call in a row ({name} with the same arguments). "
    "Its result will not change; try a different approach or answer with what you have.]"
)
STOPPED = (
    "[loop guard: not run. The same call ({name} with the same arguments) was proposed {n} times "
    "in a row, so the run was stopped.]"
)


def signature(name: str, arguments: dict[str, Any]) -> str:
    return name + "\x00" + json.dumps(arguments, sort_keys=True, ensure_ascii=False, default=str)


@dataclass
class LoopGuard:
    remind_at: int = 3
    stop_at: int = 5
    _last: str | None = None
    _count: int = 0

    def check(self, name: str, arguments: dict[str, Any]) -> tuple[Verdict, int]:
        sig = signature(name, arguments)
        if sig == self._last:
            self._count += 1
        else:
            self._last, self._count = sig, 1
        if self._count >= self.stop_at:
            return "stop", self._count
        if self._count >= self.remind_at:
            return "remind", self._count
        return "run", self._count
