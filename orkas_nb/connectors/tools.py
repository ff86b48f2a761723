"""MCP tools as agent tools: one :class:`McpTool` per server tool, and the wiring that gives an
agent the tools of every configured server the user approved (:func:`connector_tools`).

A server's annotations (read-only, destructive) are the server's claims, not guarantees: they
are shown to the user, and every call still asks once per (agent, connector) — *this time*,
*for this run*, *always* (remembered in the consent store) or *deny*. A call's result carries
its text, its images (as image blocks, which the harness moves for text-only providers) and its
structured content (as JSON), cut to :data:`OUTPUT_CAP` characters like the workspace tools'
output, and is marked untrusted (content from outside).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..core.messages import ImageBlock
from ..harness.approval import ApprovalGate, ApprovalRequest, Decision
from ..harness.tool_protocol import ToolContext, ToolOutput
from . import names
from .config import ServerConfig
from .consent import ConsentStore, tools_hash
from .runtime import Server, ServerUnavailable, manager

log = logging.getLogger("orkas_nb.connectors")
OUTPUT_CAP = 30_000  # characters, as the workspace tools' default output cap
MAX_IMAGES = 8
_GATE = ApprovalGate()  # remembers "for this run" per run (the run's abort signal)


class McpTool:
    """One tool of one MCP server, as the agent's tool protocol wants it."""

    read_only = False  # annotations are hints: never run alongside other calls on their word
    concurrency_safe = False
    untrusted_output = True

    def __init__(self, server: Server, tool: Any, name: str, *, approver: Any = None,
                 consent: ConsentStore | None = None) -> None:
        self.server = server
        self.remote_name = tool.name
        self.name = name
        hints = _hints(tool)
        self.description = (f"[MCP server {server.config.name!r}{hints}] "
                            f"{tool.description or tool.title or tool.name}")[:1024]
        schema = tool.input_schema if isinstance(tool.input_schema, dict) else {}
        self.input_schema = schema or {"type": "object", "properties": {}}
        self._hints = hints
        self._approver = approver
        self._consent = consent or ConsentStore()

    def __repr__(self) -> str:
        return f"<mcp tool {self.name}>"

    async def execute(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        connector = self.server.config.name
        if not await self._allowed(arguments, ctx):
            return ToolOutput(text=f"The user did not allow {ctx.agent!r} to call the MCP "
                              f"server {connector!r}; nothing was sent to it.", denied=True)
        try:
            result = await manager().call(self.server, self.remote_name, arguments)
        except ServerUnavailable as exc:
            log.warning("MCP server %r unavailable", connector)
            return ToolOutput(text=str(exc), is_error=True)
        return to_output(result)

    async def _allowed(self, arguments: dict[str, Any], ctx: ToolContext) -> bool:
        connector = self.server.config.name
        if self._consent.always(ctx.agent, connector):
            return True
        approver = self._approver or ctx.services.get("approver")
        shown = json.dumps(arguments, ensure_ascii=False)[:400]
        request = ApprovalRequest(
            kind="connector", category="mcp_call", tool=self.name, agent=ctx.agent,
            call_id=ctx.call_id, subject=f"{connector}.{self.remote_name}({shown})",
            reasons=[f"a call to the MCP server {connector!r} may act outside this workspace"
                     + (f"; the server describes this tool as {self._hints.strip('; ')}"
                        if self._hints else "")],
            scope_key=f"mcp:{ctx.agent}:{connector}",
            scope_text=f"{ctx.agent} → {connector}")
        decision = await _GATE.ask(request, run=ctx.abort, approver=approver)
        if decision is Decision.ALWAYS:
            self._consent.allow_always(ctx.agent, connector)
        return decision is not Decision.DENY


def _hints(tool: Any) -> str:
    a = getattr(tool, "annotations", None)
    if a is None:
        return ""
    said = [w for w, on in (("read-only", a.read_only_hint), ("destructive", a.destructive_hint),
                            ("open-world", a.open_world_hint)) if on]
    return f"; says: {', '.join(said)}" if said else ""


def to_output(result: Any) -> ToolOutput:
    """A ``CallToolResult`` as a tool output: text, images, structured content, capped."""
    texts: list[str] = []
    images: list[ImageBlock] = []
    for block in result.content or []:
        kind = getattr(block, "type", "")
        if kind == "text":
            texts.append(block.text)
        elif kind == "image" and len(images) < MAX_IMAGES:
            images.append(ImageBlock(data=block.data, media_type=block.mime_type or "image/png"))
        elif kind == "image":
            texts.append(f"[an image beyond the first {MAX_IMAGES} was left out]")
        elif kind == "resource":
            res = block.resource
            body = getattr(res, "text", None)
            texts.append(f"[resource {res.uri}]\n{body}" if body is not None
                         else f"[binary resource {res.uri} ({res.mime_type or 'unknown type'})]")
        elif kind == "resource_link":
            texts.append(f"[resource link {block.uri}: {block.name}]")
        elif kind == "audio":
            texts.append(f"[audio ({block.mime_type}) not shown]")
    structured = getattr(result, "structured_content", None)
    if structured is not None:
        if not any(_same_json(t, structured) for t in texts):  # often sent as text too
            texts.append("structured content: "
                         + json.dumps(structured, ensure_ascii=False, default=str))
    text = "\n".join(texts)
    if len(text) > OUTPUT_CAP:
        text = text[:OUTPUT_CAP] + f"\n[output cut at {OUTPUT_CAP} characters of {len(text)}]"
    return ToolOutput(text=text, images=images, is_error=bool(result.is_error), untrusted=True,
                      structured=structured if isinstance(structured, dict) else None)


def _same_json(text: str, value: Any) -> bool:
    try:
        return bool(json.loads(text) == value)
    except ValueError:
        return False


def tool_dicts(tools: list[Any]) -> list[dict[str, Any]]:
    """The definitions that consent covers (what the model would be told, and the hints)."""
    return [t.model_dump(mode="json", exclude_none=True, include={
        "name", "title", "description", "input_schema", "output_schema", "annotations"})
        for t in tools]


def _connector_entries(workspace: Path, consent: ConsentStore, only: list[str] | None = None
                       ) -> Iterator[tuple[ServerConfig, dict[str, Any] | None]]:
    """Each configured and enabled server (``only``: these names) with its approval record (None:
    not approved), in the configuration's order: the one walk both :func:`connector_tools` and
    :func:`connector_tool_names` make, so that they cannot come to disagree on which servers
    count. A broken configuration raises here, at the call; each record is read as the walk
    reaches its server (after the servers before it have started and recorded their tools)."""
    from . import config as cfg

    servers = cfg.load(workspace)
    return ((server_cfg, consent.record(server_cfg)) for name, server_cfg in servers.items()
            if not server_cfg.disabled and (only is None or name in only))


def connector_tools(workspace: str | Path, taken: list[str], *, approver: Any = None,
                    only: list[str] | None = None,
                    model_notes: list[str] | None = None) -> tuple[list[McpTool], list[str]]:
    """(tools, one-line notices for the user) for every configured, enabled and approved server
    (``only``: these names). A server not approved, whose tools changed since, or that fails to
    start adds a notice and none of its tools; no server starts without approval.

    An approved server that fails to start also adds a line to ``model_notes``, for the model:
    the user chose that server, so the model is told its tools are missing and why (the
    error's text, which names no secret value: the launch never puts one in a message)."""
    workspace = Path(workspace).resolve()
    consent = ConsentStore()
    try:
        entries = _connector_entries(workspace, consent, only)
    except Exception as exc:  # noqa: BLE001 - a broken config costs its tools, not the agent
        return [], [f"MCP: {exc}"]
    notices: list[str] = []
    out: list[McpTool] = []
    used = list(taken)
    for server_cfg, record in entries:
        got, problem = _server_tools(workspace, server_cfg, record, consent, used, approver)
        if problem:
            notices.append(problem)
        if isinstance(problem, _StartFailed) and model_notes is not None:
            model_notes.append(f"{problem}; none of its tools are available in this session "
                               "(the user configured and approved it: tell them if the task "
                               "needs it)")
        out += got
        used += [t.name for t in got]
    return out, notices


def connector_tool_names(workspace: str | Path, taken: list[str]) -> list[str]:
    """The model names of the configured, enabled and approved servers' tools, as their last
    start recorded them in the consent store, without starting them; a server approved but
    never started since is started once to learn them (as :func:`connector_tools` would)."""
    try:
        entries = _connector_entries(Path(workspace).resolve(), ConsentStore())
    except Exception:  # noqa: BLE001 - connector_tools reports a broken config when it runs
        return []
    used, unknown = list(taken), []
    for server_cfg, record in entries:
        if record is None:
            continue
        if record.get("tool_names") is None:
            unknown.append(server_cfg.name)
            continue
        assigned, _ = names.assign(server_cfg.name, record["tool_names"], used)
        used += list(assigned)
    if unknown:
        found, _ = connector_tools(workspace, used, only=unknown)
        used += [t.name for t in found]
    return used[len(taken):]


class _StartFailed(str):
    """The notice of a server that was approved but did not start (the model is told too)."""


def _server_tools(workspace: Path, server_cfg: ServerConfig, record: dict[str, Any] | None,
                  consent: ConsentStore, used: list[str],
                  approver: Any) -> tuple[list[McpTool], str | None]:
    name = server_cfg.name
    if record is None:
        return [], (f"MCP server {name!r} is not approved and was not started; "
                    f"`%agent mcp test {name}` shows what it runs and asks")
    try:
        server = manager().start(workspace, server_cfg)
    except Exception as exc:  # noqa: BLE001 - ServerUnavailable, a secret that cannot open
        return [], _StartFailed(exc)
    digest = tools_hash(tool_dicts(server.tools))
    if record.get("tools_hash") not in (None, digest):
        return [], (f"MCP server {name!r} changed its tools since you approved it; they are "
                    f"left out until `%agent mcp test {name}` asks you again")
    remote = [t.name for t in server.tools]
    if record.get("tools_hash") is None or record.get("tool_names") != remote:
        consent.set_tools(server_cfg, digest, remote)
    assigned, problems = names.assign(name, [t.name for t in server.tools], used)
    by_remote = {t.name: t for t in server.tools}
    tools = [McpTool(server, by_remote[remote], model_name, approver=approver, consent=consent)
             for model_name, remote in assigned.items()]
    return tools, "; ".join(problems) or None


__all__ = ["McpTool", "OUTPUT_CAP", "connector_tool_names", "connector_tools", "to_output", "tool_dicts"]
