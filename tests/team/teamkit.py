"""Helpers for team tests: a workspace with agent files, and a model that answers by member.

Several members share one provider (a member without a model runs its parent's), and parallel
dispatches ask it in no fixed order, so the scripted model routes each request on the marker
in its system prompt (each agent file's body carries ``[[name]]``) and plays that member's
own script in order.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from orkas_nb.providers.base import ModelRequest
from orkas_nb.testing import ScriptedModel

COMMANDER_MARK = "You are the commander of a team"
# The two agents most team tests define: ``write_agents(folder, **RESEARCHER_AND_WRITER)``.
RESEARCHER_AND_WRITER = {"researcher": "Finds facts in the files.", "writer": "Writes short notes."}


def write_agents(workspace: Path, **descriptions: str) -> None:
    folder = workspace / ".orkas" / "agents"
    folder.mkdir(parents=True, exist_ok=True)
    for name, description in descriptions.items():
        (folder / f"{name}.md").write_text(
            f"---\nname: {name}\ndescription: {description}\n"
            f"tools: [read_file, write_file, edit_file]\n---\n"
            f"You are {name} [[{name}]]. Report what you did in one line.\n", encoding="utf-8")


def who(system: str) -> str:
    if COMMANDER_MARK in system:
        return "commander"
    if "[[" in system:
        return system.split("[[", 1)[1].split("]]", 1)[0]
    return "worker"


class Router:
    """Per-member scripts; ``requests[member]`` are the requests each member made."""

    def __init__(self, **scripts: list[Any] | Callable[[ModelRequest], Any]) -> None:
        self.scripts = {k: (v if callable(v) else list(v)) for k, v in scripts.items()}
        self.requests: dict[str, list[ModelRequest]] = {}

    def __call__(self, request: ModelRequest) -> Any:
        member = who(request.system)
        self.requests.setdefault(member, []).append(request)
        script = self.scripts[member]
        if callable(script):
            return script(request)
        if not script:
            raise AssertionError(f"{member} was asked once more than its script allows")
        return script.pop(0)

    def model(self) -> ScriptedModel:
        return ScriptedModel(self)


def member_of(payload: dict[str, Any]) -> str:
    """The member a wire request (either format) is from, as :func:`who` reads its system prompt:
    the router key of a loopback model server scripted per member."""
    return who(wire_system(payload))


class Slot:
    """A display slot for a view under test: it keeps the last bundle it was given."""

    def __init__(self) -> None:
        self.last: dict[str, Any] = {}

    def update(self, bundle: dict[str, Any]) -> None:
        self.last = bundle

    def final(self, bundle: dict[str, Any]) -> None:
        self.last = bundle


def user_texts(request: ModelRequest) -> str:
    """Everything the requests' messages carry as text (what the member's context holds)."""
    return "\n".join(getattr(m, "text", "") or "" for m in request.messages)


def wire_system(payload: dict[str, Any]) -> str:
    """The system prompt of a request in either wire format (OpenAI or Anthropic), as text."""
    import json

    if "system" in payload:
        return json.dumps(payload["system"])
    first = payload["messages"][0]
    return json.dumps(first["content"]) if first["role"] in ("system", "developer") else ""


def wire_last(payload: dict[str, Any]) -> tuple[str, str]:
    """The last message of a request in either wire format: ``("tool", text)`` when it carries
    only tool results, else ``(role, its text)``."""
    last = payload["messages"][-1]
    content = last["content"]
    if last["role"] == "tool":
        return "tool", content if isinstance(content, str) else str(content)
    if isinstance(content, str):
        return last["role"], content
    # Anthropic: a user's text after tool results shares their message (roles alternate)
    text = "\n".join(b.get("text", "") for b in content if b.get("type") == "text")
    if not text and any(b.get("type") == "tool_result" for b in content):
        return "tool", str(content)
    return last["role"], text
