"""The runner: one turn of an agent, as an async generator of typed events (SPEC §4).

A turn reads top to bottom in ``_turn``: save the user message → ask the model → save its
answer → validate and run the calls → save each result → fold steer messages → ask again,
until the model answers without calls. Side concerns live beside it: ``dispatch`` (validation
and batching), ``loop_guard``, ``session``, ``cancellation``; context management plugs in
through :class:`ContextPolicy`.

The turn's steps are async generators that yield each time events are ready; ``run`` hands the
buffered events over, so a streamed token reaches the consumer without a task switch.
Cancellation: the turn runs in the consumer's task. While that task waits inside the turn, the
abort signal cancels it, so the abort lands at whatever await the turn is in (the model stream,
a tool, a retry wait) and the turn takes the cancellation back (``turn._Stopper``); pressed
while the consumer is away, it lands where the turn resumes. The stopped turn then closes every
open call with an "interrupted" result before ``done``.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import deque
from contextlib import AbstractAsyncContextManager, aclosing, nullcontext
from pathlib import Path
from typing import Any, AsyncIterator, Callable

from ..core.errors import (
    ContextOverflowError,
    ErrorInfo,
    OrkasError,
    ProviderError,
    StateError,
    StreamTruncatedError,
)
from ..core.events import (
    Done,
    Retry,
    RunEvent,
    RunResult,
    Steer,
    TextDelta,
    ThinkingDelta,
    ToolEnd,
    ToolStart,
    UsageUpdate,
    Warning,
)
from ..core.messages import (
    AssistantMessage,
    Message,
    TextBlock,
    ToolCallBlock,
    ToolResultMessage,
    UserMessage,
    user_message,
)
from ..providers.base import (
    LLMProvider,
    ModelRequest,
    StreamDone,
    StreamRetry,
    StreamText,
    StreamThinking,
    capabilities_of,
)
from .cancellation import AbortSignal
from .compaction import CompactionConfig, Compactor
from .dispatch import batches, normalise_call_ids, plan_calls, run_batch
from .loop_guard import LoopGuard
from .repair import interrupted_result, open_calls
from .session import InMemorySession, Session
from .tool_images import ImageMover
from .tools import Taint, ToolContext, ToolRegistry
from .turn import ContextPolicy, RunConfig, TurnState, _Emitter, _Stopper

EXCERPT_CHARS = 2000


def _closing(events: AsyncIterator[Any]) -> AbstractAsyncContextManager[Any]:
    """Closes an event stream the turn leaves early (Stop lands between two of its events), so
    its own cleanup (an HTTP response, a compaction request) runs now, not when collected."""
    return aclosing(events) if hasattr(events, "aclose") else nullcontext(events)  # type: ignore[arg-type]

__all__ = ["ContextPolicy", "RunConfig", "Runner", "TurnState"]


class Runner:
    """Runs turns of one agent against one provider, one tool registry and one session."""

    def __init__(
        self,
        provider: LLMProvider,
        model: str,
        *,
        tools: ToolRegistry | None = None,
        session: Session | None = None,
        system_prompt: str | Callable[[], str] = "",
        name: str = "agent",
        workspace: str | Path | None = None,
        config: RunConfig | None = None,
        context: ContextPolicy | None = None,
        services: dict[str, Any] | None = None,
    ) -> None:
        self.provider = provider
        self.model = model
        self.tools = tools or ToolRegistry()
        self.session: Session = session if session is not None else InMemorySession()
        self.system_prompt = system_prompt
        self.name = name
        self.workspace = Path(workspace) if workspace is not None else Path.cwd()
        self.config = config or RunConfig()
        if context is None and self.config.compaction:
            context = Compactor(CompactionConfig(
                threshold=self.config.compact_threshold, context_window=self.config.context_window
            ))
        self.context = context
        self.services = services or {}
        # Untrusted content this agent has read (web pages, documents…): it stays in the
        # context, so it taints every later turn of the runner; seeded from the session.
        self.taint = Taint()
        self._taint_seeded = False
        self._steer: deque[str] = deque()
        self._steer_lock = threading.Lock()
        self._accepting_steers = False
        self._running = False
        self._images = ImageMover()

    # -- public -------------------------------------------------------------------------------

    def steer(self, text: str) -> None:
        """Queue a user message for the running turn (thread- and task-safe).

        It is folded in at the next tool-loop boundary; if the turn ends first (stop, error,
        limit), it is still saved to the session. With no turn running: RuntimeError.
        """
        if not isinstance(text, str) or not text.strip():
            raise ValueError("steer() needs a non-empty message")
        with self._steer_lock:
            if not self._accepting_steers:
                raise RuntimeError("no turn is running; send this message with run() instead")
            self._steer.append(text)

    @property
    def running(self) -> bool:
        return self._running

    async def run(
        self, prompt: str | UserMessage, *, abort: AbortSignal | None = None
    ) -> AsyncIterator[RunEvent]:
        """Run one turn; yields events, the last one always ``done``."""
        if self._running:
            raise RuntimeError("this agent is already running a turn; use steer() to add to it")
        self._running = True
        with self._steer_lock:
            self._accepting_steers = True
        abort = abort or AbortSignal()
        emit = _Emitter(self.name)
        turn = TurnState(runner=self, abort=abort)
        stopper = _Stopper(asyncio.current_task())
        steps = self._turn_guarded(prompt, turn, emit, stopper)
        unsubscribe = abort.subscribe(stopper)
        buffer = emit.buffer
        ended = False
        try:
            while True:
                stopper.inside = True
                try:
                    await steps.__anext__()
                except StopAsyncIteration:
                    ended = True
                    break
                finally:
                    stopper.inside = False
                while buffer:
                    yield buffer.popleft()
            while buffer:
                yield buffer.popleft()
        finally:
            unsubscribe()
            stopper.task = None  # a late callback must not cancel the consumer's task
            if not ended:  # the consumer went away: end the turn there, keep the session valid
                turn.abandoned = True
                async for _ in steps:
                    pass
            self._running = False

    async def run_to_end(
        self, prompt: str | UserMessage, *, abort: AbortSignal | None = None
    ) -> RunResult:
        """The non-streaming entry: drains ``run`` and returns the result of ``done``."""
        result: RunResult | None = None
        async for event in self.run(prompt, abort=abort):
            if isinstance(event, Done):
                result = event.result
        assert result is not None
        return result

    # -- the turn -----------------------------------------------------------------------------

    async def _turn_guarded(
        self, prompt: str | UserMessage, turn: TurnState, emit: _Emitter, stopper: _Stopper
    ) -> AsyncIterator[None]:
        """The turn, then ``done``, whatever happened. Yields each time events are ready."""
        error: ErrorInfo | None = None
        try:
            async for _ in self._turn(prompt, turn, emit):
                yield
        except asyncio.CancelledError:
            ours = (turn.abort.aborted or turn.abandoned) and stopper.take_back()
            turn.stop_reason = "cancelled"
            error = self._close_interrupted(turn, turn.abort.reason or "the run was stopped")
            if not ours:  # the consumer's task is being cancelled by its owner: let it be
                self._fold_steers(emit, last=True, force=True)
                raise
        except OrkasError as exc:
            turn.stop_reason, error = "error", exc.info()
            self._close_interrupted(turn, f"the run failed: {exc}")
        except Exception as exc:  # a bug or an unexpected failure: report it, keep the session valid
            turn.stop_reason = "error"
            error = ErrorInfo(kind=type(exc).__name__, message=str(exc), action="surface")
            self._close_interrupted(turn, f"the run failed: {type(exc).__name__}")
        self._fold_steers(emit, last=True, force=True)  # steers that missed a boundary: kept
        result = RunResult(
            text=turn.text,
            stop_reason=turn.stop_reason,  # type: ignore[arg-type]
            usage=turn.usage,
            stats=turn.stats,
            duration_s=time.perf_counter() - turn.started,
            first_token_s=turn.first_token_s,
            output_files=turn.output_files,
            error=error,
            session=self.session.name,
            unsaved=turn.unsaved,
        )
        emit(Done, result=result)

    def _close_interrupted(self, turn: TurnState, reason: str) -> ErrorInfo | None:
        """Leave the session valid after a stop or failure: save partial text, close open calls."""
        try:
            if turn.partial_text:
                self.session.append(
                    AssistantMessage(
                        content=[TextBlock(text=turn.partial_text)],
                        provider=getattr(self.provider, "id", None),
                        model=self.model,
                        stop_reason="cancelled",
                    )
                )
                turn.partial_text = ""
            for call in open_calls(self.session.messages):
                self.session.append(interrupted_result(call, reason))
        except StateError as exc:
            return exc.info()
        return None

    def system_text(self) -> str:
        """The system prompt as the next request will carry it."""
        return self.system_prompt() if callable(self.system_prompt) else self.system_prompt

    def build_request(self, messages: list[Message]) -> ModelRequest:
        """The main-turn request for ``messages`` (the context policy estimates the same)."""
        if not capabilities_of(self.provider, self.model).images_in_tool_results:
            messages = self._images.move(messages)
        # Built unvalidated: every field is already typed, and validating the history would
        # cost O(N) per request.
        return ModelRequest.model_construct(
            model=self.model,
            system=self.system_text(),
            messages=messages,
            tools=self.tools.specs(),
            max_tokens=self.config.max_tokens,
            temperature=self.config.temperature,
            session_id=self.config.session_id or self.session.name,
            purpose="main",
            extra={},
        )

    async def _turn(self, prompt: str | UserMessage, turn: TurnState, emit: _Emitter) -> AsyncIterator[None]:
        message = prompt if isinstance(prompt, UserMessage) else user_message(prompt)
        if not self._taint_seeded:
            self._seed_taint()
        self.session.append(message)  # once, before any provider call (SPEC §6)
        turn.turn_id = message.id
        if self.context is not None:  # earlier turns plus this prompt may already be past it
            async for _ in self._forward(self.context.after_tool_batch(turn), turn, emit):
                yield
        guard = LoopGuard(self.config.loop_guard_remind, self.config.loop_guard_stop)
        while True:
            if turn.abort.aborted:  # raised before the turn got to run
                raise asyncio.CancelledError
            if turn.stats.model_requests >= self.config.max_steps:
                emit(Warning, code="max_steps", message=f"stopped after {self.config.max_steps} model requests")
                turn.stop_reason = "max_steps"
                return
            async for _ in self._ask_model(turn, emit):
                yield
            answer = turn.answer
            assert answer is not None
            if not answer.tool_calls:
                if self._fold_steers(emit, last=True):
                    yield
                    turn.raise_if_stopped()
                    continue
                turn.stop_reason = "end_turn"
                return
            async for _ in self._run_calls(answer, turn.id_problems, guard, turn, emit):
                yield
            if turn.loop_stopped:
                emit(Warning, code="loop_guard", message="the same tool call was repeated; run stopped")
                turn.stop_reason = "loop_guard"
                return
            if self._fold_steers(emit):
                yield
                turn.raise_if_stopped()
            if self.context is not None:
                async for _ in self._forward(self.context.after_tool_batch(turn), turn, emit):
                    yield

    async def _forward(
        self, events: AsyncIterator[RunEvent], turn: TurnState, emit: _Emitter
    ) -> AsyncIterator[None]:
        """A side concern's events (compaction), renumbered as this turn's."""
        async with _closing(events):
            async for event in events:
                emit.forward(event)
                yield
                turn.raise_if_stopped()

    async def _ask_model(self, turn: TurnState, emit: _Emitter) -> AsyncIterator[None]:
        """One model answer into ``turn.answer``; an overflow compacts and retries once."""
        overflow_retried = False
        while True:
            try:
                async for _ in self._stream_once(turn, emit):
                    yield
                return
            except ProviderError as exc:
                if exc.action != "compact" or self.context is None:
                    raise
                if overflow_retried:
                    raise ContextOverflowError(
                        f"the conversation does not fit the model's context window even after "
                        f"compaction: {exc}", status=exc.status, provider=exc.provider,
                    ) from exc
                overflow_retried = True  # compact, retry once, then fail (SPEC §5)
                async for _ in self._forward(self.context.on_overflow(turn, exc), turn, emit):
                    yield

    async def _stream_once(self, turn: TurnState, emit: _Emitter) -> AsyncIterator[None]:
        history = self.session.messages
        request = self.build_request(history)
        turn.stats.model_requests += 1
        final: StreamDone | None = None
        turn.partial_text = ""
        async with _closing(self.provider.stream(request)) as stream:
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
                yield
                turn.raise_if_stopped()
        if final is None:
            raise StreamTruncatedError("the model stream ended without a final message")
        answer = final.message
        if answer.provider is None or answer.model is None:
            answer = answer.model_copy(update={
                "provider": answer.provider or getattr(self.provider, "id", None),
                "model": answer.model or self.model,
            })
        answer, turn.id_problems = normalise_call_ids(answer)
        turn.partial_text = ""
        self.session.append(answer)
        turn.usage = turn.usage + final.usage
        emit(UsageUpdate, usage=turn.usage, model_requests=turn.stats.model_requests, model=answer.model)
        if final.usage.input_tokens:
            turn.last_input_tokens = final.usage.input_tokens
            turn.last_input_anchor = history[-1].id if history else None
        if answer.text:
            turn.text = answer.text
        turn.answer = answer

    async def _run_calls(
        self,
        answer: AssistantMessage,
        id_problems: dict[int, str],
        guard: LoopGuard,
        turn: TurnState,
        emit: _Emitter,
    ) -> AsyncIterator[None]:
        planned, turn.loop_stopped = plan_calls(answer, self.tools, guard, id_problems)

        def make_ctx(call: ToolCallBlock) -> ToolContext:
            return ToolContext(
                workspace=self.workspace, abort=turn.abort, agent=self.name,
                session=self.session.name, call_id=call.id, services=self.services,
                turn_id=turn.turn_id, taint=self.taint,
            )

        for batch in batches(planned):
            for p in batch:
                emit(ToolStart, call_id=p.call.id, name=p.call.name, arguments=p.call.arguments)
            yield
            turn.raise_if_stopped()  # Stop pressed while the consumer showed the start: run nothing
            async with aclosing(run_batch(batch, make_ctx)) as outcomes:
                async for outcome in outcomes:
                    result = outcome.result
                    if outcome.untrusted:
                        self.taint.mark(result.name)
                    turn.stats.tool_calls += 1
                    if result.status == "rejected":
                        turn.stats.rejections += 1
                    elif result.status == "denied":
                        turn.stats.denials += 1
                    elif result.status != "ok":
                        turn.stats.tool_failures += 1
                    unsaved: StateError | None = None
                    try:
                        self.session.append(result)
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
                    yield
                    turn.raise_if_stopped()

    def _seed_taint(self) -> None:
        """Results of untrusted-output tools already in the session (an earlier agent's turns)."""
        self._taint_seeded = True
        untrusted = {n for n in self.tools.names()
                     if getattr(self.tools.get(n), "untrusted_output", False)}
        if untrusted:
            for m in self.session.messages:
                if isinstance(m, ToolResultMessage) and m.name in untrusted:
                    self.taint.mark(m.name)

    def _fold_steers(self, emit: _Emitter, *, last: bool = False, force: bool = False) -> bool:
        """Append queued steer messages. ``last``: the turn ends if there are none, decided
        under the lock so a steer cannot slip in between the check and the end. ``force``:
        the turn is ending anyway; keep what can be saved."""
        with self._steer_lock:
            pending = list(self._steer)
            self._steer.clear()
            if force or (last and not pending):
                self._accepting_steers = False
        for text in pending:
            try:
                self.session.append(user_message(text, origin="steer"))
            except StateError:
                if not force:
                    raise
                emit(Warning, code="steer_lost", message="a steer message could not be saved")
                continue
            emit(Steer, text=text)
        return bool(pending)

