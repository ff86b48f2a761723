"""The words and marks a saved transcript is written with, and how long values are cut."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .transcript import TToolCall

ARGUMENT_CHARS = 2000  # per string argument kept in the saved notebook
ICON = {"ok": "✓", "error": "✗", "rejected": "⊘", "interrupted": "■", "denied": "⊘"}
STATUS_WORDS = {"cancelled": "stopped", "loop_guard": "stopped by the loop guard",
                "max_steps": "stopped at the step limit", "error": "failed"}


def duration(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.1f} s"


def call_line(c: TToolCall) -> str:
    if c.raw_arguments is not None:
        args = c.raw_arguments
    else:
        args = ", ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in c.arguments.items())
    if len(args) > 120:
        args = args[:117] + "..."
    return f"{c.name}({args})"


def quote(text: str) -> str:
    return "\n".join("> " + line for line in text.splitlines() or [""])


def html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def cut(text: str, limit: int) -> tuple[str, bool]:
    return (text, False) if len(text) <= limit else (text[:limit], True)


def saved_arguments(arguments: dict[str, Any]) -> dict[str, Any]:
    """Arguments as saved: long string values (a file's content) are cut."""
    out: dict[str, Any] = {}
    for k, v in arguments.items():
        if isinstance(v, str) and len(v) > ARGUMENT_CHARS:
            v = v[:ARGUMENT_CHARS] + f"… [{len(v) - ARGUMENT_CHARS} more characters]"
        out[k] = v
    return out
