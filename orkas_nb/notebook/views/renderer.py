"""The renderer protocol: every view of a run consumes the same event stream (STYLE: rich).

A renderer is told when a run starts, receives every :data:`~orkas_nb.core.events.RunEvent`
in order, and is told when the run has ended (after the session record is saved). The text
renderer, the live widget renderer, the labextension's run view and the static transcript
writer are siblings behind this one protocol; the magic picks one and never special-cases.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from pydantic import BaseModel

from ...core.events import RunEvent, RunResult

if TYPE_CHECKING:  # the Agent facade imports the whole engine
    from ...agent import Agent
    from ...harness.approval import ApproverLike
    from ...harness.cancellation import AbortSignal
    from ...team.runtime import Team


class RunInfo(BaseModel):
    """What a view needs to know before the first event."""

    agent: str = "agent"
    model: str = ""
    session: str = ""
    workspace: str = ""
    prompt: str = ""
    # A team's member that holds the floor (the user's next cell goes to it); None: the
    # commander, or no team. The cell updates it when the run passed the floor.
    floor: str | None = None
    # A team's members and the model each one's agent file names (a lane is priced at it when
    # its run did not say which model answered).
    members: dict[str, str] = {}


class Renderer(Protocol):
    def start(self, info: RunInfo) -> None: ...

    def render(self, event: RunEvent) -> None: ...

    def finish(self, result: RunResult) -> None: ...


class Controls(Protocol):
    """What a view may ask of the run it shows (Stop button, steer box, approvals)."""

    def stop(self, reason: str = "stopped by the user") -> None: ...

    def steer(self, text: str) -> bool: ...

    def answer_approval(self, request_id: str, answer: str) -> None: ...


class RunControls:
    """The :class:`Controls` of one run of an :class:`~orkas_nb.Agent` (every view uses it).

    ``agent`` is what a steer goes to: the agent, or its team (the floor holder's running turn,
    else the commander's). ``stop`` raises the run's abort signal, the one path every stop takes
    (a team's run stops the whole group on it); ``steer`` queues a message folded in at the next
    tool boundary and returns False when the run has already ended (a click can race the end);
    ``answer_approval`` answers a pending prompt of the run's approver.
    """

    def __init__(self, agent: Agent | Team, abort: AbortSignal, approver: ApproverLike | None = None) -> None:
        self.agent = agent
        self.abort = abort
        self.approver = approver

    def stop(self, reason: str = "stopped by the user") -> None:
        self.abort.abort(reason)

    def steer(self, text: str) -> bool:
        try:
            self.agent.steer(text)
        except RuntimeError:  # no turn is running any more
            return False
        return True

    def answer_approval(self, request_id: str, answer: str) -> None:
        answer_fn = getattr(self.approver, "answer", None)
        if answer_fn is None:
            raise LookupError("this run has no approver to answer")
        answer_fn(request_id, answer)


def fan_out(renderers: list[Renderer]) -> Renderer:
    """One renderer that forwards to several (e.g. the live view and the transcript writer)."""

    class _FanOut:
        def start(self, info: RunInfo) -> None:
            for r in renderers:
                r.start(info)

        def render(self, event: RunEvent) -> None:
            for r in renderers:
                r.render(event)

        def finish(self, result: RunResult) -> None:
            for r in renderers:
                r.finish(result)

    return _FanOut()


__all__ = ["RunInfo", "Renderer", "Controls", "RunControls", "fan_out"]
