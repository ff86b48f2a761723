"""What an agent is given besides its model: its tools, its knowledge base.

One function each, used by :class:`~orkas_nb.Agent`, by the notebook (which keeps the tools it
built per session and passes its kernel tools and ``@tool`` functions in as ``extra``) and by the
team's member factory, so an agent is assembled the same way wherever it is made.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..harness.runner import Runner
    from ..harness.tool_protocol import Tool
    from ..memory.kb import KnowledgeBase
    from ..tools.settings import ToolSettings

log = logging.getLogger("orkas_nb.connectors")

__all__ = ["SetupNotices", "assemble_tools", "knowledge_base", "workspace_knowledge"]


@dataclass
class SetupNotices:
    """What building an agent's tools left to say, for the user and for the model.

    ``user``: lines the user is shown at the start of every turn (an MCP server not approved, or
    not running); ``model``: lines the model is told after the system prompt (an approved server
    that did not start, so a tool it was promised but lacks is explained).
    """

    user: list[str] = field(default_factory=list)
    model: list[str] = field(default_factory=list)

    def give_to(self, runner: Runner) -> None:
        """Add both to what ``runner`` already tells (its notices, its setup notes)."""
        runner.notices = [*runner.notices, *(("mcp", line) for line in self.user)]
        runner.setup_notes = [*runner.setup_notes, *self.model]


def assemble_tools(
    workspace: str | Path,
    *,
    services: dict[str, Any] | None = None,
    allowed_paths: Iterable[str | Path] = (),
    approver: Callable[..., Any] | None = None,
    settings: ToolSettings | dict[str, Any] | None = None,
    extra: Sequence[Tool | Callable[..., Any]] = (),
    workspace_tools: bool = True,
    readonly_paths: Iterable[str | Path] = (),
    connectors: bool | None = None,
    notices: SetupNotices | None = None,
) -> list[Tool]:
    """The workspace tools (unless ``workspace_tools`` is False), then ``extra``, then the tools
    of the approved MCP servers (``connectors``; None: with the workspace tools), which never
    replace a tool already there; what the user and the model should know of them goes into
    ``notices`` (without it, the user's lines are logged and the model's dropped).

    ``readonly_paths`` are folders the tools read and bash sees, never writes (the folders of
    the skills the agent may use: :mod:`.skills_wiring`).

    An extra tool object replaces an earlier tool of its name; a plain function is made a tool
    on the way in, and a name taken twice that way is an error (``ValueError``).
    """
    from ..harness.tool_protocol import ToolRegistry

    registry = ToolRegistry()
    if workspace_tools:
        from ..tools import default_tools

        settings, readonly_paths = _with_packages(workspace, settings, readonly_paths)
        for t in default_tools(workspace, services=services, allowed_paths=allowed_paths,
                               approver=approver, settings=settings, readonly_paths=readonly_paths):
            registry.add(t)
    for t in extra:
        if getattr(t, "name", None) in registry and hasattr(t, "execute"):
            registry.remove(t.name)  # type: ignore[union-attr]  # the caller's replaces it
        registry.add(t)
    if connectors if connectors is not None else workspace_tools:
        _add_connectors(registry, workspace, approver, notices)
    return [t for name in registry.names() if (t := registry.get(name)) is not None]


def _with_packages(workspace: str | Path, settings: ToolSettings | dict[str, Any] | None,
                   readonly: Iterable[str | Path]) -> tuple[Any, list[str | Path]]:
    """The external packages' commands on bash's PATH (appended: a package never shadows a
    program of the machine) and their managed folder read-only, when any package offers one
    (:mod:`orkas_nb.connectors.packages`)."""
    import os

    from ..connectors.packages import Packages

    packages = Packages()
    readonly = list(readonly)
    if not packages.has_commands():
        return settings, readonly
    from ..core.errors import ConfigError
    from ..tools.paths import PathPolicy

    try:
        PathPolicy(workspace).check_readonly_extras([packages.root])
    except ConfigError as exc:  # $ORKAS_PACKAGES_DIR in a folder the sandbox must hide
        log.warning("the external packages' commands are left out: %s", exc)
        return settings, readonly
    from pydantic import ValidationError

    from ..tools.settings import ToolSettings

    try:
        conf = (ToolSettings.model_validate(settings) if isinstance(settings, dict)
                else settings or ToolSettings())
    except ValidationError:
        return settings, readonly  # default_tools reports it, field by field
    path = conf.env.get("PATH") or os.environ.get("PATH") or "/usr/local/bin:/usr/bin:/bin"
    env = {**conf.env, "PATH": f"{path}{os.pathsep}{packages.bin_dir}"}
    return conf.model_copy(update={"env": env}), [*readonly, packages.root]


def _add_connectors(registry: Any, workspace: str | Path, approver: Any,
                    notices: SetupNotices | None) -> None:
    from ..connectors import config as connector_config

    if not (connector_config.workspace_file(workspace).exists()
            or connector_config.user_file().exists()):
        return  # no server configured: the SDK is not even imported
    from ..connectors import connector_tools

    found, said = connector_tools(workspace, registry.names(), approver=approver,
                                  model_notes=notices.model if notices is not None else None)
    for t in found:
        registry.add(t)
    if notices is not None:
        notices.user.extend(said)
    else:
        for line in said:
            log.warning("%s", line)


def knowledge_base(workspace: str | Path, embedder: str | None = None) -> KnowledgeBase:
    """The workspace's knowledge base (made if it has none) with the embedder ``embedder``
    names (an ``Agent.kb_embedder`` setting; None or ``auto``: the base's own), an
    ``ENDPOINT/MODEL`` found through the providers' endpoint table."""
    from .. import memory
    from ..providers.registry import openai_compatible_endpoint

    return memory.knowledge_base_for(workspace, embedder, endpoints=openai_compatible_endpoint)


def workspace_knowledge(workspace: str | Path, embedder: str | None = None) -> KnowledgeBase | None:
    """The knowledge base an agent searches when it is not given one: the workspace's, if it
    has one (see :func:`knowledge_base`), else None."""
    from .. import memory

    if not memory.has_knowledge_base(workspace):
        return None
    return knowledge_base(workspace, embedder)
