"""Connectors: MCP servers the user configures, their consent, their secrets (SPEC §12).

A capability package beside ``tools``, ``memory`` and ``team`` (it imports only ``core`` and
``harness``); the composition root (:mod:`orkas_nb.agent.assembly`) gives an agent the tools
of the approved servers. Modules:

- :mod:`.config`   ``.orkas/mcp.json`` and the user's ``mcp.json`` (``mcpServers`` shape)
- :mod:`.secrets`  every ``env``/``headers`` value encrypted at rest (Fernet)
- :mod:`.consent`  approvals outside the workspace, keyed by name, launch and tool hash
- :mod:`.runtime`  the one place servers start, live with the process and stop
- :mod:`.tools`    server tools as agent tools (names, per-pair confirmation, results)
- :mod:`.asking`   asking the user before a first start and after changed tools

The SDK (``mcp``) is imported only when a server starts: ``import orkas_nb`` stays light.
The other doors of the open host, each in modules of their own:

- :mod:`.packages`, :mod:`.package_git`, :mod:`.relay`   external skill packages (git
  repositories of skills and CLIs, ``%agent packages``)
- :mod:`.gateway`, :mod:`.gateway_bridge`   the reverse gateway an external agent calls back
  through
"""

from __future__ import annotations

from typing import Any

__all__ = ["connector_tool_names", "connector_tools", "review", "shutdown"]


def __getattr__(name: str) -> Any:
    if name == "connector_tools":
        from .tools import connector_tools

        return connector_tools
    if name == "connector_tool_names":
        from .tools import connector_tool_names

        return connector_tool_names
    if name == "review":
        from .asking import review

        return review
    if name == "shutdown":
        from .runtime import shutdown

        return shutdown
    raise AttributeError(name)
