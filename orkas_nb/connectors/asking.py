"""Asking the user about a server: before it first starts (its exact command, arguments and
environment names, or its URL), and again when its tools changed since the approval.

The question goes through the host's approver (:mod:`orkas_nb.harness.approval`), so the user
sees the same prompt as for a risky command; whatever the answer, it is recorded in the consent
store outside the workspace (:mod:`.consent`), never in the workspace's files.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.errors import ConfigError
from ..harness.approval import ApprovalRequest, Decision, to_decision
from . import config as cfg
from .consent import ConsentStore, tools_hash
from .runtime import manager
from .tools import tool_dicts


@dataclass
class Review:
    """What reviewing a server found: whether it runs approved, and its tools."""

    name: str
    approved: bool
    launch: str
    tools: list[Any] = field(default_factory=list)
    message: str = ""


def _ask(approver: Any, request: ApprovalRequest) -> Decision:
    if approver is None:
        return Decision.DENY
    answer = approver(request)
    if inspect.isawaitable(answer):  # an async approver, from plain code: on the manager's loop
        answer = manager().run(_awaited(answer))
    return to_decision(answer)


async def _awaited(answer: Any) -> Any:
    return await answer


def _request(server: cfg.ServerConfig, subject: str, reasons: list[str]) -> ApprovalRequest:
    return ApprovalRequest(
        kind="connector", category="mcp_server" if server.local else "mcp_remote",
        subject=subject, reasons=reasons, scope_key=f"mcp-server:{server.name}",
        scope_text=f"the MCP server {server.name!r}", tool="mcp")


def review(workspace: str | Path, name: str, approver: Any) -> Review:
    """Approve (asking if needed) and start ``name``; its tools, or why it does not run.

    Plain (blocking) code: the notebook's ``%agent mcp test`` asks at the prompt, where the
    user just typed the command; an async approver is run on the manager's loop."""
    workspace = Path(workspace).resolve()
    servers = cfg.load(workspace)
    if name not in servers:
        raise ConfigError(f"no MCP server named {name!r}; configured: "
                          f"{', '.join(servers) or 'none'} (`%agent mcp add NAME ...`)")
    server = servers[name]
    consent = ConsentStore()
    record = consent.record(server)
    launch = server.describe()
    if record is None:
        where = (f"from {cfg.workspace_file(workspace)}" if server.scope == "workspace"
                 else f"from {cfg.user_file()}")
        reasons = [f"configured {where}",
                   "a local server runs as a program with your permissions" if server.local
                   else "a remote server receives what the agent sends it"]
        decision = _ask(approver, _request(server, f"MCP server {name!r}: {launch}", reasons))
        if decision is Decision.DENY:
            return Review(name, False, launch, message=f"not approved: {name!r} was not started")
        consent.approve(server, None)
        record = consent.record(server)
    server_run = manager().start(workspace, server)
    digest = tools_hash(tool_dicts(server_run.tools))
    known = (record or {}).get("tools_hash")
    if known is not None and known != digest:
        listed = ", ".join(t.name for t in server_run.tools) or "(none)"
        decision = _ask(approver, _request(
            server, f"MCP server {name!r} changed its tools since you approved it; now: {listed}",
            ["a server's tools are what the agent may call; changed definitions need your "
             "approval again"]))
        if decision is Decision.DENY:
            manager().stop(workspace, name)
            return Review(name, False, launch, server_run.tools,
                          message=f"the changed tools of {name!r} were not approved; stopped")
    consent.set_tools(server, digest, [t.name for t in server_run.tools])
    return Review(name, True, launch, server_run.tools,
                  message=f"{name!r} runs with {len(server_run.tools)} tool(s)")


__all__ = ["Review", "review"]
