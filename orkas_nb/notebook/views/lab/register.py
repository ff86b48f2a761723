"""Plugging the run view into ``%%agent`` (:mod:`orkas_nb.notebook.plugins`).

The magic builds its renderer synchronously, but whether the front end draws the run view is
known only after the handshake, which takes a round trip (and, with no extension, a timeout).
So the factory returns a :class:`HandshakeRenderer`: it starts the probe as a task created in
the cell's context (display messages from it still go to the running cell), buffers the first
events, and once the answer is in builds either a :class:`~.run_view.LabRenderer` or the
built-in widgets view and replays the buffer into it, losing nothing. Later runs in the same
front-end connection use the cached answer and buffer nothing.
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ....core.events import RunEvent, RunResult
from ....harness.approval import Decision
from ... import plugins
from ...approvals.lab import LabApprover
from ...approvals.widgets import for_cassette
from ...plugins import register_approver, register_renderer
from ..renderer import Renderer, RunInfo
from .handshake import cached_answer, probe_frontend
from .run_view import LabRenderer

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

    from ....harness.approval import ApprovalRequest, ApproverLike
    from ...plugins import RenderContext

log = logging.getLogger(__name__)


def _fallback_factory(ctx: RenderContext) -> Renderer:
    """The built-in widgets view (issue 7) when registered, else the text view."""
    for name in ("widgets", "text"):
        entry = plugins._renderers.get(name)
        if entry is not None:
            return entry.factory(ctx)
    raise LookupError("no fallback renderer is registered")


class HandshakeRenderer:
    """A renderer that becomes the run view or the built-in one; see the module docstring."""

    def __init__(self, ctx: RenderContext, fallback: Callable[[RenderContext], Renderer] = _fallback_factory, *,
                 timeout: float | None = None) -> None:
        self.ctx = ctx
        self.fallback = fallback
        self.timeout = timeout
        self.chosen: Renderer | None = None
        self._buffer: list[tuple[str, Any]] = []
        self._decided: asyncio.Future[Renderer] | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def uses_run_view(self) -> bool:
        return isinstance(self.chosen, LabRenderer)

    def start(self, info: RunInfo) -> None:
        self._buffer.append(("start", info))
        known = cached_answer()
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._choose(False)
            return
        self._decided = loop.create_future()
        if known is not False:
            self._choose(known is not None and "run" in known.views)
        else:
            self._task = loop.create_task(self._probe())

    async def _probe(self) -> None:
        try:
            hello = await probe_frontend(self.timeout)
        except Exception:
            log.exception("orkas_nb: front-end handshake failed")
            hello = None
        self._choose(hello is not None and "run" in hello.views)

    def _choose(self, run_view: bool) -> None:
        if self.chosen is not None:
            return
        ctx = self.ctx
        if run_view:
            self.chosen = LabRenderer(ctx.controls, transcript=ctx.transcript, slot=ctx.slot,
                                      cost=getattr(ctx, "extra", {}).get("cost"),
                                      interval_s=max(0.05, float(getattr(ctx, "refresh_interval", 0.05))))
        else:
            self.chosen = self.fallback(ctx)
        buffered, self._buffer = self._buffer, []
        for kind, value in buffered:
            getattr(self.chosen, kind)(value)
        if self._decided is not None and not self._decided.done():
            self._decided.set_result(self.chosen)

    async def wait_chosen(self) -> Renderer:
        if self.chosen is not None:
            return self.chosen
        if self._decided is None:
            self._choose(False)
            assert self.chosen is not None
            return self.chosen
        return await asyncio.shield(self._decided)

    def render(self, event: RunEvent) -> None:
        if self.chosen is None:
            self._buffer.append(("render", event))
        else:
            self.chosen.render(event)

    def finish(self, result: RunResult) -> None:
        if self.chosen is None:
            self._buffer.append(("finish", result))
        else:
            self.chosen.finish(result)


class DeferredApprover:
    """The interactive approver of a :class:`HandshakeRenderer`: asks through whichever view
    was chosen (inline prompts in the run view, or the built-in buttons)."""

    def __init__(self, ctx: RenderContext, renderer: HandshakeRenderer) -> None:
        self.ctx = ctx
        self.renderer = renderer
        self.inner: ApproverLike | None = None

    async def _inner(self) -> ApproverLike | None:
        if self.inner is None:
            chosen = await self.renderer.wait_chosen()
            if isinstance(chosen, LabRenderer):
                self.inner = LabApprover(
                    chosen, timeout_s=self.ctx.extra.get("approval_timeout_s", 300.0))
            else:
                self.inner = plugins.interactive_approver(self.ctx, chosen)
        return self.inner

    async def __call__(self, request: ApprovalRequest) -> Any:  # what to_decision reads
        inner = await self._inner()
        if inner is None:
            return Decision.DENY  # no view can ask: fail closed
        answer = inner(request)
        if asyncio.iscoroutine(answer) or isinstance(answer, asyncio.Future):
            answer = await answer
        return answer

    @property
    def pending(self) -> list[str]:
        return list(getattr(self.inner, "pending", []))

    def answer(self, request_id: str, answer: Any) -> None:
        if self.inner is None:
            raise LookupError(f"no approval {request_id!r} is waiting")
        self.inner.answer(request_id, answer)  # type: ignore[attr-defined]  # both button approvers have it


def _available(shell: InteractiveShell | None) -> bool:
    return (shell is not None and getattr(shell, "kernel", None) is not None
            and importlib.util.find_spec("ipywidgets") is not None)


def _make_renderer(ctx: RenderContext) -> Renderer:
    return HandshakeRenderer(ctx)


def _make_approver(ctx: RenderContext, renderer: Renderer) -> ApproverLike | None:
    if not isinstance(renderer, HandshakeRenderer):
        return None
    # A replayed cassette answers from its recorded file; a recording one writes the answers.
    provider = getattr(getattr(ctx.controls, "agent", None), "provider", None)
    return for_cassette(provider, DeferredApprover(ctx, renderer))


def register() -> None:
    """Make the run view the default ``%%agent`` view in a kernel (``Agent.renderer = "lab"``);
    front ends without the extension get the built-in widgets through the handshake."""
    register_renderer("lab", _make_renderer, available=_available, priority=20)
    register_approver("lab", _make_approver)


__all__ = ["DeferredApprover", "HandshakeRenderer", "register"]
