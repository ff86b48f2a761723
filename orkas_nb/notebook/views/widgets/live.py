"""The live view of a run: built-in ipywidgets behind the :class:`~..renderer.Renderer` protocol.

While a run streams, the cell shows the model's text as Markdown (rendered by the front end's
own Markdown renderer, through an ``Output`` widget holding a ``text/markdown`` bundle), one
collapsible card per tool call, notices for compaction, retries, warnings and steering, a
status line, a Stop button and a steer box. The buttons call the run's
:class:`~..renderer.Controls`; nothing here touches the engine directly.

Promises:

- Text updates are coalesced to at most one per ``interval_s`` (default 50 ms, so ~20 a
  second) however fast tokens come, and no text is lost: pending text is flushed before any
  other event is shown and at ``finish``. Long answers are cut into frozen Markdown blocks at
  blank lines outside code fences, so each update re-sends only the live tail.
- Everything is sent through widget state (comm messages routed by model id) — never
  ``print`` from a task, which would leak into whichever cell runs (SPEC §14.1).
- At ``finish`` the view gives way to the static transcript: the cell's display slot is
  replaced by the transcript's MIME bundle and every widget is closed, so a saved notebook
  does not depend on widget state.
- Clicks reach the kernel mid-run only while the cell awaits (top-level await); the magic
  arranges that (SPEC §14.1).
"""

from __future__ import annotations

import asyncio
import html
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from IPython.display import display

if TYPE_CHECKING:  # importing this module stays light: ipywidgets and the engine load on use
    import ipywidgets as widgets

    from ....core.events import RunEvent, RunResult, ToolEnd, ToolStart
    from ....core.messages import Usage
    from ..renderer import Controls, RunInfo
    from ..slots import Slot

from ..lanes import LaneTracker
from ..markdown_stream import FREEZE_CHARS, MarkdownStream, safe_cut
from ..renderer import RunControls
from .cards import card_html, card_title, notice_html
from .lanes import WidgetLanes

#: What the view shows when the run ends: ``result -> (data, metadata)`` MIME bundle, or None.
TranscriptSource = Callable[["RunResult"], "tuple[dict[str, Any], dict[str, Any]] | None"]
#: ``(model, usage) -> cost in USD`` or None when the price is unknown.
CostSource = Callable[[str, "Usage"], "float | None"]

STATUS_INTERVAL_S = 0.25
TICK_S = 1.0


def _ipw() -> Any:
    import ipywidgets

    return ipywidgets


class LiveRenderer:
    """A :class:`~..renderer.Renderer` drawing a run with ipywidgets; see the module docstring."""

    def __init__(
        self,
        controls: Controls | None = None,
        *,
        transcript: TranscriptSource | None = None,
        cost: CostSource | None = None,
        interval_s: float = 0.05,
        show: bool = True,
        slot: Slot | None = None,
    ) -> None:
        self.controls = controls
        self.slot = slot  # an output slot of the magic (display id); None: a display handle
        self.transcript = transcript
        self.cost = cost
        self.interval_s = interval_s
        self.show = show
        self.info: RunInfo | None = None
        self.result: RunResult | None = None
        self.flushes = 0
        self._widgets: list[widgets.Widget] = []
        self._cards: dict[str, tuple[widgets.Accordion, widgets.HTML, ToolStart]] = {}
        self._text: MarkdownStream | None = None
        self._thinking: MarkdownStream | None = None
        self._steer_notices: dict[str, widgets.HTML] = {}
        self._last_flush = float("-inf")  # the first text shows at once
        self._last_status = 0.0
        self._timer: asyncio.TimerHandle | None = None
        self._ticker: asyncio.TimerHandle | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._started = time.monotonic()
        self._streamed_chars = 0
        self._streamed: list[str] = []
        self._usage: Usage | None = None  # the turn's usage so far, from "usage" events
        self._usage_model: str | None = None
        self._finished = False
        self.handle: Any = None
        self._build()
        self.lanes = WidgetLanes(self, LaneTracker(cost))  # a team's member runs

    # -- layout -----------------------------------------------------------------------------

    def _widget(self, w: Any, css: str | None = None) -> Any:
        self._widgets.append(w)
        if css:
            w.add_class(css)
        return w

    def _append(self, box: widgets.Box, child: widgets.Widget) -> None:
        box.children = (*box.children, child)

    def _block(self, box: widgets.Box, css: str, outputs: tuple[dict[str, Any], ...]) -> Any:
        """A new Markdown block at the end of ``box``, opened with its text (one message)."""
        block = self._widget(_ipw().Output(outputs=outputs), css)
        self._append(box, block)
        return block

    def _build(self) -> None:
        w, W = self._widget, _ipw()
        self.status = w(W.HTML(""), "orkas-status")
        self.body = w(W.VBox([]), "orkas-body")
        self.approvals = w(W.VBox([]), "orkas-approvals")
        self.stop_button = w(W.Button(description="Stop", icon="stop", button_style="danger",
                                      tooltip="Stop this run (the session stays valid)"),
                             "orkas-stop")
        self.steer_box = w(W.Text(placeholder="Steer: add an instruction to this run, then Enter",
                                  continuous_update=True, layout=W.Layout(flex="1 1 auto")),
                           "orkas-steer-input")
        self.steer_button = w(W.Button(description="Send", icon="share",
                                       tooltip="Fold this text into the running turn"),
                              "orkas-steer-send")
        self.stop_button.on_click(lambda _b: self._on_stop())
        self.steer_button.on_click(lambda _b: self._on_steer())
        # Enter in the box arrives as a custom "submit" message (Text.on_submit is deprecated).
        self.steer_box.on_msg(lambda _w, content, _bufs: content.get("event") == "submit"
                              and self._on_steer())
        self.bar = w(W.HBox([self.stop_button, self.steer_box, self.steer_button]), "orkas-controls")
        self.root = w(W.VBox([self.status, self.body, self.approvals, self.bar]), "orkas-live")
        if self.controls is None:
            self.bar.layout.display = "none"

    # -- controls ---------------------------------------------------------------------------

    def _on_stop(self) -> None:
        if self.controls is None or self._finished:
            return
        self.stop_button.disabled = True
        self.stop_button.description = "Stopping…"
        self.controls.stop("stopped from the Stop button")

    def _on_steer(self) -> None:
        text = self.steer_box.value.strip()
        if not text or self.controls is None or self._finished:
            return
        self.steer_box.value = ""
        if self.controls.steer(text) is False:  # the run ended between the click and now
            self._notice(f"the run had already ended; send this as a new prompt: {text}",
                         "orkas-steer-notice")
            return
        self._flush_text()
        self._steer_notices[text] = self._notice(f"↪ steer queued: {text}", "orkas-steer-notice")

    def show_approval(self, widget: widgets.Widget) -> None:
        """Put an approval prompt in the view (the approver calls this)."""
        self._append(self.approvals, widget)

    def hide_approval(self, widget: widgets.Widget) -> None:
        self.approvals.children = tuple(c for c in self.approvals.children if c is not widget)

    # -- the Renderer protocol --------------------------------------------------------------

    def start(self, info: RunInfo) -> None:
        self.info = info
        self.lanes.tracker.configure(model=info.model, members=info.members)
        self._started = time.monotonic()
        try:
            self._loop = asyncio.get_running_loop()
        except RuntimeError:
            self._loop = None  # driven synchronously: flushes happen on the next event
        self._status(force=True)
        if self.show and self.slot is not None:
            self.slot.update(self.root._repr_mimebundle_())
        elif self.show:
            self.handle = display(self.root, display_id=True)
        self._tick()

    def render(self, event: RunEvent) -> None:
        kind = event.type
        if kind == "text_delta":
            self._streamed.append(event.text)
            self._streamed_chars += len(event.text)
            self._text_stream().append(event.text)
            self._maybe_flush()
            return
        if kind == "thinking_delta":
            self._thinking_stream().append(event.text)
            self._maybe_flush()
            return
        if kind == "member":
            self.lanes.render(event)  # type: ignore[arg-type]
            self._status()
            return
        if kind == "usage":  # only the status line changes: no text flush needed
            self._usage, self._usage_model = event.usage, event.model
            self.lanes.tracker.on_commander_usage(event)  # type: ignore[arg-type]
            self._status(force=True)
            return
        self._flush_text()  # keep the order: text before whatever this event shows
        if kind == "tool_start":
            self._card_start(event)
        elif kind == "tool_end":
            self._card_end(event)
        elif kind == "compaction":
            self._notice(f"⇣ context compacted: {event.tokens_before:,} → {event.tokens_after:,} "
                         f"tokens ({event.messages_replaced} messages summarised)", "orkas-compaction")
        elif kind == "retry":
            rotated = f", now on {event.rotated_to}" if event.rotated_to else ""
            self._notice(f"↻ retry {event.attempt} in {event.delay_s:.1f} s: {event.reason}{rotated}",
                         "orkas-retry")
        elif kind == "steer":
            notice = self._steer_notices.pop(event.text, None)
            label = f"↪ steer folded into the run: {event.text}"
            if notice is None:
                self._notice(label, "orkas-steer-notice")
            else:
                notice.value = notice_html(label)
        elif kind == "warning":
            self._notice(f"⚠ {event.message}", "orkas-warning")
        elif kind == "done":
            self.result = event.result
        self._status()

    def finish(self, result: RunResult) -> None:
        if self._finished:
            return
        self.result = result
        self._cancel_timers()
        self._flush_text()
        self._finished = True
        self._status(force=True)
        for b in (self.stop_button, self.steer_box, self.steer_button):
            b.disabled = True
        bundle = self.transcript(result) if self.transcript is not None else None
        if bundle is None:
            return  # transcripts are off: the (disabled) widgets stay as the record
        data, metadata = bundle
        if self.slot is not None:
            self.slot.final(data)
        elif self.handle is not None:
            self.handle.update(data, metadata=metadata, raw=True)
        self.close()

    def close(self) -> None:
        """Close every widget of the view (their state leaves the kernel and the front end)."""
        self._cancel_timers()
        for w in reversed(self._widgets):
            w.close()
        self._widgets.clear()

    # -- text -------------------------------------------------------------------------------

    @property
    def text(self) -> str:
        """All the model's text of the run so far, across every block (flushed or pending)."""
        return "".join(self._streamed)

    def _text_stream(self) -> MarkdownStream:
        if self._text is None:
            self._text = MarkdownStream(lambda outputs: self._block(self.body, "orkas-text", outputs))
        return self._text

    def _thinking_stream(self) -> MarkdownStream:
        if self._thinking is None:
            box = self._widget(_ipw().VBox([]))
            fold = self._widget(_ipw().Accordion([box], titles=("Thinking",), selected_index=None),
                                "orkas-thinking")
            self._append(self.body, fold)
            self._thinking = MarkdownStream(lambda outputs: self._block(box, "orkas-thinking-text", outputs))
        return self._thinking

    def _maybe_flush(self) -> None:
        wait = self.interval_s - (time.monotonic() - self._last_flush)
        if wait <= 0:
            self._flush_text()
        elif self._timer is None and self._loop is not None:
            self._timer = self._loop.call_later(wait, self._on_timer)

    def _on_timer(self) -> None:
        self._timer = None
        if not self._finished:
            self._flush_text()

    def _flush_text(self) -> None:
        flushed = self.lanes.flush()
        for stream in (self._thinking, self._text):
            if stream is not None:
                flushed = stream.flush() or flushed
        if flushed:
            self.flushes += 1
            self._last_flush = time.monotonic()
            self._status()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    # -- tool cards and notices -------------------------------------------------------------

    def _card_start(self, event: ToolStart) -> None:
        self._text = None  # text after the call goes below its card
        self._thinking = None
        body = self._widget(_ipw().HTML(card_html(event, None)), "orkas-tool-body")
        card = self._widget(
            _ipw().Accordion([body], titles=(card_title(event.name, "running"),),
                              selected_index=None),
            "orkas-tool",
        )
        self._cards[event.call_id] = (card, body, event)
        self._append(self.body, card)

    def _card_end(self, event: ToolEnd) -> None:
        found = self._cards.get(event.call_id)
        if found is None:  # an end without a start (e.g. a rejection): give it a card too
            from ....core.events import ToolStart

            self._card_start(ToolStart(call_id=event.call_id, name=event.name))
            found = self._cards[event.call_id]
        card, body, start = found
        with card.hold_sync(), body.hold_sync():
            card.titles = (card_title(event.name, event.status, event.duration_s),)
            body.value = card_html(start, event)
        if event.status not in ("ok", "interrupted"):
            card.add_class("orkas-tool-failed")

    def note(self, text: str, css: str = "orkas-note") -> widgets.HTML:
        """Add a one-line notice to the view, in order with the text and the cards."""
        self._flush_text()
        return self._notice(text, css)

    def _notice(self, text: str, css: str) -> widgets.HTML:
        self._text = self._thinking = None  # what streams next goes below the notice
        notice = self._widget(_ipw().HTML(notice_html(text)), css)
        self._append(self.body, notice)
        return notice

    # -- status line ------------------------------------------------------------------------

    def _tick(self) -> None:
        """Keep the elapsed time moving while nothing streams (a long tool, a retry wait)."""
        self._ticker = None
        if self._finished or self._loop is None:
            return
        self._status(force=True)
        self._ticker = self._loop.call_later(TICK_S, self._tick)

    def _cancel_timers(self) -> None:
        for handle in (self._timer, self._ticker):
            if handle is not None:
                handle.cancel()
        self._timer = self._ticker = None

    def _status(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self._last_status < STATUS_INTERVAL_S:
            return
        self._last_status = now
        self.status.value = self.status_text()

    def status_text(self) -> str:
        name = getattr(self.info, "model", "") or getattr(self.info, "agent", "") or "agent"
        parts = [f"<b>{html.escape(name)}</b>"]
        r = self.result
        elapsed = r.duration_s if r is not None and self._finished else time.monotonic() - self._started
        parts.append(f"{elapsed:.1f} s")
        u = r.usage if r is not None else self._usage
        if u is not None:
            parts.append(f"tokens in {u.input_tokens:,} / out {u.output_tokens:,}")
            price = self.cost(self._usage_model or name, u) if self.cost is not None else None
            if r is not None and self.lanes.tracker.lanes:  # each member at its own price
                price = self.lanes.tracker.total_cost()
            if price is not None:
                parts.append(f"${price:.4f}")
        if r is not None:
            state = {"end_turn": "done", "cancelled": "stopped"}.get(r.stop_reason, r.stop_reason)
            if r.error is not None:
                state += f": {html.escape(r.error.message)}"
            parts.append(state)
        else:
            if u is None:  # no response has finished yet: an estimate from the text so far
                parts.append(f"out ~{self._streamed_chars // 4:,} tokens")
            parts.append("running")
            if self.lanes.status():
                parts.append(self.lanes.status())
        return "<span class='orkas-status-line'>" + " · ".join(parts) + "</span>"


__all__ = ["FREEZE_CHARS", "CostSource", "LiveRenderer", "RunControls", "TranscriptSource", "safe_cut"]
