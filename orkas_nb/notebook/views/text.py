"""The text renderer: a run as readable plain text, for front ends without widgets.

Used by plain IPython, nbconvert and any front end without ipywidgets. The view is append-only
plain text (no ANSI escapes, so saved files stay clean) drawn into an output slot: model text
as it streams, one line when a tool starts and one when it ends, notices, and a status line.
While a run goes, a last line shows the tokens so far (and the cost, when ``cost`` knows the
model's price); it is redrawn, not appended, so the text stays clean.
Redraws are throttled (``interval``); a trailing redraw is scheduled on the running loop so the
last words of a pause are never left unshown.

A long run costs display traffic in proportion to its length, not its square: when the slot can
open slots below it (a display id in a kernel), the text lives in blocks cut at line ends (the
live view's :class:`~.markdown_stream.MarkdownStream`, in text/plain); a finished block is frozen
in its own output and a redraw re-sends only the open one. A slot without ``below`` (a
terminal's, which writes only what is new) gets the whole text in one slot, as before.
When the run ends, the static transcript (if any) replaces the first block in place and the
other blocks are emptied (an output with no data shows nothing), so a saved notebook holds the
transcript and, after a long answer, a few empty outputs, never the streamed fragments.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

from ...core.events import MemberEvent, RunEvent, RunResult
from ...core.messages import Usage
from .lanes import HANDED_BACK, LaneTracker, tokens_text
from .markdown_stream import MarkdownStream
from .renderer import RunInfo
from .slots import Slot, StreamSlot

#: An open block longer than this is frozen at its last line end. Plain text split at a line end
#: reads the same in two outputs, so blocks can be smaller than the Markdown view's: half the
#: bytes per redraw, for a few more outputs (about one per 500 tokens).
BLOCK_CHARS = 2000

_STOPPED = {"cancelled": "stopped", "loop_guard": "stopped by the loop guard",
            "max_steps": "stopped at the step limit", "error": "failed"}


def _args(arguments: dict[str, Any]) -> str:
    parts = []
    for k, v in arguments.items():
        shown = json.dumps(v, ensure_ascii=False) if not isinstance(v, str) else repr(v)
        parts.append(f"{k}={shown if len(shown) <= 60 else shown[:57] + '...'}")
    return ", ".join(parts)


def line_cut(text: str) -> int:
    """Where a plain text may be split into two outputs that read as one: after its last line
    break before the end (outputs stack as lines); failing that, after its last space (a long
    line wraps there anyway); 0 when there is neither."""
    end = len(text) - 1
    return text.rfind("\n", 0, end) + 1 or text.rfind(" ", 0, end) + 1


class _Block:
    """One output of the view. The stream sets ``outputs``; the renderer draws the block after
    the flush, so the running status line goes only to the block still open."""

    def __init__(self, slot: Slot, outputs: tuple[dict[str, Any], ...]) -> None:
        self.slot = slot
        self.text = ""
        self.dirty = False
        self.outputs = outputs

    def _set_outputs(self, outputs: tuple[dict[str, Any], ...]) -> None:
        self.text = outputs[0]["data"]["text/plain"]
        self.dirty = True

    outputs = property(None, _set_outputs)


class TextRenderer:
    """Draws the run into ``slot`` as text. Implements the Renderer protocol."""

    def __init__(
        self,
        slot: Slot,
        *,
        transcript: Callable[[RunResult], tuple[dict[str, Any], dict[str, Any]] | None] | None = None,
        interval: float = 0.1,
        background: bool = False,
        cost: Callable[[str, Usage], float | None] | None = None,
    ) -> None:
        self.slot = slot
        self.transcript = transcript
        self.interval = interval
        self.background = background
        self._parts: list[str] = []
        self._at_line_start = True
        self._last_draw = 0.0
        self._dirty = False
        self._timer: asyncio.TimerHandle | None = None
        self._started = time.monotonic()
        self._tools = 0
        self.cost = cost  # (model, usage) -> USD, or None when the price is unknown
        self._model = ""
        self._usage: Usage | None = None
        self._finished = False
        self._blocks: list[_Block] = []
        self._lanes: dict[str, str] = {}  # a team member's unfinished line, per task
        self.lanes = LaneTracker(cost)  # their status, tokens and cost
        self._info: RunInfo | None = None  # the cell may update its floor before finish()
        below = getattr(slot, "below", None)  # a display slot opens slots below it: blocks
        self._below: Callable[[], Slot] | None = below if callable(below) else None
        self._stream = (MarkdownStream(self._open_block, mime="text/plain", freeze_chars=BLOCK_CHARS,
                                       cut=line_cut)
                        if self._below is not None else None)

    # -- building the text ------------------------------------------------------------------

    def _write(self, text: str) -> None:
        if text:
            self._parts.append(text)
            if self._stream is not None:
                self._stream.append(text)
            self._at_line_start = text.endswith("\n")

    def _line(self, text: str) -> None:
        self._write(("" if self._at_line_start else "\n") + text + "\n")

    @property
    def text(self) -> str:
        return "".join(self._parts)

    # -- drawing ----------------------------------------------------------------------------

    def _draw(self) -> None:
        self._dirty = False
        self._last_draw = time.monotonic()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        # A terminal only appends: a line redrawn there would be written again at every draw.
        tail = "" if self._finished or self._usage is None or isinstance(self.slot, StreamSlot) else (
            ("" if self._at_line_start else "\n") + f"[running · {self._tokens(self._usage)}]\n")
        if self._stream is None:
            self.slot.update({"text/plain": self.text + tail})
            return
        self._stream.flush()
        for block in self._blocks[-2:]:  # the block this flush froze (if any), then the open one
            live = block is self._blocks[-1]
            if block.dirty or live:
                block.dirty = False
                block.slot.update({"text/plain": block.text + (tail if live else "")})

    def _open_block(self, outputs: tuple[dict[str, Any], ...]) -> _Block:
        below = self._below
        block = _Block(below() if self._blocks and below is not None else self.slot, outputs)
        self._blocks.append(block)
        return block

    def _draw_soon(self, urgent: bool = False) -> None:
        self._dirty = True
        if urgent or time.monotonic() - self._last_draw >= self.interval:
            self._draw()
            return
        if self._timer is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                return
            delay = max(0.0, self.interval - (time.monotonic() - self._last_draw))
            self._timer = loop.call_later(delay, self._flush)

    def _flush(self) -> None:
        self._timer = None
        if self._dirty:
            self._draw()

    # -- the protocol -----------------------------------------------------------------------

    def start(self, info: RunInfo) -> None:
        self._started = time.monotonic()
        self._model = info.model
        self._info = info
        self.lanes.configure(model=info.model, members=info.members)
        where = f" · session {info.session}" if info.session else ""
        mode = " · in the background" if self.background else ""
        floor = f" · {info.floor} has the floor" if info.floor else ""
        self._line(f"orkas · {info.model or 'model?'}{where}{floor}{mode}")
        self._draw_soon(urgent=True)

    def render(self, event: RunEvent) -> None:
        kind = event.type
        urgent = False
        if kind == "member":
            self._member(event)  # type: ignore[arg-type]
            return
        if kind == "text_delta":
            self._write(event.text)
        elif kind == "thinking_delta":
            return  # thinking is kept in the session and the transcript, not streamed here
        elif kind == "tool_start":
            self._tools += 1
            self._line(f"  → {event.name}({_args(event.arguments)})")
            urgent = True
        elif kind == "tool_end":
            first = (event.result.splitlines() or [""])[0][:100]
            took = f"{event.duration_s * 1000:.0f} ms" if event.duration_s < 1 else f"{event.duration_s:.1f} s"
            self._line(f"  ← {event.name} [{event.status}, {took}] {first}")
            urgent = True
        elif kind == "retry":
            self._line(f"  [retry {event.attempt} in {event.delay_s:.1f} s: {event.reason}]")
            urgent = True
        elif kind == "compaction":
            self._line(f"  [compacted {event.messages_replaced} messages: "
                       f"{event.tokens_before:,} → {event.tokens_after:,} tokens]")
        elif kind == "steer":
            self._line(f"  [steer] {event.text}")
        elif kind == "warning":
            self._line(f"  [{event.code}] {event.message}")
            urgent = True
        elif kind == "usage":
            self._usage = event.usage
            self._model = event.model or self._model
            self.lanes.on_commander_usage(event)
        elif kind == "done":
            return  # finish() follows
        self._draw_soon(urgent)

    def _member(self, event: MemberEvent) -> None:
        """A team member's run: its own lane, each line prefixed with the member's name.

        Parallel lanes stream at once, so a lane's text is printed a whole line at a time; an
        anonymous worker's lane is not shown (the user does not see it), only counted in the cost.
        """
        lane, _, shown = self.lanes.on(event)
        if not event.visible:
            return
        name = f"[{event.member}]"
        for inner in shown:
            text = self._lanes.setdefault(event.task_id, "")
            if inner.type == "text_delta":
                text += inner.text
                *lines, text = text.split("\n")
                for line in lines:
                    self._line(f"{name} {line}")
                self._lanes[event.task_id] = text
                continue
            if inner.type not in ("tool_start", "tool_end", "retry", "warning", "done"):
                continue
            if text:
                self._line(f"{name} {text}")
                self._lanes[event.task_id] = ""
            if inner.type == "tool_start":
                self._line(f"{name}   → {inner.name}({_args(inner.arguments)})")
            elif inner.type == "tool_end":
                self._line(f"{name}   ← {inner.name} [{inner.status}] "
                           f"{(inner.result.splitlines() or [''])[0][:100]}")
            elif inner.type == "retry":
                self._line(f"{name}   [retry {inner.attempt}: {inner.reason}]")
            elif inner.type == "warning":
                self._line(f"{name}   [{inner.code}] {inner.message}")
            else:
                self._lanes.pop(event.task_id, None)
                if lane.handed_back:
                    self._line(f"{name} [{HANDED_BACK}]")
                self._line(f"{name} [{_STOPPED.get(lane.stop_reason, 'done')} · "
                           f"{lane.requests} model requests · {tokens_text(lane.usage, lane.cost)}]")
        if shown:
            self._draw_soon(any(e.type != "text_delta" for e in shown))

    def _tokens(self, usage: Usage) -> str:
        return tokens_text(usage, self.cost(self._model, usage) if self.cost is not None else None)

    def finish(self, result: RunResult) -> None:
        self._finished = True
        s = result.stats
        tokens = ""
        if result.usage.input_tokens or result.usage.output_tokens:
            # a team's total: each member priced at its own model, not the commander's
            tokens = " · " + (tokens_text(result.usage, self.lanes.total_cost()) if self.lanes.lanes
                              else self._tokens(result.usage))
        status = _STOPPED.get(result.stop_reason, "done")
        floor = self._info.floor if self._info is not None else None
        self._line(f"[{status} · {s.model_requests} model requests · {s.tool_calls} tool calls"
                   f"{tokens} · {result.duration_s:.1f} s"
                   f"{f' · {floor} has the floor' if floor else ''}]")
        if result.error is not None:
            self._line(f"error ({result.error.kind}): {result.error.message}")
        self._draw()
        bundle = self.transcript(result) if self.transcript is not None else None
        if bundle is not None:  # the static transcript takes the live view's place
            self.slot.final(bundle[0])
            for block in self._blocks[1:]:
                block.slot.final({})
