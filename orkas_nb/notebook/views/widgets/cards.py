"""The HTML of the live view's tool cards and notices (built-in widgets, :mod:`.live`)."""

from __future__ import annotations

import html
import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ....core.events import ToolEnd, ToolStart

EXCERPT_CHARS = 1200
ARGS_CHARS = 2000
ICONS = {"running": "⏳", "ok": "✓", "error": "✗", "rejected": "⊘", "interrupted": "■", "denied": "⛔"}


def card_title(name: str, status: str, duration_s: float | None = None) -> str:
    took = f" · {duration_s:.2f} s" if duration_s is not None else ""
    return f"{ICONS.get(status, '•')} {name} · {status}{took}"


def card_html(start: ToolStart, end: ToolEnd | None) -> str:
    """Arguments, then (once the call ended) the result or error excerpt and written files."""
    args = json.dumps(start.arguments, ensure_ascii=False, indent=1, default=str)
    if len(args) > ARGS_CHARS:
        args = args[:ARGS_CHARS] + f"… ({len(args):,} chars)"
    parts = [f"<div><b>arguments</b><pre>{html.escape(args)}</pre></div>"]
    if end is not None:
        excerpt = end.result if len(end.result) <= EXCERPT_CHARS else (
            end.result[:EXCERPT_CHARS] + f"… ({len(end.result):,} chars)")
        label = "result" if end.status == "ok" else f"error ({end.status})"
        parts.append(f"<div><b>{label}</b><pre>{html.escape(excerpt)}</pre></div>")
        if end.output_files:
            files = ", ".join(html.escape(f) for f in end.output_files)
            parts.append(f"<div><b>files</b> {files}</div>")
    return "".join(parts)


def notice_html(text: str) -> str:
    return f"<span style='opacity:0.75'>{html.escape(text)}</span>"


__all__ = ["ARGS_CHARS", "EXCERPT_CHARS", "card_html", "card_title", "notice_html"]
