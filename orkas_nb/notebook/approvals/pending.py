"""Approval prompts waiting for an answer: what every approver that shows buttons shares.

One future per prompt, answered from any thread (a widget callback, ``Controls``); no answer
within the timeout is a denial; a stopped run cancels the wait. The built-in widget approver
and the labextension's approver differ only in how they draw the prompt.
"""

from __future__ import annotations

import asyncio
import itertools
import threading
from typing import Literal

from ...harness.approval import Decision, to_decision

How = Literal["user", "timeout"]


class PendingAnswers:
    def __init__(self, timeout_s: float | None) -> None:
        self.timeout_s = timeout_s
        self._pending: dict[str, tuple[asyncio.Future[Decision], asyncio.AbstractEventLoop]] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    @property
    def pending(self) -> list[str]:
        """Ids of the prompts waiting for an answer."""
        with self._lock:
            return list(self._pending)

    def open(self) -> str:
        """A new prompt id, waiting for an answer on the running loop."""
        loop = asyncio.get_running_loop()
        request_id = f"approval-{next(self._ids)}"
        with self._lock:
            self._pending[request_id] = (loop.create_future(), loop)
        return request_id

    async def wait(self, request_id: str) -> tuple[Decision, How]:
        """The answer, or a denial when the timeout passes first (cancelled with the run)."""
        with self._lock:
            future = self._pending[request_id][0]
        try:
            return await asyncio.wait_for(asyncio.shield(future), self.timeout_s), "user"
        except asyncio.TimeoutError:
            return Decision.DENY, "timeout"
        finally:
            with self._lock:
                self._pending.pop(request_id, None)
            if not future.done():
                future.cancel()

    def answer(self, request_id: str, answer: str | Decision) -> None:
        """Answer a pending prompt; thread-safe. Unknown or finished ids raise LookupError."""
        with self._lock:
            found = self._pending.get(request_id)
        if found is None:
            raise LookupError(f"no approval {request_id!r} is waiting (answered, timed out, or unknown)")
        future, loop = found
        decision = to_decision(answer)

        def settle() -> None:
            if not future.done():
                future.set_result(decision)

        try:
            on_loop = asyncio.get_running_loop() is loop
        except RuntimeError:
            on_loop = False
        if on_loop:
            settle()
        else:
            loop.call_soon_threadsafe(settle)
