"""The text renderer: readable, throttled, no ANSI, and the transcript takes its place."""

from __future__ import annotations

import asyncio
import io
from typing import Any

from orkas_nb.core.events import RunResult, RunStats, TextDelta, ToolEnd, ToolStart, Warning
from orkas_nb.notebook.output import StreamSlot
from orkas_nb.notebook.render import RunInfo
from orkas_nb.notebook.text_renderer import TextRenderer


class Slot:
    def __init__(self) -> None:
        self.updates: list[dict[str, Any]] = []
        self.finals: list[dict[str, Any]] = []
        self.shown = False

    def update(self, bundle: dict[str, Any]) -> None:
        self.updates.append(bundle)

    def final(self, bundle: dict[str, Any]) -> None:
        self.finals.append(bundle)


def _play(r: TextRenderer) -> None:
    r.start(RunInfo(model="m", session="s"))
    for chunk in ["Hel", "lo ", "there."]:
        r.render(TextDelta(text=chunk))
    r.render(ToolStart(call_id="1", name="read_file", arguments={"path": "a.md"}))
    r.render(ToolEnd(call_id="1", name="read_file", status="ok", result="line one\nline two", duration_s=0.012))
    r.render(Warning(code="loop_guard", message="repeated"))
    r.render(TextDelta(text="Bye."))


async def test_text_is_throttled_and_nothing_is_lost() -> None:
    slot = Slot()
    r = TextRenderer(slot, interval=10.0)
    _play(r)
    # start and each tool/warning line draw at once; text deltas in between wait for the timer
    assert len(slot.updates) == 4
    r.finish(RunResult(stats=RunStats(model_requests=2, tool_calls=1), duration_s=1.25))
    text = slot.updates[-1]["text/plain"]
    assert text == ("orkas · m · session s\nHello there.\n  → read_file(path='a.md')\n"
                    "  ← read_file [ok, 12 ms] line one\n  [loop_guard] repeated\nBye.\n"
                    "[done · 2 model requests · 1 tool calls · 1.2 s]\n")
    assert slot.finals == []  # no transcript source: the live text stays


async def test_a_pause_in_the_stream_is_flushed_by_the_timer() -> None:
    slot = Slot()
    r = TextRenderer(slot, interval=0.05)
    r.start(RunInfo(model="m"))
    r.render(TextDelta(text="a"))
    r.render(TextDelta(text="b"))
    await asyncio.sleep(0.15)
    assert slot.updates[-1]["text/plain"].endswith("ab")


async def test_the_transcript_replaces_the_live_view() -> None:
    slot = Slot()
    r = TextRenderer(slot, transcript=lambda result: ({"text/plain": "T", "text/markdown": "**T**"}, {}))
    _play(r)
    r.finish(RunResult(stop_reason="cancelled"))
    assert "[stopped ·" in slot.updates[-1]["text/plain"]
    assert slot.finals == [{"text/plain": "T", "text/markdown": "**T**"}]


def test_a_terminal_gets_only_the_new_text() -> None:
    out = io.StringIO()
    slot = StreamSlot(out)
    r = TextRenderer(slot, interval=0.0, transcript=lambda result: ({"text/plain": "T"}, {}))
    _play(r)
    r.finish(RunResult())
    written = out.getvalue()
    assert written.count("Hello there.") == 1 and written.count("orkas · m") == 1
    assert written.endswith("[done · 0 model requests · 0 tool calls · 0.0 s]\n")
    assert "\x1b" not in written
