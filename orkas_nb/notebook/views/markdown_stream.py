"""Streamed Markdown cut into blocks, so each refresh re-sends only the live tail.

A long answer re-sent whole at every refresh costs O(n²) bytes (a 10,000-token answer: ~4 MB).
Here the text lives in frozen blocks plus one live block; when the live block grows past
:data:`FREEZE_CHARS`, it is cut at a boundary where splitting does not change how the Markdown
renders, and the tail continues in a new block. The blocks' texts, joined, are always exactly
the text streamed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

FREEZE_CHARS = 4000  # a live block longer than this is frozen at a safe boundary


def _md(text: str, mime: str = "text/markdown") -> tuple[dict[str, Any], ...]:
    return ({"output_type": "display_data", "data": {mime: text}, "metadata": {}},)


def safe_cut(text: str) -> int:
    """Where a Markdown text may be split into two blocks without changing how it renders.

    The last blank line outside a code fence; failing that, the last line break outside a
    fence (a paragraph split in two renders almost the same); 0 when there is neither.
    """
    fence = False
    blank = line_end = 0
    pos = 0
    for line in text.splitlines(keepends=True):
        pos += len(line)
        stripped = line.lstrip()
        if stripped.startswith(("```", "~~~")):
            fence = not fence
        elif not fence and pos < len(text) and line.endswith("\n"):
            line_end = pos
            if not stripped.strip():
                blank = pos
    return blank or line_end


class MarkdownStream:
    """Text that grows: frozen Markdown blocks plus one live block.

    ``open_block(outputs)`` makes a new block widget holding ``outputs`` and puts it in the
    view; the stream then only sets that block's ``outputs``. ``mime``, ``freeze_chars`` and
    ``cut`` let a plain-text view reuse the same blocks (text/plain splits at any line end).
    """

    def __init__(self, open_block: Callable[[tuple[dict[str, Any], ...]], Any], *,
                 mime: str = "text/markdown", freeze_chars: int = FREEZE_CHARS,
                 cut: Callable[[str], int] = safe_cut) -> None:
        self._open_block = open_block
        self._mime, self._freeze_chars, self._cut = mime, freeze_chars, cut
        self._live: Any = None
        self._live_text = ""
        self.pending: list[str] = []
        self.text = ""  # everything flushed so far

    def append(self, text: str) -> None:
        self.pending.append(text)

    def flush(self) -> bool:
        if not self.pending:
            return False
        chunk = "".join(self.pending)
        self.pending.clear()
        self.text += chunk
        self._live_text += chunk
        if self._live is not None and len(self._live_text) > self._freeze_chars and (
            cut := self._cut(self._live_text)
        ):
            frozen, self._live_text = self._live_text[:cut], self._live_text[cut:]
            self._live.outputs = _md(frozen, self._mime)
            self._live = None
        if self._live is None:  # a new block is opened with its text: no extra update
            self._live = self._open_block(_md(self._live_text, self._mime))
        else:
            self._live.outputs = _md(self._live_text, self._mime)
        return True


__all__ = ["FREEZE_CHARS", "MarkdownStream", "safe_cut"]
