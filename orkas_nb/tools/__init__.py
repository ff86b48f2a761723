"""Workspace tools (files, search, bash, web) and the sandbox that bounds them.

``default_tools(workspace)`` is what every :class:`~orkas_nb.Agent` gets: read_file, write_file,
edit_file, stat_file, search_files, grep_files, bash, bash_poll, bash_stop and web_fetch, all
confined by one :class:`~orkas_nb.tools.paths.PathPolicy` (the workspace plus folders the user
allows) and, for bash, by OS isolation where the machine offers it. Risky actions go to the
host's approver (:mod:`orkas_nb.harness.approval`).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..harness.approval import ApproverLike
    from .sandbox import IsolationStatus
    from .settings import ToolSettings

__all__ = ["ApprovalRequest", "Decision", "ToolSettings", "default_tools", "isolation_status"]


def default_tools(
    workspace: str | Path,
    services: dict[str, Any] | None = None,
    *,
    allowed_paths: Iterable[str | Path] = (),
    approver: ApproverLike | None = None,
    settings: ToolSettings | dict[str, Any] | None = None,
    readonly_paths: Iterable[str | Path] = (),
) -> list[Any]:
    """The tools every agent gets in a workspace.

    ``allowed_paths`` adds folders beyond the workspace (credential, system and state folders are
    refused); ``approver`` answers risky actions (without one they are denied; a host may also
    put it in ``services["approver"]``); ``settings`` tunes caps, isolation and network;
    ``readonly_paths`` are added to ``settings.extra_readonly_paths`` (read, never written).
    """
    from .bash import make_bash_tools
    from .files import make_file_tools
    from .search import make_search_tools
    from .settings import Toolbox, ToolSettings
    from .web import make_web_tools

    if settings is None:
        conf = ToolSettings()
    elif isinstance(settings, dict):
        from pydantic import ValidationError

        from ..core.errors import ConfigError

        try:
            conf = ToolSettings.model_validate(settings)
        except ValidationError as exc:
            problems = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
            raise ConfigError(f"invalid tool settings: {problems}") from None
    else:
        conf = settings
    extra = [str(p) for p in allowed_paths]
    if extra:
        conf = conf.model_copy(update={"allowed_paths": [*conf.allowed_paths, *extra]})
    readonly = [str(p) for p in readonly_paths if str(p) not in conf.extra_readonly_paths]
    if readonly:
        conf = conf.model_copy(update={"extra_readonly_paths": [*conf.extra_readonly_paths, *readonly]})
    box = Toolbox.create(workspace, conf, approver=approver, services=services)
    return [*make_file_tools(box), *make_search_tools(box), *make_bash_tools(box),
            *make_web_tools(box)]


def isolation_status(setting: str = "auto", network: bool = False) -> IsolationStatus:
    """Whether bash runs isolated on this machine, and if not why (for ``%agent config``)."""
    from .sandbox import isolation_status as status

    return status(setting, network)


def __getattr__(name: str) -> Any:
    if name == "ToolSettings":
        from .settings import ToolSettings

        return ToolSettings
    if name in ("Decision", "ApprovalRequest"):
        from ..harness import approval

        return getattr(approval, name)
    raise AttributeError(name)
