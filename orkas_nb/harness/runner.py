"""The runner: one turn of an agent, as an async generator of typed events (SPEC §4).

A turn reads top to bottom in ``_turn``: save the user message → ask the model → save its
answer → validate and run the calls → save each result → fold steer messages → ask again,
until the model answers without calls. Side concerns live beside it: ``dispatch`` (validation
and batching), ``loop_guard``, ``session``, ``cancellation``; context management plugs in
through :class:`ContextPolicy`, and the requests are built by a :class:`RequestBuilder` that the
turn and the context policy share. Each step of the turn resolves to one :data:`StepResult`
(run again, final with its stop reason, stopped) that ``_turn`` matches on.

The turn's steps are async generators that yield each time events are ready; ``run`` hands the
buffered events over, so a streamed token reaches the consumer without a task switch.
Cancellation: the turn runs in the consumer's task. While that task waits inside the turn, the
abort signal cancels it, so the abort lands at whatever await the turn is in (the model stream,
a tool, a retry wait) and the turn takes the cancellation back (``turn.Stopper``); pressed
while the consumer is away, it lands where the turn resumes. The stopped turn then closes every
open call with an "interrupted" result before ``done``.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any, AsyncIterator, Callable

from ..core.errors import ErrorInfo, OrkasError, StateError
from ..core.events import Done, RunEvent, RunResult, Steer, Warning
from ..core.messages import (
    AssistantMessage,
    Message,
    TextBlock,
    ToolCallBlock,
    ToolResultMessage,
    UserMessage,
    user_message,
)
from ..providers.base import LLMProvider, ModelRequest
from .awaiting import check_sendable, continue_problem
from .cancellation import AbortSignal
from .compaction import CompactionConfig, Compactor
from .config import RunConfig
from .loop_guard import LoopGuard
from .repair import interrupted_result, open_calls
from .requests import RequestBuilder
from .session import InMemorySession, Session
from .steer import SteerQueue
from .steps import ask_model, forward, run_calls
from .tool_protocol import Taint, ToolContext, ToolRegistry
from .turn import (
    Answer,
    ContextPolicy,
    Emitter,
    Final,
    RunAgain,
    StepResult,
    Stopped,
    Stopper,
    TurnState,
)


def _through_requests(name: str) -> Any:
    return property(lambda self: getattr(self.requests, name),
                    lambda self, value: setattr(self.requests, name, value))


__all__ = ["ContextPolicy", "RequestBuilder", "RunConfig", "Runner", "TurnState"]


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
        self.config = config or RunConfig()
        self.requests = RequestBuilder(
            provider, model, tools=tools or ToolRegistry(),
            session=session if session is not None else InMemorySession(),
            system_prompt=system_prompt, config=self.config,
        )
        self.name = name
        self.workspace = Path(workspace) if workspace is not None else Path.cwd()
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
        self._steers = SteerQueue()
        self._running = False
        # (code, message) warnings the host shows the user at the start of every turn: a
        # condition of the agent's setup, such as skills cut from its catalog.
        self.notices: list[tuple[str, str]] = []

    # What requests are built from lives in the request builder; settable here too.
    provider = _through_requests("provider")
    model = _through_requests("model")
    tools = _through_requests("tools")
    session = _through_requests("session")
    system_prompt = _through_requests("system_prompt")
    # Lines the model is told after the system prompt (the host's notices are the user's).
    setup_notes = _through_requests("setup_notes")

    # -- public -------------------------------------------------------------------------------

    def steer(self, text: str) -> None:
        """Queue a user message for the running turn (thread- and task-safe).

        It is folded in at the next tool-loop boundary; if the turn ends first (stop, error,
        limit), it is still saved to the session. With no turn running: RuntimeError.
        """
        self._steers.put(text)

    @property
    def running(self) -> bool:
        return self._running

    async def run(
        self, prompt: str | UserMessage | None, *, abort: AbortSignal | None = None
    ) -> AsyncIterator[RunEvent]:
        """Run one turn; yields events, the last one always ``done``.

        ``prompt`` None continues the session as it is, with no new message: its last answer's
        calls have their results (a call answered from outside, ``awaiting.answer_call``) and
        the model goes on from them. A session with a call still waiting for its answer runs
        nothing: the turn ends in error (:class:`~.awaiting.AwaitingAnswerError`), unchanged.
        """
        if self._running:
            raise RuntimeError("this agent is already running a turn; use steer() to add to it")
        self._running = True
        self._steers.open()
        abort = abort or AbortSignal()
        emit = Emitter(self.name)
        turn = TurnState(requests=self.requests, abort=abort, taint=self.taint)
        stopper = Stopper(asyncio.current_task())
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
        self, prompt: str | UserMessage | None, *, abort: AbortSignal | None = None
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
        self, prompt: str | UserMessage | None, turn: TurnState, emit: Emitter, stopper: Stopper
    ) -> AsyncIterator[None]:
        """The turn, then ``done``, whatever happened. Yields each time events are ready."""
        error: ErrorInfo | None = None
        stop_reason = "end_turn"
        try:
            async for final in self._turn(prompt, turn, emit):
                if final is None:
                    yield
                else:
                    stop_reason = final.stop_reason
        except asyncio.CancelledError:
            ours = (turn.abort.aborted or turn.abandoned) and stopper.take_back()
            stop_reason = "cancelled"
            error = self._close_interrupted(turn, turn.abort.reason or "the run was stopped")
            if not ours:  # the consumer's task is being cancelled by its owner: let it be
                self._fold_steers(emit, last=True, force=True)
                raise
        except OrkasError as exc:
            stop_reason, error = "error", exc.info()
            self._close_interrupted(turn, f"the run failed: {exc}")
        except Exception as exc:  # a bug or an unexpected failure: report it, keep the session valid
            stop_reason = "error"
            error = ErrorInfo(kind=type(exc).__name__, message=str(exc), action="surface")
            self._close_interrupted(turn, f"the run failed: {type(exc).__name__}")
        self._fold_steers(emit, last=True, force=True)  # steers that missed a boundary: kept
        result = RunResult(
            text=turn.text,
            stop_reason=stop_reason,  # type: ignore[arg-type]
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
        return self.requests.system_text()

    def build_request(self, messages: list[Message]) -> ModelRequest:
        """The main-turn request for ``messages`` (the context policy estimates the same)."""
        return self.requests.main(messages)

    async def _turn(
        self, prompt: str | UserMessage | None, turn: TurnState, emit: Emitter
    ) -> AsyncIterator[Final | None]:
        """Steps until one is final; its last item is that :class:`Final`."""
        if not self._taint_seeded:
            self._seed_taint()
        history = self.session.messages
        check_sendable(history, self.session.name)  # nothing is saved after an open question
        if prompt is None:  # go on from the results the session ends with
            why = continue_problem(history)
            if why is not None:
                raise StateError(f"session {self.session.name!r} cannot be continued: {why}")
            turn.turn_id = next((m.id for m in reversed(history)
                                 if isinstance(m, UserMessage)), "")
        else:
            message = prompt if isinstance(prompt, UserMessage) else user_message(prompt)
            self.session.append(message)  # once, before any provider call (SPEC §6)
            turn.turn_id = message.id
        for code, text in self.notices:
            emit(Warning, code=code, message=text)
        if self.context is not None:  # earlier turns plus this prompt may already be past it
            async for _ in forward(self.context.after_tool_batch(turn), turn, emit):
                yield None
        guard = LoopGuard(self.config.loop_guard_remind, self.config.loop_guard_stop)
        while True:
            result: StepResult | None = None
            async for item in self._step(turn, emit, guard):
                if item is None:
                    yield None
                else:
                    result = item
            match result:
                case RunAgain():
                    continue
                case Final():
                    yield result
                    return
                case Stopped():
                    raise asyncio.CancelledError
                case _:
                    raise AssertionError(f"a step ended without a result: {result!r}")

    async def _step(self, turn: TurnState, emit: Emitter, guard: LoopGuard) -> AsyncIterator[StepResult | None]:
        """One model request and the calls it asks for; the last item says what comes next."""
        if turn.abort.aborted:  # pressed before the step got to run
            yield Stopped()
            return
        if turn.stats.model_requests >= self.config.max_steps:
            emit(Warning, code="max_steps", message=f"stopped after {self.config.max_steps} model requests")
            yield Final("max_steps")
            return
        answer: Answer | None = None
        async for item in ask_model(turn, emit, self.context):
            if item is None:
                yield None
            else:
                answer = item
        assert answer is not None
        if not answer.message.tool_calls:
            if self._fold_steers(emit, last=True):
                yield None
                turn.raise_if_stopped()
                yield RunAgain()
            else:
                yield Final("end_turn")
            return
        loop_stopped = False
        async for item in run_calls(answer, guard, turn, emit, self._tool_context(turn)):
            if item is None:
                yield None
            else:
                loop_stopped = item
        if loop_stopped:
            emit(Warning, code="loop_guard", message="the same tool call was repeated; run stopped")
            yield Final("loop_guard")
            return
        if turn.end_requested:  # e.g. a hand-off: someone else answers; steers are kept at the end
            yield Final("end_turn")
            return
        if self._fold_steers(emit):
            yield None
            turn.raise_if_stopped()
        if self.context is not None:
            async for _ in forward(self.context.after_tool_batch(turn), turn, emit):
                yield None
        yield RunAgain()

    def _tool_context(self, turn: TurnState) -> Callable[[ToolCallBlock], ToolContext]:
        def make(call: ToolCallBlock) -> ToolContext:
            return ToolContext(
                workspace=self.workspace, abort=turn.abort, agent=self.name,
                session=self.session.name, call_id=call.id, services=self.services,
                turn_id=turn.turn_id, taint=self.taint,
            )
        return make

    def _seed_taint(self) -> None:
        """Results of untrusted-output tools already in the session (an earlier agent's turns)."""
        self._taint_seeded = True
        untrusted = {n for n in self.tools.names()
                     if getattr(self.tools.get(n), "untrusted_output", False)}
        if untrusted:
            for m in self.session.messages:
                if isinstance(m, ToolResultMessage) and m.name in untrusted:
                    self.taint.mark(m.name)

    def _fold_steers(self, emit: Emitter, *, last: bool = False, force: bool = False) -> bool:
        """Append queued steer messages. ``last``: the turn ends if there are none, decided
        under the lock so a steer cannot slip in between the check and the end. ``force``:
        the turn is ending anyway; keep what can be saved."""
        pending = self._steers.take(last=last, force=force)
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

