"""How the team layer gets its agents: a factory the composition root hands it (SPEC §2).

``team`` sits below ``agent``, so it never builds an :class:`~orkas_nb.Agent` itself: it
describes a member (:class:`MemberSpec`, what ``.orkas/agents/<name>.md`` will hold) and asks an
:class:`AgentFactory` for it. The concrete factory (:class:`orkas_nb.agent.factory.MemberFactory`)
builds members as every agent is built, through the parent's provider pool and tool assembly,
sharing its workspace, services and approver; a test hands in a double.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from ..core.events import RunEvent, RunResult
    from ..core.messages import UserMessage
    from ..harness.cancellation import AbortSignal
    from ..harness.session import Session

__all__ = ["AgentFactory", "MemberSpec", "TeamMember"]


class MemberSpec(BaseModel):
    """One member of a team: what the factory needs to build its agent.

    ``model`` None runs the parent's model; ``tools`` None gives the member every tool the
    parent's assembly gives an agent, a list only those names (an unknown name is an error);
    ``session`` None keeps the member's conversation in memory, a name in the workspace's
    session folder. ``skills`` are the names of the skills it may use (its definition's); an
    open-tier skill is never given to a member, even when listed.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    # As an agent file may name it (definitions.AGENT_NAME): it becomes a bus member.
    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
    model: str | None = None
    system_prompt: str | None = None
    tools: tuple[str, ...] | None = None
    max_steps: int | None = Field(default=None, ge=1)
    session: str | None = None
    skills: tuple[str, ...] = ()


@runtime_checkable
class TeamMember(Protocol):
    """What the team layer does with a built member: run it, stream it, stop it (``prompt``
    None: continue its session from the results it ends with, as ``Runner.run``)."""

    name: str

    def run(self, prompt: str | UserMessage | None, *,
            abort: AbortSignal | None = None) -> AsyncIterator[RunEvent]: ...

    async def arun(self, prompt: str | UserMessage | None, *,
                   abort: AbortSignal | None = None) -> RunResult: ...

    def stop(self, reason: str = "stopped by the user") -> None: ...


class AgentFactory(Protocol):
    """Builds the agent of a member spec. Cheap to call (providers and transports are shared),
    so a commander may build a member per dispatched task. ``session``, when given, is the
    member's conversation (a team passes the one its state keeps per member); it wins over
    ``spec.session``."""

    def __call__(self, spec: MemberSpec, *, session: Session | None = None) -> TeamMember: ...
