"""Helpers for self-evolution tests: a workspace with evolution on, a reflection script."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from orkas_nb.team.evolution import AgentStore, EvolutionSettings, save_settings

REFLECTION_MARK = "You review how the agent"


def skill_text(name: str, description: str = "Check the units before you answer.",
               body: str = "Always state the unit of every number you report.") -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n{body}\n"


def turn_on(workspace: Path, *agents: str, **settings: Any) -> EvolutionSettings:
    now = settings.pop("_now", None)
    s = EvolutionSettings(enabled=True, **settings)
    save_settings(workspace, s)
    for a in agents:
        AgentStore(workspace, a).set_enabled(True, now=now)
    return s


def reflecting_agent(payload: dict[str, Any]) -> str | None:
    """The agent a reflection request is about, or None for an ordinary request."""
    first = payload["messages"][0]
    system = json.dumps(payload.get("system") or first.get("content"))
    if REFLECTION_MARK not in system:
        return None
    return system.split(REFLECTION_MARK, 1)[1].split("'")[1]


def call(tool_name: str, **arguments: Any) -> Any:
    from tests.fakes.wire import ToolCall

    return ToolCall(tool_name, json.dumps(arguments))
