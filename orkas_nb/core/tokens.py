"""Token estimation that knows scripts, with no tokenizer and no heavy dependency (SPEC §5).

A chars/4 rule is off 2-3x on Chinese. This estimator instead counts what a byte-level BPE
tokenizer (o200k_base, cl100k_base) actually splits on: word starts, camelCase boundaries,
digit groups, punctuation runs, indentation, newlines, and one weight per character class for
scripts whose text is not ASCII (Han, kana, Hangul, Cyrillic, Arabic, Indic, emoji ...).

Speed: the text is encoded to UTF-8 once and mapped to one class byte per code point with
``bytes.translate`` (continuation bytes deleted), so every count afterwards is a C-level
``bytes.count``; pure-ASCII text takes a shorter path that skips the non-ASCII classes. On
one quiet core this runs at roughly 40-120 MB/s depending on the script
(``tests/benchmarks/bench_tokens.py``).

The weights below were fitted against o200k_base on the corpus in ``tests/data/tokens``
(``python tests/core/calibrate_tokens.py --fit`` re-derives them); the per-class error table
is produced by the same script and its bound checked by ``tests/core/test_tokens.py``. Files
added to the corpus after the fit (en13-14, zh11-14, mx09-10 and three code files) were
never seen by it, and land within 7% of o200k.

Images are counted by their pixel size (from the block, or read from the PNG/JPEG/GIF/WebP
header), taking the larger of the two providers' published rules, since over-estimating an
image only compacts a little early while under-estimating one overflows the window.
"""

from __future__ import annotations

import base64
import json
import math
import struct
from collections.abc import Iterable, Sequence
from typing import Any

from .messages import shared_prefix

__all__ = [
    "MESSAGE_OVERHEAD",
    "estimate_image",
    "estimate_message",
    "estimate_messages",
    "estimate_request",
    "estimate_text",
]

# -- character classes ------------------------------------------------------------------------
# One class byte per code point: ASCII bytes map to their class, UTF-8 lead bytes map to the
# class of the script block they open, continuation bytes are deleted.
_LEAD_CLASSES = [  # (first byte, last byte, class)
    (0x61, 0x7A, "l"), (0x41, 0x5A, "u"), (0x30, 0x39, "d"),
    (0x0A, 0x0A, "n"), (0x0D, 0x0D, "n"), (0x09, 0x09, "s"), (0x0B, 0x0C, "s"), (0x20, 0x20, "s"),
    (0xC0, 0xC1, "q"),  # never valid UTF-8
    (0xC2, 0xCD, "L"),  # Latin-1 supplement, Latin extended, IPA, combining marks
    (0xCE, 0xCF, "g"),  # Greek
    (0xD0, 0xD4, "y"),  # Cyrillic
    (0xD5, 0xDF, "r"),  # Armenian, Hebrew, Arabic, Syriac, Thaana
    (0xE0, 0xE1, "i"),  # Indic, Thai, Georgian, Ethiopic, Khmer, Vietnamese extras
    (0xE2, 0xE2, "q"),  # general punctuation, arrows, maths, box drawing
    (0xE3, 0xE3, "k"),  # CJK punctuation, hiragana, katakana
    (0xE4, 0xE9, "H"),  # Han (U+4000-U+9FFF)
    (0xEA, 0xED, "K"),  # Hangul syllables (and Yi)
    (0xEE, 0xEE, "q"),  # private use
    (0xEF, 0xEF, "f"),  # full-width forms, CJK compatibility
    (0xF0, 0xF4, "e"),  # emoji and the supplementary planes
    (0xF5, 0xFF, "q"),  # never valid UTF-8
]


def _class_table() -> bytes:
    table = bytearray(b"p" * 256)  # the rest of ASCII: punctuation, symbols, controls
    for first, last, klass in _LEAD_CLASSES:
        table[first : last + 1] = klass.encode() * (last - first + 1)
    return bytes(table)


_CLASS_TABLE = _class_table()
_CONTINUATION = bytes(range(0x80, 0xC0))
_ASCII_AND_CONTINUATION = bytes(range(0xC0))

# Secondary maps over class bytes, for counting run starts with two-byte patterns.
def _map(keep: dict[str, str], default: str = ".") -> bytes:
    table = bytearray(default.encode() * 256)
    for src, dst in keep.items():
        table[ord(src)] = ord(dst)
    return bytes(table)


_LETTERS = _map({"l": "a", "u": "a", "L": "a"})
_DIGITS = _map({"d": "a"})
_PUNCT = _map({"p": "a", "q": "a"})
_SPACES = _map({"s": "a"})

# Weights fitted against o200k_base (see module docstring). Keys name the features.
WEIGHTS: dict[str, float] = {
    "word": 0.918,        # a run of Latin letters (a word, or a piece of an identifier)
    "letter": 0.027,      # each ASCII letter: long or rare words split into several tokens
    "upper": 0.23,        # capitals: acronyms and base64 split more
    "camel": 0.36,        # lower->upper boundary (camelCase) starts a new piece
    "digit": 0.395,       # BPE groups digits by at most three
    "digit_run": 1.065,
    "punct": 0.034,       # ASCII punctuation: runs merge, so the run count carries the weight
    "punct_run": 0.636,
    "newline": 1.027,
    "indent": 0.398,      # a run of two or more spaces (indentation, alignment)
    "latin_ext": 0.447,   # accented Latin letters (é, ß, ø ...)
    "han": 0.749,
    "cjk_punct": 0.309,   # 。、「」 merge with their neighbours
    "kana": 0.885,
    "hangul": 0.768,
    "fullwidth": 1.057,   # ，：（）
    "cyrillic": 0.348,
    "greek": 0.467,
    "rtl": 0.396,         # Hebrew, Arabic
    "indic": 0.374,
    "symbol": 1.111,      # “ ” — … arrows, maths
    "emoji": 1.767,
}
BIAS = 0.0
_NO_NON_ASCII = {
    k: 0
    for k in ("latin_ext", "han", "cjk_punct", "kana", "hangul", "fullwidth", "cyrillic",
              "greek", "rtl", "indic", "symbol", "emoji")
}


def _features(text: str) -> dict[str, int]:
    """Counts the estimate is a weighted sum of (exposed for calibration)."""
    if text.isascii():
        cls = text.encode("ascii").translate(_CLASS_TABLE)
        ascii_only = True
    else:
        raw = text.encode("utf-8", "surrogatepass")
        cls = raw.translate(_CLASS_TABLE, _CONTINUATION)
        ascii_only = False
    letters = cls.translate(_LETTERS)
    digits = cls.translate(_DIGITS)
    punct = cls.translate(_PUNCT)
    spaces = cls.translate(_SPACES)
    f = {
        "word": letters.count(b".a") + letters.startswith(b"a"),
        "letter": letters.count(b"a"),  # ASCII letters; accented ones are taken off below
        "upper": cls.count(b"u"),
        "camel": cls.count(b"lu"),
        "digit": cls.count(b"d"),
        "digit_run": digits.count(b".a") + digits.startswith(b"a"),
        "punct": cls.count(b"p"),
        "punct_run": punct.count(b".a") + punct.startswith(b"a"),
        "newline": cls.count(b"n"),
        "indent": spaces.count(b".aa") + spaces.startswith(b"aa"),
    }
    if ascii_only:
        f.update(_NO_NON_ASCII)
        return f
    # Non-ASCII classes are counted on the non-ASCII characters alone: a short string for
    # code or prose with a few accents, one byte per character for CJK.
    wide = raw.translate(_CLASS_TABLE, _ASCII_AND_CONTINUATION)
    cjk_punct = raw.count(b"\xe3\x80")  # U+3000-U+303F: 。、「」 and friends
    latin_ext = wide.count(b"L")
    f["letter"] -= latin_ext
    f.update(
        latin_ext=latin_ext, han=wide.count(b"H"), cjk_punct=cjk_punct,
        kana=wide.count(b"k") - cjk_punct, hangul=wide.count(b"K"),
        fullwidth=wide.count(b"f"), cyrillic=wide.count(b"y"), greek=wide.count(b"g"),
        rtl=wide.count(b"r"), indic=wide.count(b"i"), symbol=wide.count(b"q"),
        emoji=wide.count(b"e"),
    )
    return f


def estimate_text(text: str) -> int:
    """Estimated o200k_base token count of ``text`` (0 for the empty string)."""
    if not text:
        return 0
    f = _features(text)
    total = BIAS
    for key, weight in WEIGHTS.items():
        total += weight * f[key]
    return max(1, round(total))


# -- images ----------------------------------------------------------------------------------

# When an image's size cannot be read: a full-size image under either provider's rule.
UNKNOWN_IMAGE_TOKENS = 1600


def _image_size(data: str) -> tuple[int, int] | None:
    """Width and height from the header of a base64 PNG, GIF, WebP or JPEG (or None)."""
    try:
        head = base64.b64decode(data[:64_000] + "=" * (-len(data[:64_000]) % 4), validate=False)
    except (ValueError, TypeError):
        return None
    if head[:8] == b"\x89PNG\r\n\x1a\n" and len(head) >= 24:
        return struct.unpack(">II", head[16:24])
    if head[:6] in (b"GIF87a", b"GIF89a") and len(head) >= 10:
        return struct.unpack("<HH", head[6:10])
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP" and len(head) >= 30:
        kind = head[12:16]
        if kind == b"VP8X":
            w = 1 + int.from_bytes(head[24:27], "little")
            h = 1 + int.from_bytes(head[27:30], "little")
            return w, h
        if kind == b"VP8 " and len(head) >= 30:
            w, h = struct.unpack("<HH", head[26:30])
            return w & 0x3FFF, h & 0x3FFF
        if kind == b"VP8L" and len(head) >= 25:
            bits = int.from_bytes(head[21:25], "little")
            return 1 + (bits & 0x3FFF), 1 + ((bits >> 14) & 0x3FFF)
        return None
    if head[:2] == b"\xff\xd8":
        i = 2
        while i + 9 < len(head):
            if head[i] != 0xFF:
                i += 1
                continue
            marker = head[i + 1]
            if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
                i += 2
                continue
            length = struct.unpack(">H", head[i + 2 : i + 4])[0]
            if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
                h, w = struct.unpack(">HH", head[i + 5 : i + 9])
                return w, h
            i += 2 + length
    return None


def estimate_image(width: int | None = None, height: int | None = None, data: str | None = None) -> int:
    """Tokens an image costs: the larger of the Anthropic and OpenAI (high detail) rules."""
    if (not width or not height) and data:
        size = _image_size(data)
        if size:
            width, height = size
    if not width or not height or width <= 0 or height <= 0:
        return UNKNOWN_IMAGE_TOKENS
    # Anthropic: long side scaled to at most 1568 px, about (w*h)/750 tokens.
    scale = min(1.0, 1568 / max(width, height))
    anthropic = math.ceil(width * scale * height * scale / 750)
    # OpenAI high detail: fit in 2048x2048, short side to 768, 170 per 512-px tile plus 85.
    w, h = float(width), float(height)
    s = min(1.0, 2048 / max(w, h))
    w, h = w * s, h * s
    s = min(1.0, 768 / min(w, h))
    w, h = w * s, h * s
    openai = 85 + 170 * math.ceil(w / 512) * math.ceil(h / 512)
    return max(anthropic, openai)


# -- messages --------------------------------------------------------------------------------

# Framing the providers add per message and per tool call (role markers, ids, separators).
MESSAGE_OVERHEAD = 4
CALL_OVERHEAD = 8
_CACHE_KEY = "token_estimate"


def _block_tokens(block: Any) -> int:
    kind = getattr(block, "type", None)
    if kind in ("text", "summary"):
        return estimate_text(block.text)
    if kind == "thinking":
        # Redacted thinking is an opaque blob the provider still counts.
        return estimate_text(block.text) + (len(block.signature or "") // 4 if block.redacted else 0)
    if kind == "image":
        return estimate_image(block.width, block.height, block.data)
    if kind == "tool_call":
        args = block.raw_arguments
        if args is None:
            args = json.dumps(block.arguments, ensure_ascii=False, separators=(",", ":"))
        return CALL_OVERHEAD + estimate_text(block.name) + estimate_text(args) + estimate_text(block.id)
    return 0


def estimate_message(message: Any) -> int:
    """Estimated tokens of one message, cached on the (immutable) message."""
    cache = getattr(message, "wire_cache", None)
    if cache is not None:
        hit = cache.get(_CACHE_KEY)
        if hit is not None:
            return hit
    total = MESSAGE_OVERHEAD + sum(_block_tokens(b) for b in message.content)
    if getattr(message, "role", None) == "tool":
        total += estimate_text(message.tool_call_id)
    if cache is not None:
        cache[_CACHE_KEY] = total
    return total


def estimate_messages(messages: Iterable[Any]) -> int:
    return sum(estimate_message(m) for m in messages)


# No character adds more than the sum of the weights (each feature counts a character at most
# once), so a text's estimate is at most this many tokens per character.
MAX_TOKENS_PER_CHAR = math.ceil(sum(w for w in WEIGHTS.values() if w > 0) + max(BIAS, 0.0))


def _text_bound(text: str | None) -> int:
    return MAX_TOKENS_PER_CHAR * len(text) if text else 0


def estimate_bound(messages: Iterable[Any]) -> int | None:
    """An upper bound of ``estimate_messages(messages)`` from lengths alone, without running
    the estimator (a message already estimated counts exactly); None when a message holds an
    image, whose estimate does not follow from its length."""
    total = 0
    for m in messages:
        hit = m.wire_cache.get(_CACHE_KEY) if hasattr(m, "wire_cache") else None
        if hit is not None:
            total += hit
            continue
        total += MESSAGE_OVERHEAD
        if getattr(m, "role", None) == "tool":
            total += _text_bound(m.tool_call_id)
        for b in m.content:
            kind = getattr(b, "type", None)
            if kind == "image":
                return None
            if kind in ("text", "summary", "thinking"):
                total += _text_bound(b.text) + (len(b.signature or "") // 4 if kind == "thinking" else 0)
            elif kind == "tool_call":
                args = b.raw_arguments
                if args is None:
                    args = json.dumps(b.arguments, ensure_ascii=False, separators=(",", ":"))
                total += CALL_OVERHEAD + _text_bound(b.name) + _text_bound(args) + _text_bound(b.id)
    return total


class RunningEstimate:
    """``estimate_messages`` of a history that grows by appends, without re-summing it.

    Between two requests of a run the history is the previous one plus what was appended (the
    same message objects), so the sums of the previous call are kept and only the new messages
    are estimated; a history that is a prefix of the last one is answered from the sums. Any
    other change (a rewrite) is found by object identity and re-summed from where it differs.
    """

    def __init__(self) -> None:
        self._messages: list[Any] = []
        self._sums: list[int] = [0]  # _sums[i]: tokens of _messages[:i]

    def total(self, messages: Sequence[Any]) -> int:
        known = self._messages
        k = shared_prefix(known, messages)
        if k == len(messages):
            return self._sums[k]
        del known[k:]
        del self._sums[k + 1:]
        total = self._sums[k]
        for m in messages[k:]:
            total += estimate_message(m)
            known.append(m)
            self._sums.append(total)
        return total


_TOOL_KEY = "estimate:tool"


def _tool_estimate(spec: Any) -> int:
    schema = json.dumps(spec.input_schema, ensure_ascii=False, separators=(",", ":"))
    return CALL_OVERHEAD + estimate_text(spec.name) + estimate_text(spec.description) + estimate_text(schema)


def estimate_tools(tools: Sequence[Any]) -> int:
    """Tool specs as the model sees them: name, description and JSON schema (cached on the spec)."""
    total = 0
    for spec in tools:
        cache = getattr(spec, "wire_cache", None)
        if cache is None:
            total += _tool_estimate(spec)
            continue
        hit = cache.get(_TOOL_KEY)
        if hit is None:
            hit = cache[_TOOL_KEY] = _tool_estimate(spec)
        total += hit
    return total


def estimate_request(system: str, messages: Sequence[Any], tools: Sequence[Any] = ()) -> int:
    """Estimated input tokens of a whole request: system prompt, tool specs and history."""
    return estimate_text(system) + estimate_tools(tools) + estimate_messages(messages)
