"""What the reverse gateway serves to one external agent's run: its skills, the knowledge base,
the approved connectors (:mod:`.external` has the rules). Each handler reuses the path the
agent's own tools take — the skill loader, the one sandboxed bash executor, the knowledge base's
search, the connectors' tools with their per-(agent, connector) confirmation — with the external
agent's name as the caller, so approvals show who asks.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from typing import TYPE_CHECKING, Any

from ..connectors.gateway import GatewayReply, GatewayTool

if TYPE_CHECKING:
    from ..team.skills import Skill
    from .external import ExternalMember

__all__ = ["gateway_tools"]

_OBJ = {"type": "object", "additionalProperties": False}


def _allowed_skills(member: ExternalMember) -> list[Skill]:
    from ..team.skill_tool import skills_for_agent
    from .skills_wiring import discover

    found, _ = discover(member.workspace, open_tier=False)
    if member.definition.skills:
        return skills_for_agent(member.definition, found)[0]
    return [s for s in found if not s.open_tier]


def gateway_tools(member: ExternalMember, abort: Any) -> list[GatewayTool]:
    """The tools of one run (``abort``: the run's signal, which "for this run" grants follow)."""
    from ..harness.tool_protocol import ToolContext

    skills = {s.name: s for s in _allowed_skills(member)}
    calls = itertools.count(1)
    services = {"approver": member.approver()}
    state: dict[str, Any] = {}

    def ctx() -> ToolContext:
        return ToolContext(workspace=member.workspace, abort=abort, agent=member.name,
                           call_id=f"gateway-{next(calls)}", services=services)

    def skill(args: dict[str, Any]) -> Skill:
        name = args.get("name")
        if name not in skills:
            raise ValueError(f"no skill {name!r} here; skills: {', '.join(skills) or 'none'}")
        return skills[name]

    async def list_skills(args: dict[str, Any]) -> GatewayReply:
        return GatewayReply(json.dumps([{"name": s.name, "description": s.description, "tier": s.tier}
                                        for s in skills.values()], ensure_ascii=False))

    async def read_skill(args: dict[str, Any]) -> GatewayReply:
        from ..team.skill_tool import load_skill

        out = await asyncio.to_thread(load_skill, skill(args))
        return GatewayReply(out.text, out.is_error)

    async def run_skill(args: dict[str, Any]) -> GatewayReply:
        chosen = skill(args)
        command = args.get("command")
        if not isinstance(command, str) or not command.strip():
            return GatewayReply("command: a bash command line is needed (see read_skill)", True)
        bash = _bash(member, [chosen.folder])
        out = await bash.execute({"command": command, "env": {"SKILL_DIR": str(chosen.folder)}},
                                 ctx())
        return GatewayReply(out.text, out.is_error)

    async def search_knowledge(args: dict[str, Any]) -> GatewayReply:
        from ..memory import format_hits

        kb = _knowledge(member)
        if kb is None:
            return GatewayReply("this workspace has no knowledge base", True)
        query, k = str(args.get("query", "")), int(args.get("k", 5) or 5)
        hits = await asyncio.to_thread(kb.search, query, max(1, min(k, 20)))
        return GatewayReply(format_hits(hits))

    async def connectors() -> dict[str, Any]:
        if "connectors" not in state:
            from ..connectors import connector_tools

            found, _ = await asyncio.to_thread(connector_tools, member.workspace, [],
                                               approver=member.approver())
            state["connectors"] = {t.name: t for t in found}
        return state["connectors"]  # type: ignore[no-any-return]

    async def list_connectors(args: dict[str, Any]) -> GatewayReply:
        tools = await connectors()
        return GatewayReply(json.dumps([{"name": t.name, "description": t.description,
                                         "input_schema": t.input_schema} for t in tools.values()]))

    async def call_connector(args: dict[str, Any]) -> GatewayReply:
        tools = await connectors()
        tool = tools.get(str(args.get("tool")))
        if tool is None:
            return GatewayReply(f"no connector tool {args.get('tool')!r}; tools: {', '.join(tools) or 'none'}",
                                True)
        out = await tool.execute(dict(args.get("arguments") or {}), ctx())
        # handed on as the server gave them: images stay images, structured content stays JSON
        return GatewayReply(out.text, bool(out.is_error or out.denied),
                            images=[(i.media_type, i.data) for i in out.images],
                            structured=out.structured)

    name = {"name": {"type": "string", "description": "the skill's name (list_skills)"}}
    return [
        GatewayTool("list_skills", "The skills of this workspace you may use.", {**_OBJ, "properties": {}},
                    list_skills),
        GatewayTool("read_skill", "A skill's instructions and the files bundled with it.",
                    {**_OBJ, "properties": name, "required": ["name"]}, read_skill),
        GatewayTool("run_skill", "Run a bash command for a skill, in the workspace's sandbox; the "
                    "skill's folder is $SKILL_DIR (read-only). Risky commands ask the user.",
                    {**_OBJ, "properties": {**name, "command": {"type": "string"}},
                     "required": ["name", "command"]}, run_skill),
        GatewayTool("search_knowledge", "Search the workspace's knowledge base; passages with "
                    "their file and lines.", {**_OBJ, "properties": {
                        "query": {"type": "string"}, "k": {"type": "integer"}},
                        "required": ["query"]}, search_knowledge),
        GatewayTool("list_connectors", "The connector (MCP server) tools you may call.",
                    {**_OBJ, "properties": {}}, list_connectors),
        GatewayTool("call_connector", "Call a connector tool; the user confirms calls to each "
                    "connector.", {**_OBJ, "properties": {"tool": {"type": "string"},
                                                          "arguments": {"type": "object"}},
                                   "required": ["tool"]}, call_connector),
    ]


def _bash(member: ExternalMember, readonly: list[Any]) -> Any:
    from .assembly import assemble_tools

    parts = member.parent._parts
    tools = assemble_tools(member.workspace, services=parts.services,
                           allowed_paths=parts.allowed_paths, approver=member.approver(),
                           settings=parts.tool_settings, readonly_paths=readonly,
                           connectors=False)
    return next(t for t in tools if t.name == "bash")


def _knowledge(member: ExternalMember) -> Any:
    from .assembly import workspace_knowledge

    parts = member.parent._parts
    if parts.knowledge is False:
        return None
    if parts.knowledge not in (None, True):
        return parts.knowledge
    return workspace_knowledge(member.workspace, parts.kb_embedder)
