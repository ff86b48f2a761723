"""The two pieces of text a conversation reads for routing: ``<handback />`` and ``@name``.

Both are strict on purpose (seed 003 §3): a model writes ``<handback`` or ``@someone`` in prose
and in code all the time, and neither may move the floor or address anyone. Assignment is only
ever a tool call; these two parsers only read the *user's* addressing and a floor holder's
hand-back.

**Hand-back.** A message hands back when its last non-blank line is the marker and nothing else:

- the marker is ``<handback/>`` or ``<handback />`` (any spaces or tabs before ``/>``), in any
  letter case (``<HandBack />``): models vary case, and the line-on-its-own rule already keeps
  prose out;
- the line may carry up to three leading spaces and any trailing whitespace, and blank lines
  may follow it; four spaces or a tab before it make it an indented code line (Markdown), which
  does not count;
- it must not be inside a fenced code block (```` ``` ```` or ``~~~``, closed or left open);
- ``<handback>``, ``<handback></handback>``, a marker in backticks, quoted (``> <handback />``),
  mid-sentence, or followed by any more text do not count.

**Addressing.** A prompt addresses a member when it *starts* (after whitespace) with ``@name``
followed by the end, whitespace, or ``:``/``,`` — ``@researcher find X`` or ``@researcher: find
X``. An email address, ``@`` later in the text, or ``@name.more`` / ``@name/x`` are not
addressing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

_MARKER = re.compile(r"^ {0,3}<handback[ \t]*/>\s*$", re.IGNORECASE)
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")


@dataclass(frozen=True)
class Handback:
    """The message without its marker, and whether it handed the floor back."""

    text: str
    handed_back: bool


def split_handback(message: str) -> Handback:
    """Read a floor holder's message: strip a real ``<handback />`` (see the module docs)."""
    lines = message.split("\n")
    last = len(lines) - 1
    while last >= 0 and not lines[last].strip():
        last -= 1
    if last < 0 or not _MARKER.match(lines[last]):
        return Handback(message, False)
    if _inside_fence(lines[:last]):
        return Handback(message, False)
    return Handback("\n".join(lines[:last]).rstrip(), True)


def _inside_fence(lines: Iterable[str]) -> bool:
    """Whether a fenced code block is still open after ``lines`` (CommonMark's fence rules)."""
    open_char, open_len = "", 0
    for line in lines:
        m = _FENCE.match(line)
        if not m:
            continue
        fence, rest = m.group(1), m.group(2)
        if not open_char:
            if fence[0] == "`" and "`" in rest:  # a backtick fence's info string has no backtick
                continue
            open_char, open_len = fence[0], len(fence)
        elif fence[0] == open_char and len(fence) >= open_len and not rest.strip():
            open_char, open_len = "", 0
    return bool(open_char)


_ADDRESS = re.compile(r"^\s*@([A-Za-z0-9][A-Za-z0-9_-]{0,63})(?=$|[\s:,])[:,]?\s*", re.DOTALL)


@dataclass(frozen=True)
class Addressed:
    member: str  # as written, or as the member is called when ``members`` was given
    text: str  # the prompt without the address


def parse_address(prompt: str, members: Iterable[str] | None = None) -> Addressed | None:
    """``@name rest`` at the very start of ``prompt`` → who and what; None when not addressed.

    With ``members``, the name is matched without regard to case and an unknown one raises
    ``ValueError`` naming the members (a typo must not silently go to the floor holder).
    """
    m = _ADDRESS.match(prompt)
    if not m:
        return None
    name, rest = m.group(1), prompt[m.end():]
    if members is not None:
        known = {x.lower(): x for x in members}
        if name.lower() not in known:
            raise ValueError(f"no member named {name!r} in this conversation "
                             f"(members: {', '.join(sorted(known.values())) or 'none'})")
        name = known[name.lower()]
    return Addressed(name, rest)


# A line on its way to becoming the marker: a prefix of ``<handback />`` (any case, up to three
# leading spaces), or the whole marker.
_MARKER_PREFIX = re.compile(r"^ {0,3}<(?:h(?:a(?:n(?:d(?:b(?:a(?:c(?:k(?:[ \t]*(?:/>?)?)?)?)?)?)?)?)?)?)?$",
                            re.IGNORECASE)


class HandbackStream:
    """A floor holder's text as it streams, without a real ``<handback />`` ever showing.

    :meth:`feed` returns what may be shown now: everything but a trailing line that is (or may
    still become) the marker, with the blank lines after it. :meth:`end` decides with
    :func:`split_handback` on the whole text: the held text is dropped when the message handed
    back, shown otherwise (a marker inside a code fence, or followed by more text, is prose).
    """

    def __init__(self) -> None:
        self.text = ""
        self._shown = 0

    def feed(self, delta: str) -> str:
        self.text += delta
        end = max(self._held_from(), self._shown)
        out, self._shown = self.text[self._shown:end], end
        return out

    def end(self) -> tuple[str, bool]:
        """``(text still to show, handed back)`` once the message is complete."""
        result = split_handback(self.text)
        rest = (result.text if result.handed_back else self.text)[self._shown:]
        self._shown = len(self.text)
        return rest, result.handed_back

    def _held_from(self) -> int:
        text = self.text
        stripped = text.rstrip()
        start = text.rfind("\n", 0, len(stripped)) + 1
        line = text[start:len(stripped)] if stripped else ""
        if not line:
            return len(text)
        complete = "\n" in text[start:]
        if _MARKER.match(line) or (not complete and _MARKER_PREFIX.match(line)):
            return start
        return len(text)
