"""Markup (HTML, XML) in a text: the words inside its tags are English identifiers.

Tag and attribute names, class names and link targets (``<div class="section-header">``,
``href="ch02-01.html"``) are words o200k holds whole, as it does English ones, yet they have
none of the "th" backed by a word-final "he" that tells English prose: without this, a page of
English prose in HTML reads as mostly foreign words and is over-estimated (+11-12% on the
outside checks); so are a style sheet's properties; and a tag's "<" is in one piece with the tag's name. The tags are told by a closing tag (``</``), which code and prose seldom hold;
what lies between one tag's ``>`` and the next ``<`` is the text (but in a ``<style>`` or
``<script>`` block), the rest is markup.
"""

from __future__ import annotations

import re

_BETWEEN_TAGS = re.compile(rb">[^<>]*<")
# A style sheet or a script inside the page is markup too: CSS properties and values, a
# script's identifiers (``background-color``, ``font-family``, ``getElementById``).
_BLOCKS = re.compile(rb"<(style|script)\b[^>]*>(.*?)</\1", re.S)
SAMPLE = 16_000  # bytes: the share is read at the start of a long text


def tags(original: bytes) -> bytes | None:
    """The bytes of a text's tags (the text between them cut out), or None without markup."""
    head = original[:SAMPLE]
    if b"</" not in head:
        return None
    start, end = head.find(b"<"), head.rfind(b">")
    if start < 0 or end < start:
        return None
    blocks = b" ".join(m[2] for m in _BLOCKS.finditer(head)) if b"<s" in head else b""
    return _BETWEEN_TAGS.sub(b"> <", head[start : end + 1]) + b" " + blocks


def english_with_markup(english: float, markup_share: float) -> float:
    """The English share of a text whose words are ``markup_share`` markup: those are English,
    and the "th" marks the share was read from are the prose's, whose letters are the rest."""
    if markup_share >= 1.0 or english >= 1.0:
        return 1.0
    prose = min(1.0, english / (1.0 - markup_share))
    return markup_share + (1.0 - markup_share) * prose


# A tag's "<" after a line break or a word ("\n<p", "text<br>") opens the tag name's piece, as
# o200k's vocabulary holds the common ones whole ("<p", "<li", "<div", "<span", "<td"); after a
# space or another mark it is a piece of marks (" <", "><"), as the other marks are.
# One translate maps "<" to "<", a small letter to "a", a line break, digit, capital or "_" to
# "w" (what a tag's "<" joins after) and the rest to "." (a regex with a look-behind tries
# every position, some ten times slower); a tag opening after one is "w<a".
_TAG_OPEN = bytes(ord("<") if i == 0x3C else ord("a") if 0x61 <= i <= 0x7A
                  else ord("w") if i == 0x0A or i == 0x5F or 0x30 <= i <= 0x39 or 0x41 <= i <= 0x5A else ord(".")
                  for i in range(256))


def tag_opens(original: bytes) -> float:
    """How many tags open right after a line break or a word (their "<" joins the name), read
    at the start of a long text and scaled to the whole."""
    head = original[:SAMPLE]
    codes = head.translate(_TAG_OPEN)
    n = codes.count(b"w<a") + codes.count(b"a<a") + (head[:1] == b"<" and head[1:2].islower())
    return n * len(original) / len(head)


# A style sheet's declarations ("  background-color: #f6f8fa;") and selectors ("pre > code {"):
# property names and values are English identifiers too, with no "th" in them (CSS read as
# foreign words: +10% over). A line that is one declaration, or a selector opening a block, is
# markup once the text holds a few declarations (a TypeScript interface's fields read the same).
# (Each opens with its line break, a literal the engine skips to; "^" with re.M tries every byte.)
_DECLARATION = re.compile(rb"\n[ \t]*[a-z][a-z-]*[ \t]*:[^;\n{}]*;[ \t]*(?=\n)")
_SELECTOR = re.compile(rb"\n[^;\n{}]*\{[ \t]*(?=\n)")
_FEW = 3


def declarations(original: bytes) -> bytes | None:
    """The lines of a text's style declarations and selectors, or None if it has few."""
    # (one-byte finds first: at memchr speed, where a two-byte pattern's search is ten times slower)
    if original.find(b";", 0, SAMPLE) < 0 or original.find(b":", 0, SAMPLE) < 0:
        return None
    head = original[:SAMPLE]
    found = _DECLARATION.findall(head) if b";\n" in head else []
    if len(found) < _FEW:
        return None
    return b"\n".join(found + _SELECTOR.findall(head))
