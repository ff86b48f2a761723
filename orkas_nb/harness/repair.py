"""History repair and the pairing check (SPEC §3.1, §9).

``repair`` is pure and idempotent: ``repair(repair(h)) == repair(h)``, so a repaired history
keeps its prompt-cache prefix from one load to the next. After repair, every assistant tool
call is followed, before the next assistant message, by exactly one result with its id, in the
declared order.

The unit of repair is a *segment*: an assistant message and the messages after it up to the
next assistant message. Within a segment, the results of that assistant's calls are put right
after it in declared order (a missing one is synthesised as "interrupted"); results for other
ids and duplicates are dropped; other messages keep their relative order after the results.

A call awaiting an answer from outside the run (its result a placeholder, ``awaiting`` set:
an ``ask_user`` call) stays open across loads while its segment is the last one: its answer
is still to come (``awaiting.py``). Once the history went on past it (an assistant message
follows), the answer can no longer be its result: it is closed as "interrupted" like any other.
A real result for the same id wins over the placeholder.
"""

from __future__ import annotations

from typing import Sequence

from ..core.messages import (
    AssistantMessage,
    Message,
    TextBlock,
    ToolCallBlock,
    ToolResultMessage,
)

INTERRUPTED_TEXT = "[interrupted: this tool call did not finish; its effects, if any, are unknown]"


NEVER_ANSWERED = "the answer this call waited for never came; the conversation went on"


def interrupted_result(call: ToolCallBlock, reason: str | None = None) -> ToolResultMessage:
    text = INTERRUPTED_TEXT if not reason else f"[interrupted: {reason}]"
    # A deterministic id keeps repair idempotent and byte-stable across loads.
    return ToolResultMessage(
        id=f"synth_{call.id}",
        created_at=0.0,
        tool_call_id=call.id,
        name=call.name,
        content=[TextBlock(text=text)],
        status="interrupted",
    )


def _unique_call_ids(message: AssistantMessage) -> AssistantMessage:
    """Rename repeated call ids within one message (``id~2``) so each call can be paired."""
    seen: set[str] = set()
    changed = False
    blocks = []
    for block in message.content:
        if isinstance(block, ToolCallBlock):
            new_id = block.id or "call"
            n = 1
            while new_id in seen:
                n += 1
                new_id = f"{block.id or 'call'}~{n}"
            if new_id != block.id:
                block = block.model_copy(update={"id": new_id})
                changed = True
            seen.add(new_id)
        blocks.append(block)
    return message.model_copy(update={"content": blocks}) if changed else message


def repair(history: Sequence[Message]) -> list[Message]:
    out: list[Message] = []
    i = 0
    n = len(history)
    # Results before the first assistant message answer nothing: drop them.
    while i < n and not isinstance(history[i], AssistantMessage):
        if not isinstance(history[i], ToolResultMessage):
            out.append(history[i])
        i += 1
    while i < n:
        assistant = history[i]
        assert isinstance(assistant, AssistantMessage)
        assistant = _unique_call_ids(assistant)
        j = i + 1
        while j < n and not isinstance(history[j], AssistantMessage):
            j += 1
        segment = history[i + 1 : j]
        calls = assistant.tool_calls
        wanted = {c.id for c in calls}
        found: dict[str, ToolResultMessage] = {}
        rest: list[Message] = []
        for m in segment:
            if isinstance(m, ToolResultMessage):
                if m.tool_call_id in wanted:
                    had = found.get(m.tool_call_id)
                    if had is None or (had.awaiting is not None and m.awaiting is None):
                        found[m.tool_call_id] = m
            else:
                rest.append(m)
        out.append(assistant)
        last = j == n
        for call in calls:
            result = found.get(call.id)
            if result is None:
                result = interrupted_result(call)
            elif result.awaiting is not None and not last:
                result = interrupted_result(call, NEVER_ANSWERED)
            out.append(result)
        out.extend(rest)
        i = j
    return out


def pairing_problems(history: Sequence[Message]) -> list[str]:
    """Every way ``history`` breaks the pairing invariant; empty when it holds."""
    problems: list[str] = []
    pending: list[ToolCallBlock] = []
    awaiting: list[str] = []  # placeholders seen since the last assistant message
    for index, m in enumerate(history):
        if isinstance(m, ToolResultMessage):
            if m.awaiting is not None:
                awaiting.append(m.tool_call_id)
            if not pending:
                problems.append(f"#{index}: result {m.tool_call_id!r} answers no open call")
            elif pending[0].id != m.tool_call_id:
                problems.append(
                    f"#{index}: result {m.tool_call_id!r} where {pending[0].id!r} was due"
                )
            else:
                pending.pop(0)
            continue
        if pending:
            problems.append(f"#{index}: {m.role} message while calls are open: "
                            + ", ".join(c.id for c in pending))
            pending = []
        if isinstance(m, AssistantMessage):
            if awaiting:
                problems.append(f"#{index}: assistant message after calls still awaiting an "
                                f"answer: {', '.join(awaiting)}")
                awaiting = []
            ids = [c.id for c in m.tool_calls]
            if len(ids) != len(set(ids)):
                problems.append(f"#{index}: repeated call ids {ids}")
            pending = list(m.tool_calls)
    if pending:
        problems.append("end: calls without results: " + ", ".join(c.id for c in pending))
    return problems


def open_calls(history: Sequence[Message]) -> list[ToolCallBlock]:
    """Calls of the last assistant message that still have no result."""
    for k in range(len(history) - 1, -1, -1):
        m = history[k]
        if isinstance(m, AssistantMessage):
            answered = {
                r.tool_call_id for r in history[k + 1 :] if isinstance(r, ToolResultMessage)
            }
            return [c for c in m.tool_calls if c.id not in answered]
    return []
