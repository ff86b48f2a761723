"""Connector configs: ``.orkas/mcp.json`` in the workspace and ``mcp.json`` in the user's config
folder, in the ``mcpServers`` shape other MCP hosts use, so a pasted entry works::

    {"mcpServers": {
        "time": {"command": "mcp-server-time", "args": ["--local-timezone", "UTC"]},
        "docs": {"url": "http://127.0.0.1:8080/mcp", "headers": {"Authorization": "Bearer …"}}}}

A local server has ``command`` (``args``, ``env``, ``cwd``); a remote one has ``url`` (streamable
HTTP, ``headers``); ``"disabled": true`` keeps an entry without using it. Every ``env`` and
``headers`` value is sealed into the vault (:mod:`.secrets`) when the file is written, and a
value found in clear when it is read (a hand-pasted entry) is sealed then and the file rewritten:
on disk the JSON holds references only. A workspace entry replaces a user entry of its name.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ..core.errors import ConfigError
from ..core.locations import config_dir
from . import secrets

FILE = "mcp.json"
STATE_DIR = ".orkas"
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,47}")


class ServerConfig(BaseModel):
    """One ``mcpServers`` entry; secret values are references (see :mod:`.secrets`)."""

    model_config = ConfigDict(extra="ignore")

    name: str = ""
    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, Any] = Field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, Any] = Field(default_factory=dict)
    type: str | None = None  # other hosts write "stdio" / "http" / "streamable-http"; informative
    disabled: bool = False
    timeout: float | None = None  # seconds a call may take (default: the manager's)
    scope: Literal["workspace", "user"] = "workspace"

    @model_validator(mode="after")
    def _one_transport(self) -> ServerConfig:
        if bool(self.command) == bool(self.url):
            raise ValueError("give either 'command' (a local server) or 'url' (a remote one)")
        if self.url and not re.match(r"https?://", self.url):
            raise ValueError(f"url {self.url!r} must start with http:// or https://")
        if self.type in ("sse",):
            raise ValueError("the SSE transport is not supported; use the server's streamable "
                             "HTTP endpoint")
        return self

    @property
    def local(self) -> bool:
        return bool(self.command)

    def identity(self) -> dict[str, Any]:
        """What consent is given to: the exact command or URL, with the names (never the
        values) of the variables and headers it gets."""
        if self.local:
            return {"command": self.command, "args": list(self.args), "cwd": self.cwd,
                    "env": sorted(self.env)}
        return {"url": self.url, "headers": sorted(self.headers)}

    def describe(self) -> str:
        """The launch as the user approves it: command line or URL, and variable names."""
        if self.local:
            line = " ".join([_quote(self.command or ""), *map(_quote, self.args)])
            extra = f"; environment: {', '.join(sorted(self.env))}" if self.env else ""
            where = f"; in {self.cwd}" if self.cwd else ""
            return f"run `{line}`{where}{extra}"
        extra = f"; headers: {', '.join(sorted(self.headers))}" if self.headers else ""
        return f"connect to {self.url}{extra}"

    def revealed(self, field: Literal["env", "headers"]) -> dict[str, str]:
        """The values of ``env`` or ``headers``, decrypted (only to start the server)."""
        out: dict[str, str] = {}
        for key, value in getattr(self, field).items():
            out[key] = secrets.open_ref(value, owner=f"{field} {key!r} of server {self.name!r}") \
                if secrets.is_ref(value) else str(value)
        return out

    def refs(self) -> list[dict[str, str]]:
        return [v for v in (*self.env.values(), *self.headers.values()) if secrets.is_ref(v)]


def _quote(word: str) -> str:
    import shlex

    return shlex.quote(word)


def workspace_file(workspace: str | Path) -> Path:
    return Path(workspace) / STATE_DIR / FILE


def user_file() -> Path:
    return config_dir() / FILE


def check_name(name: str) -> str:
    if not NAME.fullmatch(name or ""):
        raise ConfigError(f"server name {name!r}: use 1 to 48 letters, digits, '_', '-' or '.', "
                          "starting with a letter or digit")
    return name


def _read(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8") or "{}")
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{path} is not valid JSON ({exc}); fix it or remove it") from None
    if not isinstance(data, dict) or not isinstance(data.get("mcpServers", {}), dict):
        raise ConfigError(f"{path} must hold an object with an 'mcpServers' object")
    return data


def _write(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _seal_entry(entry: dict[str, Any]) -> bool:
    """Replace clear values in ``env``/``headers`` by references; whether anything changed."""
    changed = False
    for field in ("env", "headers"):
        values = entry.get(field)
        if not isinstance(values, dict):
            continue
        for key, value in list(values.items()):
            if not secrets.is_ref(value):
                values[key] = secrets.seal(str(value))
                changed = True
    return changed


def _load_file(path: Path, scope: Literal["workspace", "user"]) -> dict[str, ServerConfig]:
    data = _read(path)
    servers = data.get("mcpServers", {})
    if any(isinstance(e, dict) and _seal_entry(e) for e in list(servers.values())):
        _write(path, data)  # a value pasted in clear: only references stay on disk
    out: dict[str, ServerConfig] = {}
    for name, entry in servers.items():
        try:
            check_name(name)
            out[name] = ServerConfig.model_validate({**entry, "name": name, "scope": scope})
        except (ValidationError, ConfigError, TypeError) as exc:
            raise ConfigError(f"server {name!r} in {path}: {_reason(exc)}") from None
    return out


def _reason(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        return "; ".join(e["msg"].removeprefix("Value error, ") for e in exc.errors()[:3])
    return str(exc)


def load(workspace: str | Path) -> dict[str, ServerConfig]:
    """Every configured server by name: the user's, then the workspace's over them."""
    found = _load_file(user_file(), "user")
    found.update(_load_file(workspace_file(workspace), "workspace"))
    return found


def parse_entry(name: str, text: str | dict[str, Any]) -> dict[str, Any]:
    """An entry as the user gave it: a JSON object, ``{"name": {...}}`` or a whole
    ``{"mcpServers": {"name": {...}}}`` pasted from another host."""
    try:
        data = json.loads(text) if isinstance(text, str) else dict(text)
    except ValueError as exc:
        raise ConfigError(f"the entry for {name!r} is not valid JSON ({exc})") from None
    if isinstance(data, dict) and isinstance(data.get("mcpServers"), dict):
        data = data["mcpServers"]
    if isinstance(data, dict) and len(data) == 1 and isinstance(next(iter(data.values())), dict) \
            and not {"command", "url"} & set(data):
        data = next(iter(data.values()))
    if not isinstance(data, dict):
        raise ConfigError("a server entry is a JSON object with 'command' or 'url'")
    try:
        ServerConfig.model_validate({**data, "name": check_name(name)})  # refuse before writing
    except ValidationError as exc:
        raise ConfigError(f"server {name!r}: {_reason(exc)}") from None
    return data


def save(workspace: str | Path, name: str, entry: dict[str, Any], *, user: bool = False) -> Path:
    """Add or replace ``name`` (sealing its values); the file written."""
    path = user_file() if user else workspace_file(workspace)
    data = _read(path)
    servers = data.setdefault("mcpServers", {})
    entry = json.loads(json.dumps(entry))
    _seal_entry(entry)
    old = servers.get(name)
    servers[name] = entry
    _write(path, data)
    if isinstance(old, dict):
        _forget_entry(old, keep=entry)
    return path


def remove(workspace: str | Path, name: str) -> Path | None:
    """Drop ``name`` from the workspace file, else the user file; the file changed, or None."""
    for path in (workspace_file(workspace), user_file()):
        data = _read(path)
        servers = data.get("mcpServers", {})
        if name in servers:
            old = servers.pop(name)
            _write(path, data)
            if isinstance(old, dict):
                _forget_entry(old, keep={})
            return path
    return None


def _forget_entry(old: dict[str, Any], keep: dict[str, Any]) -> None:
    kept = {json.dumps(v, sort_keys=True) for f in ("env", "headers")
            for v in (keep.get(f) or {}).values()}
    secrets.forget([v for f in ("env", "headers") for v in (old.get(f) or {}).values()
                    if json.dumps(v, sort_keys=True) not in kept])


__all__ = ["ServerConfig", "check_name", "load", "parse_entry", "remove", "save", "user_file",
           "workspace_file"]
