"""Approval prompts in the notebook: the :mod:`orkas_nb.harness.approval` approver, with buttons.

:class:`WidgetApprover` is an async approver: asked an
:class:`~orkas_nb.harness.approval.ApprovalRequest`, it shows what is asked (the command or
path, its risk category and why it is risky) with three buttons — *this time*, *for this run*,
*deny* — and waits for a click while the run waits. A timeout denies; a stopped run withdraws
the prompt. Remembering "for this run" is the :class:`~orkas_nb.harness.approval.ApprovalGate`'s
job, not this widget's.

Clicks reach the kernel only while the cell awaits (SPEC §14.1); the prompt is put into the
live view (``host``) or, without one, displayed in the running cell through a display handle.

:class:`RecordingApprover` and :class:`ReplayingApprover` keep answers beside a cassette, so a
tutorial that replays its model also replays the user's clicks.
"""

from __future__ import annotations

import asyncio
import html
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import ipywidgets as widgets
from IPython.display import display

from ...harness.approval import ApprovalRequest, ApproverLike, Decision, to_decision
from .pending import PendingAnswers

if TYPE_CHECKING:
    from ...providers.base import LLMProvider

DEFAULT_TIMEOUT_S = 300.0
_LABELS = {Decision.ONCE: "allowed this time", Decision.RUN: "allowed for this run",
           Decision.DENY: "denied", Decision.ALWAYS: "always allowed"}


class ApprovalHost(Protocol):
    """Where prompts go (the live view implements it)."""

    def show_approval(self, widget: widgets.Widget) -> None: ...

    def hide_approval(self, widget: widgets.Widget) -> None: ...

    def note(self, text: str, css: str) -> Any: ...


class ApprovalPrompt:
    """The widget for one request: what is asked, its category, three buttons."""

    def __init__(self, request_id: str, request: ApprovalRequest, timeout_s: float | None) -> None:
        self.request_id = request_id
        self.request = request
        reasons = "".join(f"<li>{html.escape(r)}</li>" for r in request.reasons)
        deadline = f" · denied automatically after {timeout_s:.0f} s" if timeout_s else ""
        who = f"{html.escape(request.agent or 'the agent')} · {html.escape(request.tool or request.kind)}"
        self.text = widgets.HTML(
            f"<b>Approval needed</b> ({who}) — risk: <b>{html.escape(request.category)}</b>{deadline}"
            f"<pre>{html.escape(request.subject)}</pre>"
            + (f"<ul>{reasons}</ul>" if reasons else "")
        )
        self.text.add_class("orkas-approval-text")
        run_label = "For this run" + (f" ({request.scope_text})" if request.scope_text else "")
        self.buttons = {
            Decision.ONCE: widgets.Button(description="This time", button_style="success",
                                          tooltip="Allow this one action"),
            Decision.RUN: widgets.Button(description="For this run", button_style="warning",
                                         tooltip=run_label),
            Decision.DENY: widgets.Button(description="Deny", button_style="danger",
                                          tooltip="Refuse; the agent is told why"),
        }
        if request.kind == "connector":  # a connector pair may be allowed from now on
            self.buttons[Decision.ALWAYS] = widgets.Button(
                description="Always", tooltip=f"Always allow {request.scope_text}")
        for decision, button in self.buttons.items():
            button.add_class(f"orkas-approve-{decision.value}")
        self.box = widgets.VBox([self.text, widgets.HBox(list(self.buttons.values()))])
        self.box.add_class("orkas-approval")
        self.box.add_class(f"orkas-approval-{request_id}")

    def close(self) -> None:
        for w in (*self.buttons.values(), self.box.children[1], self.text, self.box):
            w.close()


class WidgetApprover:
    """An approver that asks with buttons; see the module docstring.

    ``host`` is the live view (prompts appear inside it); ``timeout_s=None`` waits forever.
    """

    def __init__(self, host: ApprovalHost | None = None, *, timeout_s: float | None = DEFAULT_TIMEOUT_S) -> None:
        self.host = host
        self.timeout_s = timeout_s
        self._waits = PendingAnswers(timeout_s)

    @property
    def pending(self) -> list[str]:
        """Ids of the prompts waiting for an answer."""
        return self._waits.pending

    async def __call__(self, request: ApprovalRequest) -> Decision:
        request_id = self._waits.open()
        prompt = ApprovalPrompt(request_id, request, self.timeout_s)
        for decision, button in prompt.buttons.items():
            button.on_click(lambda _b, d=decision: self.answer(request_id, d))
        handle = self._show(prompt)
        outcome = "withdrawn (the run stopped)"
        try:
            decision, how = await self._waits.wait(request_id)
            outcome = _LABELS[decision] if how == "user" else (
                f"denied: no answer within {self.timeout_s:.0f} s")
            return decision
        finally:
            self._hide(prompt, handle, f"approval ({request.category}): {outcome} — "
                                       f"{_one_line(request.subject)}")

    def answer(self, request_id: str, answer: str | Decision) -> None:
        """Answer a pending prompt (a button, or ``Controls.answer_approval``); thread-safe."""
        self._waits.answer(request_id, answer)

    def _show(self, prompt: ApprovalPrompt) -> Any:
        if self.host is not None:
            self.host.show_approval(prompt.box)
            return None
        return display(prompt.box, display_id=True)

    def _hide(self, prompt: ApprovalPrompt, handle: Any, summary: str) -> None:
        if self.host is not None:
            self.host.hide_approval(prompt.box)
            self.host.note(summary, "orkas-approval-outcome")
        elif handle is not None:
            handle.update({"text/plain": summary, "text/markdown": html.escape(summary)}, raw=True)
        prompt.close()


def _one_line(text: str, limit: int = 120) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


class RecordingApprover:
    """Asks ``inner`` and appends each answer (category and decision, never the text) to a file.

    The file sits beside a cassette (``<cassette>.approvals.jsonl``) so a replay can answer
    the same way without a person.
    """

    def __init__(self, inner: ApproverLike, path: str | Path) -> None:
        self.inner = inner
        self.path = Path(path)

    async def __call__(self, request: ApprovalRequest) -> Decision:
        answer = self.inner(request)
        if asyncio.iscoroutine(answer) or isinstance(answer, asyncio.Future):
            answer = await answer
        decision = to_decision(answer)
        line = json.dumps({"kind": request.kind, "category": request.category,
                           "tool": request.tool, "decision": decision.value})
        with self.path.open("a", encoding="utf-8") as f:
            f.write(line + "\n")
        return decision


class ReplayingApprover:
    """Answers from a file written by :class:`RecordingApprover`, in order.

    A request that does not match the next recorded one (another kind or category), or one
    past the end of the file, is denied and reported in :attr:`mismatches`: a replay never
    allows what the recording did not.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        lines = self.path.read_text(encoding="utf-8").splitlines() if self.path.exists() else []
        self._answers = [json.loads(line) for line in lines if line.strip()]
        self._next = 0
        self.mismatches: list[str] = []

    def __call__(self, request: ApprovalRequest) -> Decision:
        if self._next >= len(self._answers):
            self.mismatches.append(f"unrecorded approval ({request.kind}/{request.category})")
            return Decision.DENY
        recorded = self._answers[self._next]
        self._next += 1
        if (recorded.get("kind"), recorded.get("category")) != (request.kind, request.category):
            self.mismatches.append(
                f"approval #{self._next}: recorded {recorded.get('kind')}/{recorded.get('category')}, "
                f"asked {request.kind}/{request.category}"
            )
            return Decision.DENY
        return to_decision(recorded.get("decision"))


def approvals_path(cassette: str | Path) -> Path:
    """Where the answers of a cassette's run are kept."""
    cassette = Path(cassette)
    return cassette.with_name(cassette.name + ".approvals.jsonl")


def for_cassette(provider: LLMProvider | None, approver: ApproverLike | None) -> ApproverLike | None:
    """The approver of a run whose model records or replays a cassette.

    Replaying, with an answers file beside the cassette: the recorded answers, nobody is
    asked. The replayer is kept on the provider, so its position carries over from cell to
    cell exactly as the cassette's does (and starts afresh when the provider does).
    Recording: ``approver`` asks as usual and each answer is written beside the new cassette.
    Any other model: ``approver`` unchanged.
    """
    kind = type(provider).__name__
    path = getattr(provider, "path", None)
    if path is None:
        return approver
    if kind == "ReplayProvider" and approvals_path(path).is_file():
        replayer = getattr(provider, "_orkas_approvals", None)
        if replayer is None:
            replayer = ReplayingApprover(approvals_path(path))
            setattr(provider, "_orkas_approvals", replayer)  # noqa: B010 - not the provider protocol's
        return replayer
    if kind == "RecordingProvider" and approver is not None:
        return RecordingApprover(approver, approvals_path(path))
    return approver


__all__ = [
    "DEFAULT_TIMEOUT_S",
    "ApprovalHost",
    "ApprovalPrompt",
    "RecordingApprover",
    "ReplayingApprover",
    "WidgetApprover",
    "approvals_path",
    "for_cassette",
]
