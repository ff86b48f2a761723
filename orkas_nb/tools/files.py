"""File tools confined to the workspace (first cut; the sandbox issue extends the policy)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..core.errors import ToolError
from ..harness.tools import FunctionTool, ToolOutput


def resolve_inside(workspace: Path, path: str) -> Path:
    """Resolve ``path`` (symlinks included) and refuse anything outside the workspace."""
    root = workspace.resolve()
    target = (root / os.path.expanduser(path)).resolve()
    if target != root and root not in target.parents:
        raise ToolError(f"{path!r} is outside the workspace ({root}); only files inside it can be used")
    if ".orkas" in target.relative_to(root).parts:
        raise ToolError(f"{path!r} is in the agent's own state folder (.orkas), which tools cannot touch")
    return target


def file_tools(workspace: Path) -> list[FunctionTool]:
    def read_file(path: str, offset: int = 0, limit: int = 20000) -> str:
        """Read a text file of the workspace.

        Args:
            path: the file, relative to the workspace
            offset: first character to return
            limit: how many characters to return at most
        """
        target = resolve_inside(workspace, path)
        if not target.is_file():
            raise ToolError(f"{path!r} is not a file")
        text = target.read_text(encoding="utf-8", errors="replace")
        part = text[offset : offset + limit]
        rest = len(text) - offset - len(part)
        return part + (f"\n[... {rest} more characters; read on with offset={offset + len(part)}]" if rest > 0 else "")

    def write_file(path: str, content: str) -> ToolOutput:
        """Create or overwrite a text file of the workspace.

        Args:
            path: the file, relative to the workspace
            content: the full new content
        """
        target = resolve_inside(workspace, path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")
        rel = str(target.relative_to(workspace.resolve()))
        return ToolOutput(text=f"wrote {len(content)} characters to {rel}", output_files=[rel])

    def list_files(path: str = ".") -> str:
        """List the entries of a workspace folder.

        Args:
            path: the folder, relative to the workspace
        """
        target = resolve_inside(workspace, path)
        if not target.is_dir():
            raise ToolError(f"{path!r} is not a folder")
        rows: list[Any] = []
        for entry in sorted(target.iterdir()):
            if entry.name == ".orkas":
                continue
            rows.append(entry.name + ("/" if entry.is_dir() else f"  ({entry.stat().st_size} bytes)"))
        return "\n".join(rows) or "(empty)"

    return [
        FunctionTool(read_file, read_only=True),
        FunctionTool(write_file),
        FunctionTool(list_files, read_only=True),
    ]
