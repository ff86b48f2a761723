"""Team lanes in the live widget view: each visible member run in its own collapsible box.

A lane opens where its first event comes, in the run's body: the commander's text before it
stays above, what the commander says after it starts a new block below (its loop reads as
segments cut at each dispatch). The lane's title carries the member, how the work came, its
status, tokens and cost (:class:`~..lanes.LaneTracker`: the member's own price); its body holds
only its own text and tool cards, so two parallel dispatches stream side by side without
mixing. An anonymous worker never gets a box.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

from ....core.events import Done, MemberEvent, TextDelta, ToolEnd, ToolStart
from ..lanes import HANDED_BACK, Lane, LaneTracker, tokens_text
from ..markdown_stream import MarkdownStream
from .cards import card_html, card_title, notice_html

if TYPE_CHECKING:
    from .live import LiveRenderer

__all__ = ["LaneBox", "WidgetLanes", "lane_title"]

def _ipw() -> Any:
    import ipywidgets  # loaded on use, as the live view does

    return ipywidgets


_WORDS = {"running": "running…", "done": "done", "stopped": "stopped", "error": "failed"}


def lane_title(lane: Lane) -> str:
    return (f"{lane.member} · {lane.kind} · {_WORDS.get(lane.status, lane.status)} · "
            f"{tokens_text(lane.usage, lane.cost)}")


class LaneBox:
    """The widgets of one lane: an Accordion (open while it runs) around its own body."""

    def __init__(self, view: LiveRenderer, lane: Lane) -> None:
        self.view, self.lane = view, lane
        self.body = view._widget(_ipw().VBox([]), "orkas-lane-body")
        self.fold = view._widget(_ipw().Accordion([self.body], titles=(lane_title(lane),),
                                                  selected_index=0), "orkas-lane")
        self.fold.add_class(f"orkas-lane-{lane.kind}")
        self.text: MarkdownStream | None = None
        self._cards: dict[str, tuple[Any, Any, ToolStart]] = {}
        self._title = ""

    def stream(self) -> MarkdownStream:
        if self.text is None:
            self.text = MarkdownStream(
                lambda outputs: self.view._block(self.body, "orkas-text", outputs))
        return self.text

    def draw(self, inner: Any) -> None:
        if isinstance(inner, ToolStart):
            self.flush()
            self.text = None
            body = self.view._widget(_ipw().HTML(card_html(inner, None)), "orkas-tool-body")
            card = self.view._widget(_ipw().Accordion(
                [body], titles=(card_title(inner.name, "running"),), selected_index=None), "orkas-tool")
            self._cards[inner.call_id] = (card, body, inner)
            self.view._append(self.body, card)
        elif isinstance(inner, ToolEnd):
            found = self._cards.get(inner.call_id)
            if found is not None:
                card, body, start = found
                with card.hold_sync(), body.hold_sync():
                    card.titles = (card_title(inner.name, inner.status, inner.duration_s),)
                    body.value = card_html(start, inner)
        elif isinstance(inner, Done):
            self.flush()
            if self.lane.handed_back:
                self._note(f"↩ {HANDED_BACK}", "orkas-lane-handback")
            if self.lane.error:
                self._note(f"⚠ {self.lane.error}", "orkas-warning")
            self.fold.add_class(f"orkas-lane-{self.lane.status}")
        elif inner.type in ("retry", "warning"):
            self.flush()
            text = inner.reason if inner.type == "retry" else inner.message
            self._note(f"{'↻' if inner.type == 'retry' else '⚠'} {text}", f"orkas-{inner.type}")
        self.retitle()

    def _note(self, text: str, css: str) -> None:
        self.text = None
        self.view._append(self.body, self.view._widget(_ipw().HTML(notice_html(text)), css))

    def flush(self) -> bool:
        return self.text.flush() if self.text is not None else False

    def retitle(self) -> None:
        title = lane_title(self.lane)
        if title != self._title:  # one state message per change, not per token
            self._title = title
            self.fold.titles = (title,)


class WidgetLanes:
    """The lanes of one live view (see the module docs)."""

    def __init__(self, view: LiveRenderer, tracker: LaneTracker) -> None:
        self.view = view
        self.tracker = tracker
        self.boxes: dict[str, LaneBox] = {}

    def render(self, event: MemberEvent) -> None:
        lane, _, shown = self.tracker.on(event)
        if not lane.visible:
            return
        box = self.boxes.get(lane.task_id)
        if box is None:
            self.view._flush_text()  # the commander's text so far stays above the lane
            box = self.boxes[lane.task_id] = LaneBox(self.view, lane)
            self.view._append(self.view.body, box.fold)
            self.view._text = self.view._thinking = None  # what it says next goes below
        for inner in shown:
            if isinstance(inner, TextDelta):
                box.stream().append(inner.text)
                self.view._maybe_flush()
            elif inner.type == "usage":
                box.retitle()
            elif inner.type != "thinking_delta":
                box.draw(inner)

    def flush(self) -> bool:
        flushed = False
        for box in self.boxes.values():
            flushed = box.flush() or flushed
        return flushed

    def status(self) -> str:
        """The lanes' part of the view's status line: who is still working."""
        running = [b.lane.member for b in self.boxes.values() if b.lane.status == "running"]
        return f"{html.escape(', '.join(running))} working" if running else ""
