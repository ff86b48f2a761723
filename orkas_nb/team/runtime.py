"""The team at work (SPEC §11, seed 003 §3): the commander, its members, one bus.

:class:`Team` is the library-level entry of multi-agent use. It holds a conversation's
:class:`~.state.TeamState` (bus, ledger, member sessions), the agent definitions and the
:class:`~.factory.AgentFactory` the composition root hands it. Work reaches a member only
through it, and always the same way: a message on the bus addressed to the member, a ledger
task, then one complete harness run of the member (its own compaction, retries, approvals and
sandbox) whose prompt is built from :meth:`MessageBus.view` of that member alone; the run's
last text goes back on the bus and, capped at :data:`SUMMARY_CHARS`, into the ledger and the
commander's tool result. The conversation loop (user messages, the floor, hand-back and
resume) is :mod:`.conversation`.

Every member run's events are forwarded to the team's listeners as
:class:`~orkas_nb.core.events.MemberEvent` (member, task id, lane), so a view can draw one lane
per run; :meth:`Team.stop` aborts the commander and every member run, workers included.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

from pydantic import BaseModel, Field

from ..core.events import Done, Lane, MemberEvent, RunEvent, RunResult
from ..core.messages import Usage
from ..harness.awaiting import AwaitingAnswerError, awaiting_calls
from ..harness.cancellation import AbortSignal
from ..harness.session import InMemorySession
from .bus import COMMANDER, USER, BusMessage, check_agent_name
from .conversation import Conversation
from .factory import AgentFactory, MemberSpec, TeamMember
from .ledger import SUMMARY_CHARS, cap
from .state import TeamState

if TYPE_CHECKING:
    from ..core.messages import UserMessage
    from .definitions import AgentDefinition

__all__ = ["SUMMARY_CHARS", "Commander", "TaskOutcome", "Team"]

Listener = Callable[[RunEvent], None]


class Commander(Protocol):
    """What the team needs of the commander's agent (an ``orkas_nb.Agent`` is one)."""

    name: str

    def run(self, prompt: str | UserMessage, *,
            abort: AbortSignal | None = None) -> AsyncIterator[RunEvent]: ...

    def steer(self, text: str) -> None: ...


class TaskOutcome(BaseModel):
    """How one piece of work ended, as the commander's tool reports it."""

    task_id: str
    member: str
    status: Literal["done", "failed", "interrupted"]
    summary: str = ""
    output_files: list[str] = Field(default_factory=list)
    reason: str = ""
    usage: Usage = Field(default_factory=Usage)

    def tool_text(self) -> str:
        head = f"{self.member} ({self.task_id}) {self.status}"
        if self.reason:
            head += f": {self.reason}"
        parts = [head, self.summary or "(no final text)"]
        if self.output_files:
            parts.append("Output files: " + ", ".join(self.output_files))
        return "\n\n".join(parts)


@dataclass
class _Running:
    member: str
    abort: AbortSignal
    lane: Lane


class Team:
    """A commander and its named agents in one conversation; see the module docs."""

    def __init__(
        self,
        commander: Commander,
        factory: AgentFactory,
        definitions: Sequence[AgentDefinition],
        *,
        state: TeamState | None = None,
        worker: MemberSpec | None = None,
        summary_chars: int = SUMMARY_CHARS,
    ) -> None:
        self.commander = commander
        self.factory = factory
        self.state = state if state is not None else TeamState.in_memory()
        self.definitions: dict[str, AgentDefinition] = {}
        for d in definitions:
            check_agent_name(d.name)
            self.definitions[d.name] = d
        self.worker_spec = worker or MemberSpec(name="worker")
        self.summary_chars = summary_chars
        self._members: dict[str, TeamMember] = {}
        self._running: dict[str, _Running] = {}
        self._listeners: list[Listener] = []
        self._workers = itertools.count(1)
        self._stop_reason: str | None = None  # set by stop() until the next user turn
        self._commander_abort: AbortSignal | None = None
        self._conversation: Conversation | None = None

    # -- the public entries ------------------------------------------------------------------

    @property
    def names(self) -> list[str]:
        """The named agents of the team, in definition order."""
        return list(self.definitions)

    def run(self, text: str) -> AsyncIterator[RunEvent]:
        """The user says ``text``: route it (``@name``, else the floor holder), run the turn(s),
        yield every event (members' as :class:`MemberEvent`); the last is one ``done``."""
        if self._conversation is None:
            self._conversation = Conversation(self)
        return self._conversation.run(text)

    async def arun(self, text: str) -> RunResult:
        """:meth:`run` to its end; the result of the turn that answered the user."""
        result: RunResult | None = None
        async for event in self.run(text):
            if isinstance(event, Done):
                result = event.result
        assert result is not None
        return result

    def steer(self, text: str) -> None:
        """Add to the floor holder's running turn, else to the commander's."""
        holder = self.state.ledger.floor.holder
        running = [r for r in self._running.values() if r.member == holder and r.lane == "floor"]
        if holder != COMMANDER and running:
            steer = getattr(self._members.get(holder), "steer", None)
            if steer is not None:
                steer(text)
                return
        self.commander.steer(text)

    def stop(self, reason: str = "stopped by the user") -> None:
        """The group stop: the commander and every member run end, workers included; their
        tasks become ``interrupted`` and every session stays valid."""
        self._stop_reason = reason
        if self._commander_abort is not None:
            self._commander_abort.abort(reason)
        for running in list(self._running.values()):
            running.abort.abort(reason)

    @property
    def running(self) -> dict[str, str]:
        """Task id → member of every member run in flight."""
        return {task_id: r.member for task_id, r in self._running.items()}

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener`` with each member event (and, inside :meth:`run`, every event)."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def emit(self, event: RunEvent) -> None:
        """Hand ``event`` to every listener (a commander turn run outside :meth:`run`, such
        as a plan's wake-up, shows its events this way)."""
        for listener in list(self._listeners):
            listener(event)

    @property
    def stop_reason(self) -> str | None:
        """Why the team was stopped (None: not stopped since the last user turn)."""
        return self._stop_reason

    def clear_stop(self) -> None:
        """Runs may start again: a stop lasts until the next user turn (or a resumed plan)."""
        self._stop_reason = None

    def commander_abort(self) -> AbortSignal:
        """A fresh abort signal for a commander turn, reached by :meth:`stop` (already
        aborted while a stop holds)."""
        abort = self._commander_abort = AbortSignal()
        if self._stop_reason is not None:
            abort.abort(self._stop_reason)
        return abort

    # -- work for members --------------------------------------------------------------------

    def definition(self, name: str) -> AgentDefinition:
        """The agent called ``name`` (any case); ValueError naming the members otherwise."""
        for known, d in self.definitions.items():
            if known.lower() == name.lower():
                return d
        raise ValueError(f"no agent named {name!r} in this team "
                         f"(agents: {', '.join(self.definitions) or 'none'})")

    def member(self, name: str) -> TeamMember:
        """The agent ``name``, built once per team with its session from the team state."""
        d = self.definition(name)
        if d.name not in self._members:
            spec = MemberSpec(name=d.name, model=d.model, system_prompt=d.system_prompt or None,
                              tools=d.tools, max_steps=d.max_steps)
            self._members[d.name] = self.factory(spec, session=self.state.session(d.name))
        return self._members[d.name]

    async def dispatch(self, agent: str, task: str, *, requester: str = COMMANDER,
                       retry_of: str | None = None, call_id: str = "") -> TaskOutcome:
        """``agent`` runs ``task`` to its end; dispatches to one agent queue behind each other.

        ``retry_of``: the failed or interrupted task this one retries (the commander's decision,
        recorded as the new task's ``parent``; a task is retried at most once). ``call_id``: the
        tool call that asked for it, kept in the ledger (one call, one task).
        """
        name = self.definition(agent).name
        if retry_of is not None:
            self.state.ledger.retry_target(retry_of)  # StateError: nothing is dispatched
        self.check_free(name)
        scope = {requester, name, USER}
        record = self.state.ledger.create(name, task, requester=requester, parent=retry_of,
                                          call_id=call_id)
        message = self.state.bus.post(requester, task, visible_to=scope, kind="task", to=name,
                                      task_id=record.id)
        async with self.state.member_lock(name):
            prompt = self.prompt_for(name, message, intro=f"Task {record.id} from {requester}")
            return await self._run_task(self.member(name), name, prompt, record.id, requester,
                                        scope, lane="dispatch", visible=True)

    def check_free(self, agent: str) -> None:
        """:class:`~orkas_nb.harness.awaiting.AwaitingAnswerError` while ``agent`` waits for
        the user's answer to its question (a plan's ``ask_user``): work for it is refused, not
        queued (it could wait for ever), and nothing is recorded. Its runs refuse the same way
        (the runner), so a run queued before the question ends in that error."""
        name = self.definition(agent).name
        waiting = awaiting_calls(self.state.session(name).messages)
        if waiting:
            raise AwaitingAnswerError(
                f"{name} is waiting for the user's answer to its question ({waiting[0].name} "
                f"{waiting[0].tool_call_id}); it takes work again once the user has answered")

    async def worker(self, task: str, name: str | None = None, *, requester: str = COMMANDER,
                     retry_of: str | None = None, call_id: str = "") -> TaskOutcome:
        """A sub-task the requester keeps: a fresh agent built from the worker spec (the
        commander's own settings). Anonymous (``name`` None): seen by the commander only; named:
        a visible specialist (``name`` is a display label, not an agent file)."""
        if name is not None:
            check_agent_name(name)
            if name.lower() in {n.lower() for n in self.definitions}:
                raise ValueError(f"{name!r} is an agent of this team; use dispatch_to for it, or "
                                 f"give the worker another label")
        if retry_of is not None:
            self.state.ledger.retry_target(retry_of)  # StateError: nothing runs
        label = name or f"worker-{next(self._workers)}"
        scope = {requester, label} | ({USER} if name else set())
        record = self.state.ledger.create(label, task, requester=requester, parent=retry_of,
                                          call_id=call_id)
        message = self.state.bus.post(requester, task, visible_to=scope, kind="task", to=label,
                                      task_id=record.id)
        member = self.factory(self.worker_spec.model_copy(update={"name": label}),
                              session=InMemorySession(label))
        prompt = self.prompt_for(label, message, intro=f"Sub-task {record.id} from {requester}")
        return await self._run_task(member, label, prompt, record.id, requester, scope,
                                    lane="worker", visible=name is not None)

    def prompt_for(self, member: str, current: BusMessage, *, intro: str) -> str:
        """The member's prompt: what its view gained since it last spoke, then ``current``.

        Only messages ``member`` may see; never its own (they are in its session) nor another
        task message (queued or interrupted work must not run by being read).
        """
        bus = self.state.bus
        since = max((m.seq for m in bus.view(member) if m.sender == member and m.seq < current.seq),
                    default=0)
        lines = [f"[{m.sender}{' to ' + m.to if m.to else ''}] {m.text}"
                 for m in bus.view(member, after=since)
                 if m.seq < current.seq and m.sender != member and m.kind != "task"
                 and (member != COMMANDER or m.kind in ("chat", "system"))]
        context = ("Since you last spoke, in this conversation:\n" + "\n".join(lines) + "\n\n"
                   if lines else "")
        return f"{context}{intro}:\n{current.text}"

    async def _run_task(self, member: TeamMember, name: str, prompt: str, task_id: str,
                        requester: str, scope: set[str], *, lane: Lane,
                        visible: bool) -> TaskOutcome:
        ledger = self.state.ledger
        ledger.start(task_id)
        try:
            result = await self.run_member(member, name, prompt, task_id, lane=lane,
                                           visible=visible)
        except asyncio.CancelledError:  # the caller was cancelled: the run has ended (aborted)
            reason = self._stop_reason or "the commander's turn was stopped"
            ledger.interrupt(task_id, reason)
            self.state.bus.post(name, f"(interrupted: {reason})", visible_to=scope,
                                kind="result", to=requester, task_id=task_id)
            raise
        summary = cap(result.text, self.summary_chars)
        if result.stop_reason == "cancelled":
            reason = (result.error.message if result.error else "") or self._stop_reason or "stopped"
            ledger.interrupt(task_id, reason)
            status: Literal["done", "failed", "interrupted"] = "interrupted"
        elif result.stop_reason == "error":
            reason = result.error.message if result.error else "the run failed"
            ledger.fail(task_id, reason, summary)
            status = "failed"
        else:
            reason = "" if result.stop_reason == "end_turn" else f"stopped by {result.stop_reason}"
            ledger.finish(task_id, summary, result.output_files)
            status = "done"
        text = result.text or f"({status}{': ' + reason if reason else ''})"
        self.state.bus.post(name, text, visible_to=scope, kind="result", to=requester,
                            task_id=task_id)
        return TaskOutcome(task_id=task_id, member=name, status=status, summary=summary,
                           output_files=result.output_files, reason=reason, usage=result.usage)

    async def run_member(self, member: TeamMember, name: str, prompt: str | None, task_id: str,
                         *, lane: Lane, visible: bool) -> RunResult:
        """One run of ``member``, its events forwarded; stoppable by :meth:`stop`. ``prompt``
        None continues the member's session from the results it ends with (a resume).

        The run gets a task of its own: a stopped caller (the commander's turn) aborts it and
        waits for it to close its session, rather than cancelling it mid-write.
        """
        abort = AbortSignal()
        self._running[task_id] = _Running(name, abort, lane)
        if self._stop_reason is not None:
            abort.abort(self._stop_reason)
        inner = asyncio.ensure_future(self._drive(member, name, prompt, abort, task_id, lane,
                                                  visible))
        try:
            return await asyncio.shield(inner)
        except asyncio.CancelledError:
            abort.abort(self._stop_reason or "the commander's turn was stopped")
            with contextlib.suppress(BaseException):
                await inner
            raise
        finally:
            self._running.pop(task_id, None)

    async def _drive(self, member: TeamMember, name: str, prompt: str | None, abort: AbortSignal,
                     task_id: str, lane: Lane, visible: bool) -> RunResult:
        result: RunResult | None = None
        async for event in member.run(prompt, abort=abort):
            if isinstance(event, Done):
                result = event.result
            self.emit(MemberEvent(agent=name, member=name, task_id=task_id, lane=lane,
                                   visible=visible, event=event))
        assert result is not None
        return result

    def hand_off(self, agent: str, message: str = "") -> str:
        """Give ``agent`` the floor; it answers the user once the commander's turn ends."""
        if self._conversation is None:
            self._conversation = Conversation(self)
        return self._conversation.hand_off(agent, message)

    def close(self) -> None:
        """Close the members' agents and the team state."""
        for m in self._members.values():
            close = getattr(m, "close", None)
            if close is not None:
                close()
        self._members.clear()
        plan = getattr(self, "plan", None)  # set by the composition root (agent.plan.plan_for)
        if plan is not None:
            plan.close()  # releases plan.jsonl's lock, so the next team (the next cell) opens it
        self.state.close()

