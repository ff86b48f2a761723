"""Workspace tools (files, search, bash, web) and the sandbox that bounds them."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def default_tools(workspace: Path, services: dict[str, Any] | None = None) -> list[Any]:
    """The tools every agent gets in a workspace."""
    from .files import file_tools

    return file_tools(workspace)
