"""Interrupt-steer (SPEC §4): user messages queued while a turn runs, folded in at a boundary."""

from __future__ import annotations

import threading
from collections import deque

__all__ = ["SteerQueue"]


class SteerQueue:
    """Messages for the running turn; thread- and task-safe.

    Open while a turn accepts them. ``take(last=True)`` decides under the lock whether the turn
    ends (nothing pending), so a steer cannot slip in between that check and the end.
    """

    def __init__(self) -> None:
        self._pending: deque[str] = deque()
        self._lock = threading.Lock()
        self._open = False

    def open(self) -> None:
        with self._lock:
            self._open = True

    def put(self, text: str) -> None:
        if not isinstance(text, str) or not text.strip():
            raise ValueError("steer() needs a non-empty message")
        with self._lock:
            if not self._open:
                raise RuntimeError("no turn is running; send this message with run() instead")
            self._pending.append(text)

    def take(self, *, last: bool = False, force: bool = False) -> list[str]:
        """What is pending. ``last``: close when nothing is; ``force``: close anyway."""
        with self._lock:
            pending = list(self._pending)
            self._pending.clear()
            if force or (last and not pending):
                self._open = False
        return pending
