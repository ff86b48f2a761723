"""The abort signal: one flag a Stop button, a kernel interrupt or a group stop can raise.

``abort()`` is safe from any thread. Waiters are woken on the loop they registered from.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Callable


class _CallbackEvent:
    """Quacks like ``asyncio.Event.set`` for the waiter list, but runs a callback."""

    def __init__(self, callback: Callable[[], None]) -> None:
        self._callback = callback

    def set(self) -> None:
        self._callback()


class AbortSignal:
    def __init__(self) -> None:
        self._aborted = False
        self._reason = ""
        self._lock = threading.Lock()
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = []

    @property
    def aborted(self) -> bool:
        return self._aborted

    @property
    def reason(self) -> str:
        return self._reason

    def abort(self, reason: str = "stopped by the user") -> None:
        with self._lock:
            if self._aborted:
                return
            self._aborted = True
            self._reason = reason
            waiters = list(self._waiters)
        for loop, event in waiters:
            try:
                if loop.is_closed():
                    continue
                loop.call_soon_threadsafe(event.set)
            except RuntimeError:
                pass  # the loop closed between the check and the call

    def subscribe(self, callback: "Callable[[], None]") -> "Callable[[], None]":
        """Call ``callback`` on the current loop when the signal is raised (at once if it was).

        Returns a function that unsubscribes. Used by the runner to cancel its task the moment
        Stop is pressed, so the abort lands at whatever await the run is in.
        """
        loop = asyncio.get_running_loop()
        event = _CallbackEvent(callback)
        entry = (loop, event)
        with self._lock:
            fire = self._aborted
            if not fire:
                self._waiters.append(entry)  # type: ignore[arg-type]
        if fire:
            loop.call_soon(callback)

        def unsubscribe() -> None:
            with self._lock:
                if entry in self._waiters:
                    self._waiters.remove(entry)  # type: ignore[arg-type]

        return unsubscribe

    async def wait(self) -> None:
        """Return when the signal is raised."""
        event = asyncio.Event()
        entry = (asyncio.get_running_loop(), event)
        with self._lock:
            if self._aborted:
                return
            self._waiters.append(entry)
        try:
            await event.wait()
        finally:
            with self._lock:
                if entry in self._waiters:
                    self._waiters.remove(entry)
