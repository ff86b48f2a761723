"""The run view's kernel side without a front end: what it sends, and what it accepts.

Widgets are created without a kernel (their comm is inert); ``send`` is captured, so each
test sees exactly the messages a browser would receive.
"""

from __future__ import annotations

from typing import Any

import pytest

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
from orkas_nb.notebook.views.lab.protocol import RESULT_EXCERPT_CHARS, wire_item
from orkas_nb.notebook.views.lab.run_view import LabRenderer, RunWidget
from orkas_nb.notebook.views.renderer import RunInfo


class Controls:
    def __init__(self, fail: bool = False) -> None:
        self.calls: list[tuple[str, tuple[str, ...]]] = []
        self.fail = fail

    def stop(self, reason: str = "stopped by the user") -> None:
        self.calls.append(("stop", ()))

    def steer(self, text: str) -> None:
        self.calls.append(("steer", (text,)))

    def answer_approval(self, request_id: str, answer: str) -> None:
        if self.fail:
            raise LookupError(f"no approval {request_id!r} is waiting")
        self.calls.append(("answer_approval", (request_id, answer)))


class Slot:
    def __init__(self) -> None:
        self.updates: list[dict[str, Any]] = []
        self.finals: list[dict[str, Any]] = []

    def update(self, bundle: dict[str, Any]) -> None:
        self.updates.append(bundle)

    def final(self, bundle: dict[str, Any]) -> None:
        self.finals.append(bundle)


def _capture(widget: RunWidget) -> list[dict[str, Any]]:
    sent: list[dict[str, Any]] = []
    widget.send = lambda content, buffers=None: sent.append(content)  # type: ignore[method-assign]
    return sent


def _request(widget: RunWidget, content: Any) -> None:
    widget._on_view_message(widget, content, [])


def _items(sent: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [i for m in sent if m["type"] == "items" for i in m["items"]]


async def test_events_become_items_with_text_coalesced() -> None:
    controls, slot = Controls(), Slot()
    r = LabRenderer(controls, slot=slot, transcript=lambda res: ({"text/plain": res.text}, {}))
    sent = _capture(r.widget)
    r.start(RunInfo(agent="a", model="m/x", session="s", prompt="hi"))
    assert "application/vnd.jupyter.widget-view+json" in slot.updates[0]
    assert r.widget.status == "running" and r.widget.model_name == "m/x"
    for piece in ["Hel", "lo ", "world"]:
        r.render(TextDelta(text=piece))
    r.render(ThinkingDelta(text="hmm"))
    r.render(ToolStart(call_id="c1", name="read_file", arguments={"path": "a.txt"}))
    r.render(ToolEnd(call_id="c1", name="read_file", status="ok", result="x" * (RESULT_EXCERPT_CHARS + 10),
                     duration_s=0.25))
    r.render(Compaction(tokens_before=9000, tokens_after=1000, messages_replaced=12))
    r.render(Retry(attempt=1, delay_s=2.0, reason="overloaded", rotated_to="other/model"))
    r.render(Steer(text="shorter please"))
    r.render(Warning(code="loop_guard", message="same call three times"))
    r.render(TextDelta(text="Done."))
    result = RunResult(text="Hello world Done.", usage=Usage(input_tokens=120, output_tokens=30),
                       duration_s=1.5)
    r.render(Done(result=result))
    r.finish(result)
    items = _items(sent)
    kinds = [i["k"] for i in items]
    assert kinds == ["text", "thinking", "tool_start", "tool_end", "notice", "notice", "notice",
                     "notice", "text", "done"]
    assert items[0]["text"] == "Hello world"
    assert items[3]["truncated"] and len(items[3]["result"]) == RESULT_EXCERPT_CHARS
    assert "9,000 → 1,000" in items[4]["text"] and "other/model" in items[5]["text"]
    # The index of every batch continues the last one, so a view can detect a gap.
    starts = [m["start"] for m in sent if m["type"] == "items"]
    sizes = [len(m["items"]) for m in sent if m["type"] == "items"]
    assert starts == [sum(sizes[:i]) for i in range(len(sizes))]
    assert (r.widget.tokens_in, r.widget.tokens_out, r.widget.status) == (120, 30, "done")
    assert slot.finals == [{"text/plain": "Hello world Done."}]  # the transcript took its place


def test_late_view_gets_a_replay_and_bad_requests_get_an_error() -> None:
    w = RunWidget(Controls())
    sent = _capture(w)
    w.push(wire_item(TextDelta(text="a")))
    w.flush()
    w.push(wire_item(TextDelta(text="b")))
    _request(w, {"type": "replay", "start": 0})  # flushes first, then replays everything
    assert sent[-1] == {"type": "items", "start": 0, "items": [{"k": "text", "text": "a"},
                                                                {"k": "text", "text": "b"}]}
    for bad in [{"type": "replay", "start": -1}, {"type": "launch"}, "stop", {"type": "steer", "text": ""},
                {"type": "plan_action", "action": "skip", "step": 1}]:
        _request(w, bad)
        assert sent[-1]["type"] == "error", bad
    assert w.controls.calls == []  # type: ignore[union-attr]


def test_stop_steer_and_approvals_reach_the_controls() -> None:
    controls = Controls()
    r = LabRenderer(controls, show=False)
    sent = _capture(r.widget)
    r.start(RunInfo())
    _request(r.widget, {"type": "stop"})
    _request(r.widget, {"type": "steer", "text": "focus on March"})
    _request(r.widget, {"type": "approval", "id": "approval-1", "answer": "once"})
    assert sent[-1] == {"type": "error", "message": "no open approval 'approval-1' (already answered or unknown)"}
    r.ask_approval("approval-1", "Run rm?", detail="rm -rf build", category="destructive")
    assert r.widget.status == "waiting"
    _request(r.widget, {"type": "approval", "id": "approval-1", "answer": "once"})
    _request(r.widget, {"type": "approval", "id": "approval-1", "answer": "deny"})  # a double click
    assert controls.calls == [("stop", ()), ("steer", ("focus on March",)),
                              ("answer_approval", ("approval-1", "once"))]
    done = [i for i in _items(sent) if i["k"] == "approval_done"]
    assert done == [{"k": "approval_done", "id": "approval-1", "answer": "once", "by": "user"}]
    assert r.widget.status == "running"


def test_a_refused_answer_keeps_the_prompt_open_and_finish_withdraws_it() -> None:
    r = LabRenderer(Controls(fail=True), show=False)
    sent = _capture(r.widget)
    r.start(RunInfo())
    r.ask_approval("approval-7", "Run it?")
    _request(r.widget, {"type": "approval", "id": "approval-7", "answer": "run"})
    assert sent[-1]["type"] == "error" and "answer approval failed" in sent[-1]["message"]
    assert "approval-7" in r.widget.open_approvals
    r.finish(RunResult(stop_reason="error", error=ErrorInfo(kind="RequestError", message="bad request")))
    items = _items(sent)
    assert {"k": "approval_done", "id": "approval-7", "answer": "deny", "by": "policy"} in items
    assert items[-1] == {"k": "done", "stop_reason": "error", "error": "bad request"}
    assert r.widget.status == "error"


def test_without_controls_the_view_is_told_why() -> None:
    w = RunWidget(None)
    sent = _capture(w)
    _request(w, {"type": "stop"})
    assert sent == [{"type": "error", "message": "this run cannot stop (no controls attached)"}]


@pytest.mark.parametrize("interval", [0.05])
async def test_updates_are_batched_on_the_loop(interval: float) -> None:
    import asyncio

    w = RunWidget(None, flush_interval=interval)
    sent = _capture(w)
    for _ in range(500):
        w.push(wire_item(TextDelta(text="tok ")))
    assert sent == []  # nothing yet: the timer flushes
    await asyncio.sleep(interval * 3)
    assert len(sent) == 1 and sent[0]["items"] == [{"k": "text", "text": "tok " * 500}]


def test_usage_events_update_tokens_and_cost_mid_run_without_body_items() -> None:
    from orkas_nb.core.events import UsageUpdate

    priced: list[tuple[str, Usage]] = []

    def cost(model: str, usage: Usage) -> float | None:
        priced.append((model, usage))
        return None if model == "local" else usage.input_tokens / 1000

    r = LabRenderer(Controls(), slot=Slot(), cost=cost)
    sent = _capture(r.widget)
    r.start(RunInfo(agent="a", model="openai/gpt-4o", session="s", prompt="hi"))
    r.render(TextDelta(text="Hi"))
    r.render(UsageUpdate(usage=Usage(input_tokens=1200, output_tokens=40), model_requests=1,
                         model="gpt-4o-2024-08-06"))
    # Live, before the run ends: the status bar's traits, priced on the model that answered.
    assert (r.widget.tokens_in, r.widget.tokens_out, r.widget.cost) == (1200, 40, 1.2)
    assert r.widget.status == "running" and priced[-1][0] == "gpt-4o-2024-08-06"
    r.render(UsageUpdate(usage=Usage(input_tokens=2500, output_tokens=90), model_requests=2))
    assert (r.widget.tokens_in, r.widget.cost) == (2500, 2.5)  # cumulative; same model kept
    assert all(i["k"] == "text" for i in _items(sent) + [
        i for i in r.widget._pending])  # usage is not drawn in the body
    result = RunResult(usage=Usage(input_tokens=2500, output_tokens=90))
    r.finish(result)
    assert r.widget.cost == 2.5 and priced[-1][0] == "gpt-4o-2024-08-06"


def test_an_unknown_price_leaves_the_cost_empty() -> None:
    from orkas_nb.core.events import UsageUpdate

    r = LabRenderer(Controls(), slot=Slot(), cost=lambda model, usage: None)
    r.start(RunInfo(agent="a", model="llamacpp/qwen", session="s", prompt="hi"))
    r.render(UsageUpdate(usage=Usage(input_tokens=10, output_tokens=5), model_requests=1, model="qwen"))
    assert (r.widget.tokens_in, r.widget.tokens_out, r.widget.cost) == (10, 5, None)


def test_the_items_on_the_wire_are_exactly_what_the_labextension_reads() -> None:
    # labextension/src/protocol.ts reads these keys and nothing else; the kernel's events may
    # carry more (agent, seq, ts, output_files) but the wire must not change under the view.
    r = LabRenderer(Controls(), show=False)
    sent = _capture(r.widget)
    r.start(RunInfo())
    r.render(TextDelta(text="a", agent="x", seq=4))
    r.render(ThinkingDelta(text="t"))
    r.render(ToolStart(call_id="c1", name="grep", arguments={"pattern": "x", "n": 2}))
    r.render(ToolEnd(call_id="c1", name="grep", status="denied", result="no", duration_s=0.5,
                     output_files=["a.txt"]))
    r.render(Compaction(tokens_before=9000, tokens_after=1000, messages_replaced=12))
    r.render(Retry(attempt=2, delay_s=1.25, reason="503"))
    r.render(Steer(text="go"))
    r.render(Warning(code="reference", message="no such cell"))
    r.finish(RunResult(stop_reason="cancelled"))
    assert _items(sent) == [
        {"k": "text", "text": "a"},
        {"k": "thinking", "text": "t"},
        {"k": "tool_start", "id": "c1", "name": "grep", "args": {"pattern": "x", "n": 2}},
        {"k": "tool_end", "id": "c1", "name": "grep", "status": "denied", "result": "no",
         "truncated": False, "duration_s": 0.5},
        {"k": "notice", "level": "info", "kind": "compaction",
         "text": "Context compacted: 9,000 → 1,000 tokens (12 messages summarised)"},
        {"k": "notice", "level": "warn", "kind": "retry", "text": "Retry 2 in 1.2s: 503"},
        {"k": "notice", "level": "info", "kind": "steer", "text": "Steered: go"},
        {"k": "notice", "level": "warn", "kind": "reference", "text": "no such cell"},
        {"k": "done", "stop_reason": "cancelled", "error": ""},
    ]
