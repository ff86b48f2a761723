"""The text renderer: a run as readable plain text, for front ends without widgets.

Used by plain IPython, nbconvert and any front end without ipywidgets. The view is append-only
plain text (no ANSI escapes, so saved files stay clean) drawn into an output slot: model text
as it streams, one line when a tool starts and one when it ends, notices, and a status line.
While a run goes, a last line shows the tokens so far (and the cost, when ``cost`` knows the
model's price); it is redrawn, not appended, so the text stays clean.
When the run ends, the static transcript (if any) replaces the live text in the same slot.
Redraws are throttled (``interval``); a trailing redraw is scheduled on the running loop so the
last words of a pause are never left unshown.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from typing import Any

from ..core.events import RunEvent, RunResult
from ..core.messages import Usage
from .output import Slot
from .render import RunInfo

_STOPPED = {"cancelled": "stopped", "loop_guard": "stopped by the loop guard",
            "max_steps": "stopped at the step limit", "error": "failed"}


def _args(arguments: dict[str, Any]) -> str:
    parts = []
    for k, v in arguments.items():
        shown = json.dumps(v, ensure_ascii=False) if not isinstance(v, str) else repr(v)
        parts.append(f"{k}={shown if len(shown) <= 60 else shown[:57] + '...'}")
    return ", ".join(parts)


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

    # -- building the text ------------------------------------------------------------------

    def _write(self, text: str) -> None:
        if text:
            self._parts.append(text)
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
        tail = "" if self._finished or self._usage is None else (
            ("" if self._at_line_start else "\n") + f"[running · {self._tokens(self._usage)}]\n")
        self.slot.update({"text/plain": self.text + tail})

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
        where = f" · session {info.session}" if info.session else ""
        mode = " · in the background" if self.background else ""
        self._line(f"orkas · {info.model or 'model?'}{where}{mode}")
        self._draw_soon(urgent=True)

    def render(self, event: RunEvent) -> None:
        kind = event.type
        urgent = False
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
        elif kind == "done":
            return  # finish() follows
        self._draw_soon(urgent)

    def _tokens(self, usage: Usage) -> str:
        text = f"{usage.input_tokens:,} in / {usage.output_tokens:,} out tokens"
        price = self.cost(self._model, usage) if self.cost is not None else None
        return text if price is None else f"{text} · ${price:.4f}"

    def finish(self, result: RunResult) -> None:
        self._finished = True
        s = result.stats
        tokens = ""
        if result.usage.input_tokens or result.usage.output_tokens:
            tokens = f" · {self._tokens(result.usage)}"
        status = _STOPPED.get(result.stop_reason, "done")
        self._line(f"[{status} · {s.model_requests} model requests · {s.tool_calls} tool calls"
                   f"{tokens} · {result.duration_s:.1f} s]")
        if result.error is not None:
            self._line(f"error ({result.error.kind}): {result.error.message}")
        self._draw()
        bundle = self.transcript(result) if self.transcript is not None else None
        if bundle is not None:  # the static transcript takes the live view's place
            self.slot.final(bundle[0])
