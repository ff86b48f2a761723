"""The team layer's agent factory: members built as every agent is built.

:class:`MemberFactory` is the :class:`~orkas_nb.team.factory.AgentFactory` the composition root
hands the team layer. A member is a full :class:`~orkas_nb.Agent` (its own system prompt,
tools, steps and session; each dispatched task a complete run of the harness) that shares its
parent's provider pool (so providers, connections and cooldowns), workspace, services,
approver, allowed folders, tool settings, extra tools and memory switches.

A member naming a model of its own resolves it through that pool with the parent's provider
options, less those tied to the parent's own server and key (``api_key``, ``api_keys``,
``token_source``, ``base_url``, ``client``) or file (``record``), as the registry does for
fallbacks; a member without one runs the parent's provider and model.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ..core.errors import ConfigError

if TYPE_CHECKING:
    from ..harness.session import Session
    from ..team.definitions import AgentDefinition
    from ..team.evolution import Evolution
    from ..team.factory import MemberSpec, TeamMember
    from .agent import Agent

__all__ = ["MemberFactory", "TeamFactory"]

_WORKSPACE_TOOL_MODULES = ("orkas_nb.tools.",)  # what default_tools builds
_OWN_TO_PARENT = ("api_key", "api_keys", "token_source", "base_url", "client", "record")


class MemberFactory:
    """Builds the members of ``parent``'s team (an ``AgentFactory``: call it with a spec)."""

    def __init__(self, parent: Agent, definitions: Iterable[AgentDefinition] = ()) -> None:
        self.parent = parent
        # The team's named agents: their members get their private library.
        self.definitions: dict[str, AgentDefinition] = {d.name: d for d in definitions}
        # The team's self-evolution (None: off); the team's composition root (.team) sets it
        # once the team exists, as evolution observes the team's events.
        self.evolution: Evolution | None = None

    def __call__(self, spec: MemberSpec, *, session: Session | None = None) -> Agent:
        p, parts = self.parent, self.parent._parts
        config = p.runner.config
        if spec.max_steps is not None:
            config = dataclasses.replace(config, max_steps=spec.max_steps)
        if spec.model is None:
            model, model_name, options = p.provider, p.model, {}
        else:
            model, model_name = spec.model, None
            options = {k: v for k, v in parts.provider_options.items() if k not in _OWN_TO_PARENT}
        tools, default_tools = _without_prebuilt_workspace_tools(parts.tools, parts.default_tools)
        named = self.definitions.get(spec.name)
        skills: Any = tuple(spec.skills) or (tuple(named.skills) if named is not None else ())
        if named is not None:
            from .evolution_wiring import member_skills

            skills = member_skills(p.workspace, skills, spec.name, parts.open_tier_skills)
        member = type(p)(  # the parent's class: no import of .agent, which imports this module
            model, model_name=model_name, pool=p.pool, workspace=p.workspace,
            session=session if session is not None else spec.session, tools=tools,
            default_tools=default_tools,
            system_prompt=spec.system_prompt, name=spec.name, config=config,
            services=parts.services, allowed_paths=parts.allowed_paths, approver=parts.approver,
            tool_settings=parts.tool_settings, memory=parts.memory, knowledge=parts.knowledge,
            kb_embedder=parts.kb_embedder, skills=skills,
            open_tier_skills=parts.open_tier_skills, **options,
        )
        if spec.tools is not None:
            unknown = sorted(set(spec.tools) - set(member.tools.names()))
            if unknown:
                member.close()
                raise ConfigError(f"member {spec.name!r} asks for tools its team does not have: "
                                  f"{', '.join(unknown)} (known: {', '.join(member.tools.names())})")
            # The skill tool comes with the member's skills, not from its tool list.
            keep = {member.skills.tool.name} if member.skills.tool is not None else set()
            for name in member.tools.names():
                if name not in spec.tools and name not in keep:
                    member.tools.remove(name)
        if named is not None and self.evolution is not None:
            from .evolution_wiring import notices_for

            notices_for(member, self.evolution, spec.name)
        return member


class TeamFactory:
    """The factory a team builds its members with: a definition that names a program
    (``command:``) becomes an :class:`~.external.ExternalMember`, any other spec an agent built
    by ``agents`` (a :class:`MemberFactory`)."""

    def __init__(self, agents: MemberFactory, parent: Agent) -> None:
        self.agents = agents
        self.parent = parent
        self.external: dict[str, AgentDefinition] = {
            name: d for name, d in agents.definitions.items() if d.command}

    def __call__(self, spec: MemberSpec, *, session: Session | None = None) -> TeamMember:
        definition = self.external.get(spec.name)
        if definition is not None:
            from .external import ExternalMember

            return ExternalMember(definition, self.parent)
        return self.agents(spec, session=session)


def _without_prebuilt_workspace_tools(
    tools: Sequence[Any], default_tools: bool
) -> tuple[tuple[Any, ...], bool]:
    """The parent's tools less the workspace tools a caller built for it (the notebook builds
    them once per session), and whether the member must build its own.

    Workspace tools carry their agent's read-only folders, those of the skills it may use; the
    parent (the commander) may read the open tier's, a member never may, so a member builds
    workspace tools for its own skills instead of inheriting the parent's.
    """
    kept = tuple(t for t in tools if not _origin(t).startswith(_WORKSPACE_TOOL_MODULES))
    return kept, default_tools or len(kept) < len(tools)


def _origin(tool: Any) -> str:
    """The module a tool's code comes from (a FunctionTool's function, else its class)."""
    return str(getattr(getattr(tool, "fn", None), "__module__", None) or type(tool).__module__)
