"""The user's consent to connectors, kept outside every workspace (a cloned repository must not
approve its own servers): in ``mcp_consent.json`` in :func:`~orkas_nb.core.locations.
secrets_dir`, a credential location the tools refuse and the sandbox masks.

A server is approved by its name, its exact launch (command, arguments, environment *names*, or
URL and header names: :meth:`~.config.ServerConfig.identity`) and a hash of its tool
definitions. The first start after approval records the hash; a server whose tools change is
asked about again. "Always allow" pairs (agent, connector) let calls run without asking.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
from pathlib import Path
from typing import Any

from ..core.locations import secrets_dir
from .config import ServerConfig

FILE = "mcp_consent.json"
_lock = threading.Lock()


def launch_key(server: ServerConfig) -> str:
    text = json.dumps({"name": server.name, "launch": server.identity()}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def tools_hash(tools: list[dict[str, Any]]) -> str:
    """A hash of the tool definitions as the server listed them (name, description, schemas,
    annotations), independent of their order."""
    text = json.dumps(sorted(tools, key=lambda t: str(t.get("name"))), sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


class ConsentStore:
    """Read and written whole under a lock; small (one record per approved server)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or secrets_dir() / FILE

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {"servers": {}, "always": []}
        except (OSError, ValueError):
            # A damaged store approves nothing; the user is asked again (fail closed).
            return {"servers": {}, "always": []}
        data.setdefault("servers", {})
        data.setdefault("always", [])
        return data

    def _write(self, data: dict[str, Any]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = self.path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1, sort_keys=True)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)

    def record(self, server: ServerConfig) -> dict[str, Any] | None:
        """The approval of this exact launch, or None."""
        return self._read()["servers"].get(launch_key(server))

    def approve(self, server: ServerConfig, tools: str | None = None) -> None:
        """Approve this launch (``tools``: the tool hash approved with it, None until known)."""
        with _lock:
            data = self._read()
            data["servers"][launch_key(server)] = {
                "name": server.name, "launch": server.describe(), "tools_hash": tools,
                "approved_at": time.time()}
            self._write(data)

    def set_tools(self, server: ServerConfig, tools: str, names: list[str] | None = None) -> None:
        """Record the hash of the approved server's tools, and their names (so that listing
        the agents that use them needs no start: :func:`~.tools.connector_tool_names`)."""
        with _lock:
            data = self._read()
            rec = data["servers"].get(launch_key(server))
            if rec is not None:
                rec["tools_hash"] = tools
                if names is not None:
                    rec["tool_names"] = list(names)
                self._write(data)

    def revoke(self, name: str) -> None:
        """Forget every approval of the server ``name`` and its "always" pairs."""
        with _lock:
            data = self._read()
            data["servers"] = {k: v for k, v in data["servers"].items() if v.get("name") != name}
            data["always"] = [p for p in data["always"] if p[1] != name]
            self._write(data)

    def always(self, agent: str, connector: str) -> bool:
        return [agent, connector] in self._read()["always"]

    def allow_always(self, agent: str, connector: str) -> None:
        with _lock:
            data = self._read()
            if [agent, connector] not in data["always"]:
                data["always"].append([agent, connector])
                self._write(data)


__all__ = ["ConsentStore", "launch_key", "tools_hash"]
