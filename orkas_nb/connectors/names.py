"""Tool names for connector tools: ``mcp__<server>__<tool>``, made acceptable to both wire
formats (OpenAI and Anthropic: 1-64 of ``[a-zA-Z0-9_-]``) and unique after that.

The fixed prefix keeps a server from passing for a built-in tool (``read_file`` on a server
becomes ``mcp__srv__read_file``); names that collide once sanitised or cut to 64 characters
get a short hash of their original, and a name still taken (by a built-in or the caller's own
tool) is refused, never replaced.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

PREFIX = "mcp__"
_BAD = re.compile(r"[^a-zA-Z0-9_-]")
MAX = 64


def _clean(text: str) -> str:
    return _BAD.sub("_", text) or "_"


def _short(original: str) -> str:
    return hashlib.sha256(original.encode()).hexdigest()[:6]


def tool_name(server: str, tool: str) -> str:
    """The name the model sees, before collisions are considered."""
    name = f"{PREFIX}{_clean(server)}__{_clean(tool)}"
    if len(name) > MAX:
        name = f"{name[:MAX - 7]}_{_short(f'{server}/{tool}')}"
    return name


def assign(server: str, tools: Iterable[str], taken: Iterable[str] = ()) -> tuple[dict[str, str], list[str]]:
    """(model name -> server's tool name, problems) for one server's tools; ``taken``: names
    already in the agent (built-ins, other servers)."""
    taken_set = set(taken)
    wanted: dict[str, list[str]] = {}
    for t in tools:
        wanted.setdefault(tool_name(server, t), []).append(t)
    out: dict[str, str] = {}
    problems: list[str] = []
    for name, originals in wanted.items():
        for original in originals:
            final = name
            if len(originals) > 1:  # two tools that differ only in characters we replaced
                final = f"{name[:MAX - 7]}_{_short(f'{server}/{original}')}"
            if final in taken_set or final in out:
                problems.append(f"tool {original!r} of server {server!r} would be named "
                                f"{final!r}, which is taken; it is left out")
                continue
            out[final] = original
    return out, problems


__all__ = ["PREFIX", "assign", "tool_name"]
