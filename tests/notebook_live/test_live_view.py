"""The live view's drawing, event by event, without a kernel (widgets keep their state locally).

What only a kernel and a front end can show (comm traffic, clicks mid-run, timing) is in
``test_live.py``; here: which widget each event produces, and what it says.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from orkas_nb.core.errors import ErrorInfo
from orkas_nb.core.events import (
    Compaction,
    Done,
    Retry,
    RunResult,
    Steer,
    TextDelta,
    ThinkingDelta,
    ToolEnd,
    ToolStart,
    Warning,
)
from orkas_nb.core.messages import Usage
from orkas_nb.notebook.views.renderer import RunInfo
from orkas_nb.notebook.views.widgets.live import FREEZE_CHARS, LiveRenderer


class Controls:
    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    def stop(self, reason: str = "") -> None:
        self.calls.append(("stop", reason))

    def steer(self, text: str) -> None:
        self.calls.append(("steer", text))

    def answer_approval(self, request_id: str, answer: str) -> None:
        self.calls.append(("answer", (request_id, answer)))


def view(**options: Any) -> LiveRenderer:
    v = LiveRenderer(Controls(), show=False, **options)
    v.start(RunInfo(model="openai/gpt-4o-mini"))
    return v


def kinds(v: LiveRenderer) -> list[str]:
    out = []
    for child in v.body.children:
        css = [c for c in child._dom_classes if c.startswith("orkas-")]
        out.append(css[0].removeprefix("orkas-") if css else "?")
    return out


def markdown(v: LiveRenderer) -> str:
    return "".join(o["data"]["text/markdown"] for c in v.body.children
                   if "orkas-text" in c._dom_classes for o in c.outputs)


def test_each_event_gets_its_widget_in_order() -> None:
    v = view()
    v.render(ThinkingDelta(text="hmm"))
    v.render(TextDelta(text="Let me look."))
    v.render(ToolStart(call_id="c1", name="read_file", arguments={"path": "a<b>.txt"}))
    v.render(Retry(attempt=2, delay_s=1.5, reason="rate limited", rotated_to="key-2"))
    v.render(ToolEnd(call_id="c1", name="read_file", status="ok", result="x" * 5000, duration_s=0.25))
    v.render(Compaction(tokens_before=120_000, tokens_after=30_000, messages_replaced=40))
    v.render(Steer(text="be brief"))
    v.render(Warning(code="loop_guard", message="the same call was repeated"))
    v.render(TextDelta(text="Done."))
    result = RunResult(text="Done.", usage=Usage(input_tokens=1234, output_tokens=56))
    v.render(Done(result=result))
    v.finish(result)
    assert kinds(v) == ["thinking", "text", "tool", "retry", "compaction", "steer-notice",
                        "warning", "text"]
    card = v.body.children[2]
    assert card.titles == ("✓ read_file · ok · 0.25 s",) and card.selected_index is None
    body = card.children[0].value
    assert "a&lt;b&gt;.txt" in body and "(5,000 chars)" in body and len(body) < 2000
    notices = [c.value for c in v.body.children[3:7]]
    assert "retry 2 in 1.5 s: rate limited, now on key-2" in notices[0]
    assert "120,000 → 30,000 tokens (40 messages summarised)" in notices[1]
    assert "steer folded into the run: be brief" in notices[2]
    assert "⚠ the same call was repeated" in notices[3]
    assert markdown(v) == "Let me look.Done." == v.text
    assert "tokens in 1,234 / out 56" in v.status.value and "done" in v.status.value


def test_a_call_that_ends_without_starting_still_gets_a_card() -> None:
    v = view()
    v.render(ToolEnd(call_id="c9", name="nope", status="rejected", result="unknown tool"))
    card = v.body.children[0]
    assert card.titles[0].startswith("⊘ nope · rejected") and "orkas-tool-failed" in card._dom_classes


def test_without_a_loop_text_is_still_complete_at_finish() -> None:
    v = view(interval_s=3600)  # no loop, no timer: only the first delta and finish flush
    chunks = [f"word{i} " for i in range(500)]
    for c in chunks:
        v.render(TextDelta(text=c))
    assert v.flushes == 1 and markdown(v) == chunks[0]
    v.finish(RunResult(text="".join(chunks)))
    assert markdown(v) == "".join(chunks) and v.flushes == 2


async def test_pending_text_is_flushed_by_the_timer_after_a_pause() -> None:
    # 0.5 s: the second delta comes inside the interval even if a loaded machine pauses the test
    v = view(interval_s=0.5)
    v.render(TextDelta(text="first "))
    v.render(TextDelta(text="second"))  # inside the interval: waits for the timer
    assert markdown(v) == "first "
    deadline = time.monotonic() + 30
    while markdown(v) != "first second" and time.monotonic() < deadline:
        await asyncio.sleep(0.05)  # nothing else renders: only the timer can flush it
    assert markdown(v) == "first second" and v.flushes == 2
    v.finish(RunResult(text="first second"))


def test_long_answers_are_frozen_in_blocks_and_stay_exact() -> None:
    v = view(interval_s=0)
    text = "".join(f"Paragraph {i} " + "words " * 40 + "\n\n" for i in range(60))
    for i in range(0, len(text), 7):
        v.render(TextDelta(text=text[i:i + 7]))
    v.finish(RunResult(text=text))
    blocks = [c for c in v.body.children if "orkas-text" in c._dom_classes]
    assert len(blocks) > 2 and markdown(v) == text
    assert all(len(b.outputs[0]["data"]["text/markdown"]) <= FREEZE_CHARS + 300 for b in blocks)


def test_status_shows_cost_when_known_and_the_error_of_a_failed_run() -> None:
    v = view(cost=lambda model, usage: usage.input_tokens * 1e-6 if model.startswith("openai/") else None)
    result = RunResult(stop_reason="error", usage=Usage(input_tokens=2000, output_tokens=10),
                       error=ErrorInfo(kind="RateLimitError", message="slow <down>", action="surface"))
    v.finish(result)
    assert "$0.0020" in v.status.value and "error: slow &lt;down&gt;" in v.status.value


def test_buttons_call_the_controls_and_do_nothing_after_the_end() -> None:
    v = view()
    controls = v.controls
    v.steer_box.value = "  "
    v._on_steer()  # blank: nothing sent
    v.steer_box.value = "use the 2024 data"
    v._on_steer()
    assert v.steer_box.value == "" and controls.calls == [("steer", "use the 2024 data")]
    assert "steer queued: use the 2024 data" in v.body.children[-1].value
    v._on_stop()
    assert controls.calls[-1] == ("stop", "stopped from the Stop button") and v.stop_button.disabled
    v.finish(RunResult(stop_reason="cancelled"))
    v._on_stop()
    v._on_steer()
    assert len(controls.calls) == 2 and "stopped" in v.status.value


def test_finish_gives_way_to_the_transcript_and_closes_every_widget() -> None:
    shown: list[dict] = []

    class Slot:
        def update(self, bundle: dict) -> None:
            shown.append(bundle)

        final = update

    v = LiveRenderer(Controls(), slot=Slot(), transcript=lambda r: ({"text/markdown": r.text}, {}))
    v.start(RunInfo())
    v.render(TextDelta(text="hello"))
    root = v.root
    v.finish(RunResult(text="hello"))
    assert "application/vnd.jupyter.widget-view+json" in shown[0]
    assert shown[-1] == {"text/markdown": "hello"}
    assert root.comm is None and v._widgets == []


def test_transcripts_off_keep_the_disabled_view() -> None:
    v = view(transcript=lambda r: None)
    v.finish(RunResult(text="kept"))
    assert v.root.comm is not None and v.stop_button.disabled


def test_a_view_without_controls_hides_the_bar() -> None:
    v = LiveRenderer(None, show=False)
    assert v.bar.layout.display == "none"
    assert view().bar.layout.display is None


def test_usage_events_show_tokens_and_cost_in_the_status_line_mid_run() -> None:
    from orkas_nb.core.events import UsageUpdate
    from orkas_nb.providers.catalog import cost_of

    v = view(cost=lambda model, usage: cost_of(usage, model))
    v.render(TextDelta(text="thinking about it"))
    assert "tokens in" not in v.status.value and "out ~" in v.status.value  # an estimate first
    v.render(UsageUpdate(usage=Usage(input_tokens=10_000, output_tokens=2_000), model_requests=1,
                         model="gpt-4o-mini"))
    status = v.status.value
    # gpt-4o-mini: 10k in at $0.15/M + 2k out at $0.60/M
    assert "tokens in 10,000 / out 2,000" in status and "$0.0027" in status and "running" in status
    assert kinds(v) == ["text"]  # nothing drawn in the body
    v.render(UsageUpdate(usage=Usage(input_tokens=30_000, output_tokens=2_500), model_requests=2,
                         model="gpt-4o-mini"))
    assert "tokens in 30,000 / out 2,500" in v.status.value and "$0.0060" in v.status.value


def test_an_unknown_price_shows_tokens_without_a_cost() -> None:
    from orkas_nb.core.events import UsageUpdate
    from orkas_nb.providers.catalog import cost_of

    v = view(cost=lambda model, usage: cost_of(usage, model))
    v.render(UsageUpdate(usage=Usage(input_tokens=50, output_tokens=5), model_requests=1,
                         model="llama3.2:3b"))
    assert "tokens in 50 / out 5" in v.status.value and "$" not in v.status.value
