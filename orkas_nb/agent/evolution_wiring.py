"""Self-evolution into a team (SPEC §13): the composition root's part.

The team layer's :class:`~orkas_nb.team.evolution.Evolution` gets what only this layer may
reach: the memory-write guard (every evolved text passes it), the model resolver (the cheap
reflection model of the settings; else the commander's own model), the skills of every other
library (names a reflection may never write). Then

- each run of a named member (a dispatch or a floor turn, never the commander's turn, never a
  worker's) is observed through the team's event stream, its signals stored when it ends, and
  a reflection started in the background when one is due;
- each file a run's file tools write is claimed by its agent (hash kept), so the user's edit
  of it before that agent's next run is a correction signal (:mod:`..team.evolution.edits`);
- each named member is built with its private library after its definition's skills, and a
  notice at the start of its next run when a reflection (or an undo) changed a skill.

Nothing is wired while the workspace's switch is off, so evolution costs nothing by default.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..team.definitions import AgentDefinition
    from ..team.evolution import Evolution
    from ..team.runtime import Team
    from .agent import Agent

log = logging.getLogger(__name__)

__all__ = ["evolution_for", "member_skills", "skill_guard", "wire_evolution"]


def skill_guard(text: str) -> str | None:
    """The memory-write guard's verdict on an evolved text: its reason, or None to store it.
    A doubtful text is refused too: no user is asked during a background reflection."""
    from ..memory.guard import scan
    from ..team.evolution.library import MAX_SKILL_CHARS

    # A skill is orders to the assistant by design: the guard reads it as such (kind="skill").
    verdict = scan(text, kind="skill", max_chars=MAX_SKILL_CHARS)
    if not verdict.ok:
        return verdict.reason
    if verdict.ask:
        return "the text is doubtful (" + "; ".join(verdict.doubts)[:300] + ")"
    return None


def _other_skills(workspace: Path) -> dict[str, str]:
    from .skills_wiring import discover

    found, _ = discover(workspace, open_tier=True)
    return {s.name: f"{s.root.label} ({s.tier} library)" for s in found}


def reflection_meter(provider: Any, model: str) -> Any:
    """A reflection's cost meter at the catalog's list price of ``model`` (the provider's
    catalog, with its overrides), or None when the price is unknown: never a guessed $0."""
    from ..providers.catalog import RunningCost, catalog_of

    running = RunningCost(catalog_of(provider))
    if running.catalog.priced(model) is None:
        return None
    return lambda usage: running(model, usage)


def evolution_for(agent: Agent, definitions: Sequence[AgentDefinition] = (), *,
                  clock: Any = None) -> Evolution:
    """The workspace's evolution as ``agent`` (the commander) would run it."""
    from ..team.evolution import Evolution

    ws = agent.workspace
    kwargs: dict[str, Any] = {} if clock is None else {"clock": clock}
    return Evolution(ws, guard=skill_guard, default_model=(agent.provider, agent.model),
                     resolve=agent.pool.resolve_pair, other_skills=lambda: _other_skills(ws),
                     descriptions={d.name: d.description for d in definitions},
                     meter=reflection_meter, **kwargs)


def member_skills(workspace: Path, names: Sequence[str], agent: str, open_tier: bool | None) -> Any:
    """A named member's skills: its definition's, then its private library's."""
    from ..team.evolution.store import AgentStore
    from ..team.skills import SkillRoot
    from .skills_wiring import agent_skills

    store = AgentStore(workspace, agent)
    root = SkillRoot(path=store.skills_dir, tier="private", label=f"{agent}'s private library")
    return agent_skills(workspace, tuple(names), open_tier=open_tier, private=root)


class _Notices(list):  # type: ignore[type-arg]
    """The runner's start-of-turn notices plus, once, what evolution changed since."""

    def __init__(self, base: list[tuple[str, str]], evolution: Evolution, agent: str) -> None:
        super().__init__(base)
        self.evolution, self.agent = evolution, agent

    def __iter__(self) -> Iterator[tuple[str, str]]:
        yield from list.__iter__(self)
        changed = self.evolution.take_notices(self.agent)
        if changed:
            yield ("skills_evolved", (f"{self.agent}'s skills changed since its last run "
                                      f"(self-evolution): {', '.join(changed)}; see "
                                      f"%agent evolve log {self.agent}"))


def wire_evolution(team: Team, agent: Agent, definitions: Sequence[AgentDefinition]) -> Evolution | None:
    """Observe the team's named members (see the module doc); None while the switch is off."""
    from ..core.events import Done, MemberEvent
    from ..team.evolution import load_settings

    if not load_settings(agent.workspace).enabled:
        return None
    evolution = evolution_for(agent, definitions)
    named = {d.name for d in definitions}
    observers: dict[str, Any] = {}

    def listen(event: Any) -> None:
        try:
            _listen(event)
        except Exception:  # evolution must never break a member's run
            log.exception("self-evolution could not observe an event of %s",
                          getattr(event, "member", "?"))

    def _listen(event: Any) -> None:
        _claim(evolution, event)
        if not isinstance(event, MemberEvent) or event.member not in named or event.lane == "worker":
            return
        key = event.task_id
        if key not in observers:
            observers[key] = evolution.observer(event.member, _request(team, key), key)
        observer = observers[key]
        if observer is None:
            if isinstance(event.event, Done):
                observers.pop(key, None)
            return
        observer.observe(event.event)
        if isinstance(event.event, Done):
            observers.pop(key, None)
            evolution.after_run(event.member, observer)

    team.subscribe(listen)
    team.evolution = evolution  # type: ignore[attr-defined]
    return evolution


def _claim(evolution: Evolution, event: Any) -> None:
    """Files a run's file tools wrote belong to that run's agent (a worker's to nobody's
    lane but its own; outside a member, the commander's turn), so that a user's later edit is
    a correction of the right agent, and a write by another run takes the file over."""
    from ..core.events import MemberEvent, ToolEnd
    from ..team.bus import COMMANDER

    inner = event.event if isinstance(event, MemberEvent) else event
    if not isinstance(inner, ToolEnd) or inner.status != "ok" or not inner.output_files:
        return
    if not isinstance(event, MemberEvent):
        writer = COMMANDER
    else:
        writer = event.member if event.lane != "worker" else f"{event.member} (worker)"
    evolution.wrote(writer, list(inner.output_files))


def _request(team: Team, key: str) -> str:
    """The request a member run answers: its ledger task's text, or the user's bus message."""
    task = team.state.ledger.get(key)
    if task is not None:
        return task.text
    return next((m.text for m in reversed(team.state.bus.messages) if m.id == key), "")


def notices_for(member: Any, evolution: Evolution, name: str) -> None:
    """Give a built member the one-time notice of evolved skills."""
    runner = getattr(member, "runner", None)
    if runner is not None:
        runner.notices = _Notices(list(runner.notices), evolution, name)
