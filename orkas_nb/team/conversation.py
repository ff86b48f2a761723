"""The user's side of a team conversation (seed 003 §3): routing, the floor, hand-back, resume.

A user message goes to ``@name`` when it starts so, else to the floor holder (the commander
unless it handed the floor off). The commander's turn is one harness run; a ``hand_off_to``
call in it passes the floor and ends the turn (no synthesis): the agent then answers the user
itself, in the same :meth:`Conversation.run`. A floor holder's reply ending in a real
``<handback />`` returns the floor; if the ledger still holds unfinished work, the commander
resumes it at once.

The commander's own ledger tasks are the user's requests: created when a message reaches it,
finished when its turn ends, ``waiting`` while the floor is away (that is the unfinished work
it resumes when the floor returns, after a kernel restart too: the floor holder and the ledger
are on disk, and the next cell continues), interrupted by a stop or by a kill mid-turn (then the
commander is told on the bus, see :mod:`.state`, and decides; nothing re-runs by itself).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from ..core.events import Done, MemberEvent, RunEvent, RunResult
from ..core.messages import Usage
from .bus import COMMANDER, SYSTEM, USER, BusMessage
from .ledger import Task, cap

if TYPE_CHECKING:
    from .runtime import Team

_END = object()
HANDBACK_RULE = ("When your part is over, end your last message with <handback /> on a line of "
                 "its own: the floor then returns to the commander.")


class Conversation:
    """Runs the user's turns of one :class:`~.runtime.Team`."""

    def __init__(self, team: Team) -> None:
        self.team = team
        self._busy = False
        self._handoff: tuple[str, BusMessage] | None = None
        self._request = ""  # the user's message the running turn answers

    async def run(self, text: str) -> AsyncIterator[RunEvent]:
        team, state = self.team, self.team.state
        if self._busy:
            raise RuntimeError("the team is already running a turn; use steer() to add to it")
        route = state.route_user_message(text, team.names)  # an unknown @name raises here
        self._busy = True
        team.clear_stop()
        queue: asyncio.Queue[object] = asyncio.Queue()
        unsubscribe = team.subscribe(queue.put_nowait)
        driver = asyncio.ensure_future(self._turn(route.member, route.text))
        driver.add_done_callback(lambda _: queue.put_nowait(_END))
        usage = Usage()
        try:
            while (event := await queue.get()) is not _END:
                inner = event.event if isinstance(event, MemberEvent) else None
                if isinstance(inner, Done):
                    usage = usage + inner.result.usage
                yield event  # type: ignore[misc]
            answerer, result = driver.result()
            usage = usage + result.usage if answerer == COMMANDER else usage
            yield Done(agent=answerer, result=result.model_copy(update={"usage": usage}))
        finally:
            unsubscribe()
            if not driver.done():  # the consumer went away: the group stops, sessions stay valid
                team.stop("the consumer stopped reading")
                with contextlib.suppress(BaseException):
                    await driver
            self._busy = False

    async def _turn(self, member: str, text: str) -> tuple[str, RunResult]:
        bus = self.team.state.bus
        self._request = text
        message = bus.post(USER, text, visible_to={USER, member}, kind="chat", to=member)
        if member != COMMANDER:
            return await self._floor_turn(member, message, intro="The user says")
        result = await self._commander_turn(message, intro="The user says")
        if self._handoff is not None and result.stop_reason != "cancelled":
            name, note = self._handoff
            self._handoff = None
            return await self._floor_turn(name, note, intro="The commander hands you the floor")
        self._handoff = None
        return COMMANDER, result

    async def _commander_turn(self, message: BusMessage, *, intro: str) -> RunResult:
        team, ledger = self.team, self.team.state.ledger
        # The requests left open while the floor was away (in this process or before a
        # restart: ``waiting`` survives one) are resumed by this turn, and settled with it.
        earlier = [ledger.start(t.id) if t.status == "waiting" else t
                   for t in ledger.unfinished() if t.assignee == COMMANDER]
        tasks: list[Task] = list(earlier)
        if message.sender == USER:
            tasks.append(ledger.start(ledger.create(COMMANDER, message.text, requester=USER).id))
        prompt = team.prompt_for(COMMANDER, message, intro=intro)
        if earlier:
            prompt += ("\n\nUnfinished work in the task ledger (resume it, or say why it is "
                       "done):\n" + "\n".join(f"- {t.id}: {t.text}" for t in earlier))
        result: RunResult | None = None
        # after a plan's commander wake-up (from an earlier team over this state) has ended
        async with team.state.commander_lock:
            abort = team.commander_abort()
            async for event in team.commander.run(prompt, abort=abort):
                if isinstance(event, Done):
                    result = event.result  # the conversation's own done ends the stream
                else:
                    team.emit(event)
        assert result is not None
        if result.text:
            team.state.bus.post(COMMANDER, result.text, visible_to={USER}, kind="chat", to=USER)
        self._settle(tasks, result, away=self._handoff is not None)
        return result

    def _settle(self, tasks: list[Task], result: RunResult, *, away: bool) -> None:
        ledger = self.team.state.ledger
        for task in tasks:
            if result.stop_reason == "cancelled":
                ledger.interrupt(task.id, self.team.stop_reason or "stopped")
            elif result.stop_reason == "error":
                ledger.fail(task.id, result.error.message if result.error else "the run failed")
            elif away:  # the request stays open while the floor is away, to be resumed
                ledger.wait(task.id, f"the floor is with {ledger.floor.holder}")
            else:
                ledger.finish(task.id, cap(result.text, self.team.summary_chars),
                              result.output_files)

    async def _floor_turn(self, member: str, message: BusMessage, *,
                          intro: str) -> tuple[str, RunResult]:
        team, state = self.team, self.team.state
        name = team.definition(member).name
        async with state.member_lock(name):
            prompt = team.prompt_for(name, message, intro=intro)
            if state.ledger.floor.holder == name:
                prompt += "\n\n" + HANDBACK_RULE
            result = await team.run_member(team.member(name), name, prompt, message.id,
                                           lane="floor", visible=True)
        reply = state.read_reply(name, result.text)
        state.bus.post(name, reply.text or f"({result.stop_reason})", visible_to={USER, name},
                       kind="chat", to=USER)
        result = result.model_copy(update={"text": reply.text})
        if not reply.handed_back or result.stop_reason == "cancelled":
            return name, result
        unfinished = state.ledger.unfinished()
        if not unfinished:
            return name, result
        notice = state.bus.post(
            SYSTEM, f"{name} handed the floor back to you.", visible_to={COMMANDER},
            kind="system", to=COMMANDER)
        resumed = await self._commander_turn(notice, intro="The floor is back with you")
        return COMMANDER, resumed

    def hand_off(self, agent: str, message: str = "") -> str:
        """Pass the floor to ``agent`` (the ledger first, then the bus); it answers next."""
        state = self.team.state
        name = self.team.definition(agent).name
        state.pass_floor(name, by=COMMANDER, reason=message)
        text = "\n".join(part for part in (
            ("You have the floor: answer the user directly; their messages without @name now "
             "come to you."),
            f"From the commander: {message}" if message else "",
            f"The user's request: {self._request}" if self._request else "",
        ) if part)
        note = state.bus.post(COMMANDER, text, visible_to={COMMANDER, name}, kind="chat", to=name)
        self._handoff = (name, note)
        return (f"The floor is with {name}; it answers the user now and hands the floor back "
                f"with <handback /> when done. Your turn ends here.")

