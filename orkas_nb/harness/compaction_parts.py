"""What a compaction is made of, as pure functions (see :mod:`.compaction` for the policy).

Where the history is cut (never between a call and its result), which pinned tool results
are carried verbatim into the summary message, and how the head is rendered and chunked as a
transcript for the summariser.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from ..core.messages import (
    AssistantMessage,
    ImageBlock,
    Message,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultMessage,
    UserMessage,
)
from ..core.tokens import estimate_text

PINNED_HEADER = "[Kept verbatim through compaction: the result of "


# -- the cut (pure) ---------------------------------------------------------------------------


def minimal_tail_start(messages: Sequence[Message]) -> int:
    """Where the tail that must be kept starts: the last assistant message (with its results
    and anything after), or the last user message when there is no assistant message."""
    for i in range(len(messages) - 1, -1, -1):
        if isinstance(messages[i], AssistantMessage):
            return i
    for i in range(len(messages) - 1, -1, -1):
        if not isinstance(messages[i], ToolResultMessage):
            return i
    return 0


def choose_cut(messages: Sequence[Message], sizes: Sequence[int], keep_budget: int) -> int:
    """Index of the first kept message: the longest tail within ``keep_budget`` that starts
    at a message other than a tool result, and at least the minimal tail. 0 = nothing to cut."""
    floor = minimal_tail_start(messages)
    tail = sum(sizes[floor:])
    best = floor
    for i in range(floor - 1, 0, -1):
        tail += sizes[i]
        if tail > keep_budget:
            break
        if not isinstance(messages[i], ToolResultMessage):
            best = i
    return best


def pinned_results(head: Sequence[Message], tail: Sequence[Message], pinned: set[str]) -> list[str]:
    """The text blocks a compaction of ``head`` must carry: each successful result of a pinned
    tool (and each block an earlier compaction carried), the latest per tool and arguments,
    oldest first, leaving out those the ``tail`` still holds."""
    if not pinned:
        return []

    def header(m: ToolResultMessage, calls: dict[str, ToolCallBlock]) -> str:
        call = calls.get(m.tool_call_id)
        args = json.dumps(call.arguments if call else {}, sort_keys=True, ensure_ascii=False)
        return f"{PINNED_HEADER}{m.name} {args}]"

    def calls_of(messages: Sequence[Message]) -> dict[str, ToolCallBlock]:
        return {b.id: b for m in messages if isinstance(m, AssistantMessage) for b in m.tool_calls}

    kept: dict[str, str] = {}
    head_calls = calls_of(head)
    for m in head:
        if isinstance(m, UserMessage) and m.origin == "summary":
            for b in m.content:
                if isinstance(b, TextBlock) and b.text.startswith(PINNED_HEADER):
                    key = b.text.split("\n", 1)[0]
                    kept.pop(key, None)
                    kept[key] = b.text
        elif isinstance(m, ToolResultMessage) and m.name in pinned and m.status == "ok":
            key = header(m, head_calls)
            kept.pop(key, None)
            kept[key] = f"{key}\n{m.text}"
    tail_calls = calls_of(tail)
    in_tail = {header(m, tail_calls) for m in tail
               if isinstance(m, ToolResultMessage) and m.name in pinned and m.status == "ok"}
    return [text for key, text in kept.items() if key not in in_tail]


# -- the summariser's transcript ------------------------------------------------------------


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n[... {len(text) - limit} characters omitted ...]\n{text[-half:]}"


def render(message: Message, result_chars: int) -> str:
    """One message as transcript text for the summariser."""
    if isinstance(message, UserMessage):
        if message.origin == "summary":
            return "EARLIER SUMMARY:\n" + message.text
        label = {"steer": "USER (mid-run)", "tool_images": "TOOL IMAGES"}.get(message.origin, "USER")
        images = sum(isinstance(b, ImageBlock) for b in message.content)
        return f"{label}: {message.text}" + (f" [{images} image(s)]" if images else "")
    if isinstance(message, AssistantMessage):
        parts = []
        for b in message.content:
            if isinstance(b, TextBlock):
                parts.append(b.text)
            elif isinstance(b, ToolCallBlock):
                args = b.raw_arguments if b.raw_arguments is not None else b.arguments
                parts.append(f"-> call {b.name} {_clip(str(args), 600)}")
            elif isinstance(b, ThinkingBlock) and b.text:
                parts.append(f"(thinking) {_clip(b.text, 600)}")
        return "ASSISTANT: " + "\n".join(parts)
    images = sum(isinstance(b, ImageBlock) for b in message.content)
    status = "" if message.status == "ok" else f" [{message.status}]"
    return (f"RESULT of {message.name}{status}: {_clip(message.text, result_chars)}"
            + (f" [{images} image(s)]" if images else ""))


def chunk_transcript(lines: list[str], budget: int) -> list[str]:
    """Group transcript lines into chunks whose estimate stays within ``budget`` tokens."""
    chunks: list[str] = []
    current: list[str] = []
    used = 0
    for line in lines:
        cost = estimate_text(line) + 2
        if cost > budget:  # one huge line: keep its two ends
            ratio = budget / cost
            line = _clip(line, max(200, int(len(line) * ratio * 0.9)))
            cost = estimate_text(line) + 2
        if current and used + cost > budget:
            chunks.append("\n\n".join(current))
            current, used = [], 0
        current.append(line)
        used += cost
    if current:
        chunks.append("\n\n".join(current))
    return chunks
