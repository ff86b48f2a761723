"""Calls awaiting an answer from outside the run (``ask_user``): kept open, answered later.

A tool that needs something only the user can give returns ``ToolOutput(awaiting="user")``:
its result is saved as a *placeholder* (``ToolResultMessage.awaiting``) and the turn ends. The
call stays open, across a kill -9 too (``repair`` keeps a placeholder of the last segment).
While it is open:

- no model request is built from the session (:func:`check_sendable`, called by the request
  builder): a provider must never see a call without its result (SPEC §3.1);
- a run on the session is refused (:class:`AwaitingAnswerError`) before it saves anything, so
  no message is ever appended after the question; the caller answers first (a plan's form).

:func:`answer_call` puts the answer in the placeholder's place, on disk before it returns (one
atomic rewrite: the old file or the new one), and a run that continues the session
(``Runner.run(None)``) starts from that result: the model sees its own call answered.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.errors import StateError
from ..core.messages import AssistantMessage, Message, TextBlock, ToolResultMessage, ToolStatus
from .session import Session

__all__ = ["AwaitingAnswerError", "answer_call", "asked_last", "awaiting_calls",
           "check_sendable", "close_call", "continue_problem"]


class AwaitingAnswerError(StateError):
    """The session has a call still waiting for its answer: nothing may run on it yet."""


def awaiting_calls(history: Sequence[Message]) -> list[ToolResultMessage]:
    """The placeholders of calls still waiting for their answer (those after the last
    assistant message: an earlier one is closed by repair)."""
    found: list[ToolResultMessage] = []
    for k in range(len(history) - 1, -1, -1):
        m = history[k]
        if isinstance(m, AssistantMessage):
            break
        if isinstance(m, ToolResultMessage) and m.awaiting is not None:
            found.append(m)
    found.reverse()
    return found


def check_sendable(history: Sequence[Message], session: str) -> None:
    """:class:`AwaitingAnswerError` when a call of ``history`` still waits for its answer."""
    waiting = awaiting_calls(history)
    if waiting:
        calls = ", ".join(f"{r.name} ({r.tool_call_id})" for r in waiting)
        who = waiting[0].awaiting
        raise AwaitingAnswerError(
            f"session {session!r} waits for the {who}'s answer to its call {calls}: nothing can "
            f"run on it until that answer is given (it becomes the call's result and the run "
            f"continues from there)")


def continue_problem(history: Sequence[Message]) -> str | None:
    """Why a run cannot go on from ``history`` without a new message (None: it can: the last
    assistant message's calls all have their results)."""
    for k in range(len(history) - 1, -1, -1):
        m = history[k]
        if isinstance(m, AssistantMessage):
            if not m.tool_calls:
                return "its last answer has no tool call whose result it could go on from"
            answered = {r.tool_call_id for r in history[k + 1:]
                        if isinstance(r, ToolResultMessage) and r.awaiting is None}
            missing = [c.id for c in m.tool_calls if c.id not in answered]
            return f"calls without their result: {', '.join(missing)}" if missing else None
    return "it has no answer of the model to go on from"


def asked_last(history: Sequence[Message], call_id: str) -> bool:
    """Whether the model's last answer in ``history`` made the call ``call_id`` (no run went
    on past that call: its result, if there, is what the model sees next)."""
    for k in range(len(history) - 1, -1, -1):
        m = history[k]
        if isinstance(m, AssistantMessage):
            return any(c.id == call_id for c in m.tool_calls)
    return False


def close_call(session: Session, call_id: str, reason: str) -> bool:
    """Close the awaiting call ``call_id`` without an answer (the question was withdrawn: its
    step skipped, its plan aborted), as an "interrupted" result in its place, so the session can
    run again. False when there was no open call of that id."""
    if not any(r.tool_call_id == call_id for r in awaiting_calls(session.messages)):
        return False
    return answer_call(session, call_id, f"[interrupted: {reason}]", status="interrupted")


def answer_call(session: Session, call_id: str, text: str, *,
                status: ToolStatus = "ok") -> bool:
    """Save ``text`` as the result of the awaiting call ``call_id``, in its placeholder's place;
    on disk when this returns. False when the call has its answer already (a second delivery
    changes nothing). :class:`StateError` when the session holds no such open call."""
    history = session.messages
    for k in range(len(history) - 1, -1, -1):
        m = history[k]
        if isinstance(m, ToolResultMessage) and m.tool_call_id == call_id:
            if m.awaiting is None:
                if m.status == "interrupted":
                    raise StateError(f"call {call_id!r} of session {session.name!r} was closed "
                                     f"without its answer: {m.text}")
                return False
            answered = ToolResultMessage(tool_call_id=call_id, name=m.name,
                                         content=[TextBlock(text=text)], status=status)
            session.rewrite([*history[:k], answered, *history[k + 1:]])
            return True
    raise StateError(f"session {session.name!r} holds no call {call_id!r} to answer")
