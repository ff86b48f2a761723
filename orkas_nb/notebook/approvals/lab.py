"""Approval prompts drawn inline in the labextension's run view.

:class:`LabApprover` has the shape of :class:`~orkas_nb.notebook.approvals.widgets.WidgetApprover`
(an async approver with ``answer(request_id, answer)`` and ``pending``), so
:class:`~orkas_nb.notebook.views.renderer.RunControls` answers either one; the prompt goes into the run
view instead of a built-in widget box. A timeout denies; a stopped run withdraws the prompt.
"""

from __future__ import annotations

from ...harness.approval import ApprovalRequest, Decision
from ..views.lab.protocol import ApprovalOption
from ..views.lab.run_view import LabRenderer
from .pending import PendingAnswers

DEFAULT_TIMEOUT_S = 300.0


class LabApprover:
    def __init__(self, renderer: LabRenderer, *, timeout_s: float | None = DEFAULT_TIMEOUT_S) -> None:
        self.renderer = renderer
        self.timeout_s = timeout_s
        self._waits = PendingAnswers(timeout_s)
        self._offered: dict[str, set[str]] = {}  # prompt id -> the option ids its buttons send
        renderer.widget.approval_handler = self.answer

    @property
    def pending(self) -> list[str]:
        return self._waits.pending

    async def __call__(self, request: ApprovalRequest) -> Decision:
        request_id = self._waits.open()
        who = f"{request.agent or 'the agent'} · {request.tool or request.kind}"
        run_label = "For this run" + (f" ({request.scope_text})" if request.scope_text else "")
        detail = request.subject + ("\n\n" + "\n".join(f"• {r}" for r in request.reasons)
                                    if request.reasons else "")
        options = [ApprovalOption(id=Decision.ONCE.value, label="This time"),
                   ApprovalOption(id=Decision.RUN.value, label=run_label)]
        if request.kind == "connector":  # a connector pair may be allowed from now on
            options.append(ApprovalOption(id=Decision.ALWAYS.value,
                                          label=f"Always ({request.scope_text})"
                                          if request.scope_text else "Always"))
        options.append(ApprovalOption(id=Decision.DENY.value, label="Deny"))
        self._offered[request_id] = {o.id for o in options}
        self.renderer.ask_approval(request_id, f"Approval needed ({who})", detail=detail,
                                   category=request.category, options=options)
        by, answer = "policy", "deny"
        try:
            decision, how = await self._waits.wait(request_id)
            by, answer = how, decision.value
            return decision
        finally:
            self._offered.pop(request_id, None)
            self.renderer.resolve_approval(request_id, answer, by=by)

    def answer(self, request_id: str, answer: str | Decision) -> None:
        """Answer a pending prompt (the view's buttons, through ``Controls``); thread-safe.

        An answer the prompt did not offer ("always" for a command) is refused with ValueError
        and the prompt keeps waiting: a message from the view is checked, not trusted."""
        value = answer.value if isinstance(answer, Decision) else str(answer).lower()
        offered = self._offered.get(request_id)
        if offered is not None and value not in offered:
            raise ValueError(f"{answer!r} is not an answer to {request_id!r} "
                             f"(it offers {', '.join(sorted(offered))})")
        self._waits.answer(request_id, answer)


__all__ = ["DEFAULT_TIMEOUT_S", "LabApprover"]
