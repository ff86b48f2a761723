"""Blanking parts of a normalised entry while keeping its length, so offsets found in the
blanked text still point into the original (the guard's scope readers all work that way)."""

from __future__ import annotations

import re
from collections.abc import Callable


def blank_spans(pattern: re.Pattern[str], text: str) -> str:
    """``text`` with each match of ``pattern`` turned to spaces."""
    return pattern.sub(lambda m: " " * len(m.group()), text)


def blank_clauses(flat: str, cut: re.Pattern[str], drop: Callable[[str], bool]) -> str:
    """``flat`` with each clause between ``cut``'s matches blanked where ``drop`` holds
    (same length; the cuts themselves are kept)."""
    out, start = [], 0
    for m in [*cut.finditer(flat), None]:
        end = m.start() if m else len(flat)
        clause = flat[start:end]
        out.append(" " * len(clause) if drop(clause) else clause)
        if m:
            out.append(m.group())
            start = m.end()
    return "".join(out)
