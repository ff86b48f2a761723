"""The composition root of a team: an :class:`~orkas_nb.Agent` becomes the commander.

``build_team(agent)`` loads the workspace's agent definitions (``.orkas/agents/*.md`` and the
user's folder); when any exist, the same agent gets the commander's tools and prompt section
and is returned inside a :class:`~orkas_nb.team.runtime.Team` whose members are built by
``agent.member_factory()`` (shared provider pool, services, approver, tools)::

    team = build_team(Agent("openai/gpt-4o-mini", workspace="."))
    result = await team.arun("compare the two reports")   # or: async for event in team.run(...)

Without definitions nothing changes for single-agent use: :func:`team_for` returns None and
:func:`build_team` refuses with the problems it found.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.errors import ConfigError

if TYPE_CHECKING:
    from ..team.definitions import AgentDefinition
    from ..team.front_matter import Problem
    from ..team.runtime import Team
    from ..team.state import TeamState
    from .agent import Agent

__all__ = ["build_team", "team_for"]


def team_for(
    agent: Agent,
    *,
    conversation: str = "default",
    definitions: Sequence[AgentDefinition] | None = None,
    state: TeamState | None = None,
    user_dir: str | Path | None = None,
    durable: bool = True,
) -> Team | None:
    """The team ``agent`` commands, or None when no agent is defined (nothing changes)."""
    team, _ = _build(agent, conversation, definitions, state, user_dir, durable)
    return team


def build_team(
    agent: Agent,
    *,
    conversation: str = "default",
    definitions: Sequence[AgentDefinition] | None = None,
    state: TeamState | None = None,
    user_dir: str | Path | None = None,
    durable: bool = True,
) -> Team:
    """Like :func:`team_for`, but a workspace without agents is a :class:`ConfigError`.

    ``state`` None keeps the conversation in ``<workspace>/.orkas/teams/<conversation>/``
    (``TeamState.in_memory()`` for none on disk).
    """
    team, problems = _build(agent, conversation, definitions, state, user_dir, durable)
    if team is None:
        found = "".join(f"\n  {p.path}: {p.field}: {p.message}" for p in problems)
        raise ConfigError(f"no agent is defined for {agent.workspace}: add one with "
                          f"'%agent agents new NAME' (a file in .orkas/agents/)" + found)
    return team


def _build(agent: Agent, conversation: str, definitions: Sequence[AgentDefinition] | None,
           state: TeamState | None, user_dir: str | Path | None,
           durable: bool) -> tuple[Team | None, list[Problem]]:
    from ..team.commander_tools import commander_prompt, commander_tools
    from ..team.definitions import load_agent_definitions
    from ..team.factory import MemberSpec
    from ..team.runtime import Team
    from ..team.skill_save import SaveSkill
    from ..team.state import TeamState

    problems: list[Problem] = []
    if definitions is None:
        definitions, problems = load_agent_definitions(
            agent.workspace, user_dir, known_tools=agent.tools.names())
    if not definitions:
        return None, problems
    # A worker is the commander's own hand: its prompt and tools, not the commander's role.
    worker = MemberSpec(name="worker", system_prompt=agent.system_prompt)
    from .factory import TeamFactory

    # A definition naming a program (``command:``) is an external agent (agent/external.py).
    members = agent.member_factory(definitions)
    team = Team(agent, TeamFactory(members, agent), definitions,
                state=state if state is not None else TeamState(agent.workspace, conversation,
                                                                 durable=durable),
                worker=worker)
    from .evolution_wiring import wire_evolution

    members.evolution = wire_evolution(team, agent, definitions)
    for t in commander_tools(team):
        agent.tools.add(t)
    if "save_skill" not in agent.tools:  # a bash solution kept as a skill, with the user's consent
        agent.tools.add(SaveSkill(agent.workspace, approver=agent._parts.approver))
    from ..team.plan_tools import PLAN_PROMPT
    from .plan import plan_for

    plan_for(team, agent)  # the plan executor (team.plan) and the commander's plan tools
    _add_prompt_section(agent, f"{commander_prompt(definitions)}\n\n{PLAN_PROMPT}")
    agent.name = agent.runner.name = "commander"
    return team, problems


def _add_prompt_section(agent: Agent, section: str) -> None:
    frozen = agent._prompt  # the memory's frozen prompt, when memory is on
    if frozen is not None:
        frozen.base = f"{frozen.base}\n\n{section}"
    else:
        agent.runner.system_prompt = f"{agent.system_prompt}\n\n{section}"
