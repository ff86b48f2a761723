"""The two steps of a turn: asking the model, and running the calls it asks for.

Each is an async generator that yields ``None`` each time events are ready (the runner hands
them over) and, as its last item, its value: the saved :class:`~.turn.Answer`, or whether the
loop guard stopped the run. Both save to the session before they announce (SPEC §3.6).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from contextlib import aclosing

from ..core.errors import ContextOverflowError, ProviderError, StateError, StreamTruncatedError
from ..core.events import Retry, RunEvent, TextDelta, ThinkingDelta, ToolEnd, ToolStart, UsageUpdate
from ..core.messages import ToolCallBlock
from ..providers.base import StreamDone, StreamRetry, StreamText, StreamThinking
from .dispatch import batches, normalise_call_ids, plan_calls, run_batch
from .loop_guard import LoopGuard
from .tool_protocol import ToolContext
from .turn import Answer, ContextPolicy, Emitter, TurnState, closing

__all__ = ["EXCERPT_CHARS", "ask_model", "forward", "run_calls"]

EXCERPT_CHARS = 2000  # of a tool's result, in its tool_end event


async def forward(events: AsyncIterator[RunEvent], turn: TurnState, emit: Emitter) -> AsyncIterator[None]:
    """A side concern's events (compaction), renumbered as this turn's."""
    async with closing(events):
        async for event in events:
            emit.forward(event)
            yield
            turn.raise_if_stopped()


async def ask_model(
    turn: TurnState, emit: Emitter, context: ContextPolicy | None
) -> AsyncIterator[Answer | None]:
    """One model answer, as the last item; an overflow compacts and retries once."""
    overflow_retried = False
    while True:
        try:
            async for item in _stream_once(turn, emit):
                yield item
            return
        except ProviderError as exc:
            if exc.action != "compact" or context is None:
                raise
            if overflow_retried:
                raise ContextOverflowError(
                    f"the conversation does not fit the model's context window even after "
                    f"compaction: {exc}", status=exc.status, provider=exc.provider,
                ) from exc
            overflow_retried = True  # compact, retry once, then fail (SPEC §5)
            async for _ in forward(context.on_overflow(turn, exc), turn, emit):
                yield None


async def _stream_once(turn: TurnState, emit: Emitter) -> AsyncIterator[Answer | None]:
    requests = turn.requests
    history = requests.session.messages
    request = requests.main(history)
    turn.stats.model_requests += 1
    final: StreamDone | None = None
    turn.partial_text = ""
    async with closing(requests.provider.stream(request)) as stream:
        async for ev in stream:
            if isinstance(ev, StreamText):
                if turn.first_token_s is None:
                    turn.first_token_s = time.perf_counter() - turn.started
                turn.partial_text += ev.text
                emit(TextDelta, text=ev.text)
            elif isinstance(ev, StreamThinking):
                emit(ThinkingDelta, text=ev.text)
            elif isinstance(ev, StreamRetry):
                turn.stats.retries += 1
                emit(Retry, attempt=ev.attempt, delay_s=ev.delay_s, reason=ev.reason,
                     error_kind=ev.error_kind, rotated_to=ev.rotated_to)
            elif isinstance(ev, StreamDone):
                final = ev
                continue
            else:  # a tool call announced: nothing to show before its end
                continue
            yield None
            turn.raise_if_stopped()
    if final is None:
        raise StreamTruncatedError("the model stream ended without a final message")
    answer = final.message
    if answer.provider is None or answer.model is None:
        answer = answer.model_copy(update={
            "provider": answer.provider or getattr(requests.provider, "id", None),
            "model": answer.model or requests.model,
        })
    answer, id_problems = normalise_call_ids(answer)
    turn.partial_text = ""
    requests.session.append(answer)
    turn.usage = turn.usage + final.usage
    emit(UsageUpdate, usage=turn.usage, model_requests=turn.stats.model_requests, model=answer.model)
    if final.usage.input_tokens:
        turn.last_input_tokens = final.usage.input_tokens
        turn.last_input_anchor = history[-1].id if history else None
    if answer.text:
        turn.text = answer.text
    yield Answer(answer, id_problems)


async def run_calls(
    answer: Answer,
    guard: LoopGuard,
    turn: TurnState,
    emit: Emitter,
    make_context: Callable[[ToolCallBlock], ToolContext],
) -> AsyncIterator[bool | None]:
    """Runs the answer's calls; the last item says whether the loop guard stopped the run."""
    session = turn.requests.session
    planned, loop_stopped = plan_calls(answer.message, turn.requests.tools, guard, answer.id_problems)
    for batch in batches(planned):
        for p in batch:
            emit(ToolStart, call_id=p.call.id, name=p.call.name, arguments=p.call.arguments)
        yield None
        turn.raise_if_stopped()  # Stop pressed while the consumer showed the start: run nothing
        async with aclosing(run_batch(batch, make_context)) as outcomes:
            async for outcome in outcomes:
                result = outcome.result
                if outcome.untrusted and turn.taint is not None:
                    turn.taint.mark(result.name)
                if outcome.end_turn:
                    turn.end_requested = True
                turn.stats.tool_calls += 1
                if result.status == "rejected":
                    turn.stats.rejections += 1
                elif result.status == "denied":
                    turn.stats.denials += 1
                elif result.status != "ok":
                    turn.stats.tool_failures += 1
                unsaved: StateError | None = None
                try:
                    session.append(result)
                except StateError as exc:
                    # The tool ran; keep its observation for the caller, then surface (SPEC §3.6).
                    turn.unsaved.append(result)
                    unsaved = exc
                else:
                    turn.output_files.extend(outcome.output_files)
                emit(ToolEnd, call_id=result.tool_call_id, name=result.name, status=result.status,
                     result=result.text[:EXCERPT_CHARS], duration_s=outcome.duration_s,
                     output_files=outcome.output_files)
                if unsaved is not None:
                    raise unsaved
                yield None
                turn.raise_if_stopped()
    yield loop_stopped
