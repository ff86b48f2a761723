"""Messages and events round-trip through JSON exactly; unions dispatch on their tag."""

from __future__ import annotations

from pydantic import TypeAdapter

from orkas_nb.core.errors import (
    AccountError,
    ContextOverflowError,
    RateLimitError,
    RequestError,
    StreamTruncatedError,
    TransientError,
)
from orkas_nb.core.events import Done, RunEvent, RunResult, TextDelta, ToolEnd
from orkas_nb.core.messages import (
    AssistantMessage,
    ImageBlock,
    Message,
    SummaryBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultMessage,
    UserMessage,
)


def test_every_message_kind_round_trips() -> None:
    adapter = TypeAdapter(Message)
    msgs = [
        UserMessage(content=[TextBlock(text="hi"), ImageBlock(data="iVBOR", width=2, height=2)]),
        UserMessage(content=[SummaryBlock(text="earlier...", replaced_messages=7)], origin="summary"),
        AssistantMessage(
            content=[ThinkingBlock(text="hm", signature="sig=="), TextBlock(text="a"),
                     ToolCallBlock(id="c", name="t", arguments={"x": [1, {"y": None}]})],
            provider="anthropic", model="claude-x",
        ),
        ToolResultMessage(tool_call_id="c", name="t", content=[TextBlock(text="r")], status="denied"),
    ]
    for m in msgs:
        again = adapter.validate_json(m.model_dump_json())
        assert again == m and type(again) is type(m)


def test_events_dispatch_on_type() -> None:
    adapter = TypeAdapter(RunEvent)
    for e in [TextDelta(text="x", seq=1),
              ToolEnd(call_id="c", name="t", status="ok", result="r"),
              Done(result=RunResult(text="t"))]:
        assert adapter.validate_json(e.model_dump_json()) == e


def test_the_error_tree_answers_retry_rotate_compact_or_surface() -> None:
    assert TransientError("x").action == "retry"
    assert StreamTruncatedError("x").action == "retry"
    assert RateLimitError("x", retry_after=3).action == "rotate"
    assert AccountError("x", status=401).action == "rotate"
    assert RequestError("x").action == "surface"
    assert ContextOverflowError("x").action == "compact"
    info = RateLimitError("slow down", status=429).info()
    assert (info.kind, info.action) == ("RateLimitError", "rotate")


def test_the_tool_status_vocabulary_is_spelled_once() -> None:
    # core.messages.ToolStatus is the one spelling; a second copy drifts (issue 14). Read the
    # sources: typing caches equal Literals, so an identity check could not tell copies apart.
    import re
    from pathlib import Path
    from typing import get_args

    import orkas_nb
    from orkas_nb.core.messages import ToolStatus

    first_two = r"""["']ok["'],\s*["']error["'],\s*["']rejected["']"""
    root = Path(orkas_nb.__file__).parent
    spelled = sorted(str(p.relative_to(root)) for p in root.rglob("*.py")
                     if re.search(r"Literal\[\s*" + first_two, p.read_text()))
    assert spelled == ["core/messages.py"]
    assert get_args(ToolStatus) == ("ok", "error", "rejected", "interrupted", "denied")
