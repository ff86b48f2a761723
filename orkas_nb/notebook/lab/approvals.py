"""Approval prompts drawn inline in the labextension's run view.

:class:`LabApprover` has the shape of :class:`~orkas_nb.notebook.approvals_ui.WidgetApprover`
(an async approver with ``answer(request_id, answer)`` and ``pending``), so
:class:`~orkas_nb.notebook.render.RunControls` answers either one; the prompt goes into the run
view instead of a built-in widget box. A timeout denies; a stopped run withdraws the prompt.
"""

from __future__ import annotations

import asyncio
import itertools
import threading

from ...tools.approval import ApprovalRequest, Decision, _coerce
from .protocol import ApprovalOption
from .run_view import LabRenderer

DEFAULT_TIMEOUT_S = 300.0


class LabApprover:
    def __init__(self, renderer: LabRenderer, *, timeout_s: float | None = DEFAULT_TIMEOUT_S) -> None:
        self.renderer = renderer
        self.timeout_s = timeout_s
        self._pending: dict[str, tuple[asyncio.Future[Decision], asyncio.AbstractEventLoop]] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        renderer.widget.approval_handler = self.answer

    @property
    def pending(self) -> list[str]:
        with self._lock:
            return list(self._pending)

    async def __call__(self, request: ApprovalRequest) -> Decision:
        loop = asyncio.get_running_loop()
        request_id = f"approval-{next(self._ids)}"
        future: asyncio.Future[Decision] = loop.create_future()
        with self._lock:
            self._pending[request_id] = (future, loop)
        who = f"{request.agent or 'the agent'} · {request.tool or request.kind}"
        run_label = "For this run" + (f" ({request.scope_text})" if request.scope_text else "")
        detail = request.subject + ("\n\n" + "\n".join(f"• {r}" for r in request.reasons)
                                    if request.reasons else "")
        self.renderer.ask_approval(
            request_id, f"Approval needed ({who})", detail=detail, category=request.category,
            options=[ApprovalOption(id="once", label="This time"),
                     ApprovalOption(id="run", label=run_label),
                     ApprovalOption(id="deny", label="Deny")])
        by, answer = "policy", "deny"
        try:
            decision = await asyncio.wait_for(asyncio.shield(future), self.timeout_s)
            by, answer = "user", decision.value
            return decision
        except asyncio.TimeoutError:
            by = "timeout"
            return Decision.DENY
        finally:
            with self._lock:
                self._pending.pop(request_id, None)
            if not future.done():
                future.cancel()
            self.renderer.resolve_approval(request_id, answer, by=by)

    def answer(self, request_id: str, answer: str | Decision) -> None:
        """Answer a pending prompt (the view's buttons, through ``Controls``); thread-safe."""
        with self._lock:
            found = self._pending.get(request_id)
        if found is None:
            raise LookupError(f"no approval {request_id!r} is waiting (answered, timed out, or unknown)")
        future, loop = found
        decision = _coerce(answer)

        def settle() -> None:
            if not future.done():
                future.set_result(decision)

        loop.call_soon_threadsafe(settle)


__all__ = ["DEFAULT_TIMEOUT_S", "LabApprover"]
