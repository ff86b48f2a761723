"""Markdown files with YAML front matter (agent definitions, ``SKILL.md``), and their problems.

Both kinds of file are written by hand, often on another machine or for another tool, so the
reader tolerates what editors do to text (a UTF-8 byte-order mark, CRLF or CR line ends) and
reports what it cannot read as one :class:`Problem` line naming the file and the field — other
tools fail silently on CRLF front matter, and their users never learn why a file was ignored.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

__all__ = ["FrontMatterError", "Problem", "parse_front_matter", "read_front_matter"]

_FENCE = re.compile(r"^---[ \t]*$")
_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*$")
# A top-level ``key: value`` line whose plain value holds ": " — invalid YAML that other
# tools' parsers accept (the Agent Skills client guide names it the most common mistake).
_PLAIN_WITH_COLON = re.compile(r"^([A-Za-z0-9_-]+):[ \t]+([^'\"\[{|>&*!#%@`\s].*:\s.*)$")


class Problem(BaseModel):
    """One thing wrong with one file, printable as a single line. ``error`` means the file (or
    the entry in it) was skipped; ``warning`` means it was kept as described."""

    model_config = ConfigDict(frozen=True)

    path: str
    field: str
    message: str
    level: Literal["error", "warning"] = "error"

    def __str__(self) -> str:
        return f"{self.path}: {self.field}: {self.message}"


class FrontMatterError(ValueError):
    """The front matter cannot be read; ``field`` says which part (``front matter``, ``file``)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


def read_front_matter(path: Path, *, lenient: bool = False) -> tuple[dict[str, Any], str, list[str]]:
    """Read ``path`` and split it (see :func:`parse_front_matter`); unreadable files and text
    that is not UTF-8 raise :class:`FrontMatterError` on the field ``file``."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise FrontMatterError("file", f"cannot be read ({exc.strerror or exc})") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FrontMatterError("file", f"is not UTF-8 text (byte {exc.start})") from None
    return parse_front_matter(text, lenient=lenient)


def parse_front_matter(text: str, *, lenient: bool = False) -> tuple[dict[str, Any], str, list[str]]:
    """``(fields, body, notes)`` of a Markdown text that opens with a ``---`` fenced YAML block.

    A byte-order mark and CRLF/CR line ends are accepted. The YAML is read with
    ``yaml.safe_load`` (no object construction); it must be a mapping. With ``lenient``, a block
    that fails only because a plain value holds ``": "`` is re-read with those values quoted, and
    ``notes`` says so. The body is the text after the closing fence, stripped.
    """
    import yaml  # lazy: only hosts that read definitions or skills pay for it

    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    if not lines or not _FENCE.match(lines[0]):
        raise FrontMatterError("front matter", "missing: the file must start with a '---' line")
    end = next((i for i in range(1, len(lines)) if _CLOSE.match(lines[i])), None)
    if end is None:
        raise FrontMatterError("front matter", "not closed: no '---' line after the opening one")
    block = "\n".join(lines[1:end])
    body = "\n".join(lines[end + 1:]).strip()
    notes: list[str] = []
    try:
        fields = yaml.safe_load(block)
    except yaml.YAMLError as exc:
        fields = _retry_quoted(block) if lenient else None
        if fields is None:
            raise FrontMatterError("front matter", f"is not valid YAML ({_yaml_reason(exc)})") from None
        notes.append("front matter is not valid YAML (a value holds ': '); read with those values quoted")
    if fields is None:
        fields = {}
    if not isinstance(fields, dict):
        raise FrontMatterError("front matter", f"must be a mapping of fields, not a {type(fields).__name__}")
    return {str(k): v for k, v in fields.items()}, body, notes


def _retry_quoted(block: str) -> dict[str, Any] | None:
    import yaml

    fixed = []
    for line in block.split("\n"):
        m = _PLAIN_WITH_COLON.match(line)
        if m:
            value = m.group(2).rstrip().replace("'", "''")
            line = f"{m.group(1)}: '{value}'"
        fixed.append(line)
    try:
        fields = yaml.safe_load("\n".join(fixed))
    except yaml.YAMLError:
        return None
    return fields if isinstance(fields, dict) else None


def _yaml_reason(exc: Exception) -> str:
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).split("\n", 1)[0]
    if mark is not None:
        return f"{problem} at line {mark.line + 2} of the file"  # +1: 1-based, +1: the fence
    return str(problem)
