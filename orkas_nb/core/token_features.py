"""The counts the token estimator weighs: one pass per count, all at C speed.

The text is encoded to UTF-8 once and mapped with ``bytes.translate`` to one class byte per code
point (continuation bytes deleted), with a class alphabet of at most 16 values. A second string
then holds, for every position, its class and the one before it in one byte (built with two
integer shifts on ``int.from_bytes``), and one more translate maps each such pair to the event it
is (a word start, a run of marks, camelCase ...) and deletes the rest: every "X after Y" count is
then one ``bytes.count`` of a single byte on a string a fifth as long as the text. The
per-script counts run on the non-ASCII lead bytes alone; scripts, accents and Vietnamese letters
are told by two-byte prefixes or bytes, never by a regex or one object per character. The
letter 4-grams of a foreign Latin text's start are looked up, one ``str.translate``, in a table
read off o200k's vocabulary (``token_grams``, loaded on first use).

Pure-ASCII text skips the non-ASCII classes; on a text over 128K characters the counts of how
pieces join (camelCase, a space before a digit ...) are taken on four 16K-character windows and
scaled, the rest on the whole text (``tests/benchmarks/bench_tokens.py`` measures it).
"""

from __future__ import annotations

import re
from typing import Any

from . import token_grams, token_markup
from .token_letters import NON_ASCII as NON_ASCII, PER_CHARACTER as PER_CHARACTER  # (re-exported)
from .token_letters import RARE_LETTERS, SCRIPT_WORDS, other_scripts
from .token_scripts import MAX_COST, load_costs
from .token_tables import ACCENT_WEIGHTS, BLOCK_COSTS, HAN_SINGLE

# -- character classes ------------------------------------------------------------------------
# One class per code point: ASCII bytes map to their class, UTF-8 lead bytes to the class of the
# script block they open (the classes the pairs need), continuation bytes are deleted.
X, LOWER, UPPER, LATIN, DIGIT, SPACE, NEWLINE, JOIN, PUNCT, SYMBOL, CJK, SPACED, SLASH, OPEN = range(14)
_LEAD_CLASSES = [  # (first byte, last byte, class)
    (0x61, 0x7A, LOWER), (0x41, 0x5A, UPPER), (0x30, 0x39, DIGIT),
    (0x0A, 0x0A, NEWLINE), (0x0D, 0x0D, NEWLINE),
    (0x09, 0x09, SPACE), (0x0B, 0x0C, SPACE), (0x20, 0x20, SPACE),
    # _ . - / join the word after them (snake_case, os.path, a/path); "/" also a mark's piece (".\n//")
    (0x5F, 0x5F, JOIN), (0x2E, 0x2E, JOIN), (0x2D, 0x2D, JOIN), (0x2F, 0x2F, SLASH),
    (0x28, 0x28, OPEN),  # "(": as often in one piece with the word after it ("(self", "(text")
    (0x80, 0xFF, X),  # non-ASCII lead bytes not named below (full-width forms, emoji)
    (0xC1, 0xC1, SYMBOL), (0xC0, 0xC0, LATIN), (0xE2, 0xE2, SYMBOL), (0xEE, 0xEE, SYMBOL), (0xF5, 0xFF, SYMBOL),
    (0xC2, 0xCD, LATIN),  # Latin-1 supplement, Latin extended, IPA, combining marks
    (0xCE, 0xDF, SPACED), (0xE0, 0xE1, SPACED), (0xEA, 0xED, SPACED),  # scripts with spaces between words
    (0xE3, 0xE9, CJK),  # CJK punctuation, kana, Han
]
# The script of each non-ASCII lead byte, for the per-script counts (a short string: the
# non-ASCII characters alone).
_SCRIPT_LEADS = [
    (0xC0, 0xC0, "V"), (0xC1, 0xC1, "q"), (0xC2, 0xCD, "L"), (0xCE, 0xCF, "g"), (0xD0, 0xD4, "y"), (0xD5, 0xD5, "a"), (0xD6, 0xD7, "r"),
    (0xD8, 0xDB, "b"), (0xDC, 0xDF, "u"), (0xE0, 0xE1, "i"), (0xE2, 0xE2, "q"), (0xE3, 0xE3, "k"), (0xE4, 0xE9, "H"),
    (0xEA, 0xED, "K"), (0xEE, 0xEE, "q"), (0xEF, 0xEF, "f"), (0xF0, 0xF4, "e"), (0xF5, 0xFF, "q"),
]


def _table(ranges: list[tuple[int, int, Any]], default: int) -> bytes:
    table = bytearray([default] * 256)
    for first, last, klass in ranges:
        value = ord(klass) if isinstance(klass, str) else klass
        table[first : last + 1] = bytes([value]) * (last - first + 1)
    return bytes(table)


_CLASS_TABLE = _table(_LEAD_CLASSES, PUNCT)  # the rest of ASCII: punctuation, symbols, controls
_SCRIPT_TABLE = _table(_SCRIPT_LEADS, ord("."))
_CONTINUATION = bytes(range(0x80, 0xC0))
_ASCII_AND_CONTINUATION = bytes(range(0xC0))
_ASCII = bytes(range(0x80))
_NOT_LATIN_PAIR = bytes([*range(0x80), 0xC0, 0xC1, *range(0xCE, 0x100)])  # kept: C2-CD leads, continuation bytes
# The accents by the high byte of their code point (all are below U+0300), as low bytes (none 0).
_ACCENT_LOW = {h: frozenset(ord(c) & 0xFF for c in ACCENT_WEIGHTS if ord(c) >> 8 == h) for h in range(3)}
_HIGH_MASKS = {h: bytes(0xFF if i == h else 0 for i in range(256)) for h in _ACCENT_LOW}
_ACCENT_KEYS = {ord(c): "accent_" + c for c in ACCENT_WEIGHTS}
assert all(ord(c) < 0x300 and ord(c) & 0xFF for c in ACCENT_WEIGHTS)
# Latin Extended Additional (U+1E00-U+1EFF, Vietnamese ệ ạ ả ...) shares its lead byte with
# Georgian and Khmer: its prefixes (E1 B8-BB) are rewritten before classing, in one replace of
# equal length once the four second bytes are made one (continuation bytes carry no class), to
# C0, a lead byte no UTF-8 text holds, classed Latin and counted as "V".
_VIET_SECOND = bytes(0xB8 if 0xB8 <= i <= 0xBB else i for i in range(256))

# -- pairs ------------------------------------------------------------------------------------
# A pair byte is (class << 4) | class before; the first character's "before" is X.
_LETTER = (LOWER, UPPER, LATIN)
_MARK = (JOIN, PUNCT, SYMBOL, SLASH, OPEN)
_JOINS = (JOIN, SLASH)


_LETTERS = bytes(_LETTER)
# Every count of "a class after another" (and every run start) is read from one string: each
# pair byte is mapped to the event it is (the events are disjoint by the character's class)
# and the pair bytes that are no event are deleted in the same pass, so the counts run on a
# string a fifth as long as the text's (prose: its word starts and marks).
WORD, JOIN_WORD, LINE_WORD, CAMEL, DIGIT_RUN, SPACE_DIGIT, PUNCT_RUN, PUNCT_NEWLINE, SPACE_CJK, SLASH_LINE = range(1, 11)


def _event(pair: int) -> int:
    now, before = pair >> 4, pair & 15
    if now in _LETTER and before not in _LETTER:
        return JOIN_WORD if before in _JOINS else LINE_WORD if before == NEWLINE else WORD  # _kind .path
    if now == UPPER and before == LOWER:
        return CAMEL
    if now == DIGIT and before != DIGIT:
        return SPACE_DIGIT if before == SPACE else DIGIT_RUN
    if now == SLASH and before == NEWLINE:
        return SLASH_LINE  # "//" opening a line: one piece with the mark and line break before it, if any
    if now in _MARK and before not in _MARK:
        return PUNCT_RUN
    if now == NEWLINE and before in _MARK:
        return PUNCT_NEWLINE  # o200k's piece of marks takes the line breaks after it (";\n", ".\n", "/\n")
    if now == CJK and before == SPACE:
        return SPACE_CJK
    return 0


_EVENTS = bytes(_event(i) for i in range(256))
_NOT_WORD = bytes(i for i in range(256) if i not in (WORD, JOIN_WORD, LINE_WORD))
_NO_EVENT = bytes(i for i in range(256) if not _EVENTS[i])
# o200k lets a lone mark (between a non-space and a letter) open a word's piece: "os" ".path",
# "(self"; not after a space (" -v": " -" "v") nor in a run ('="a'). Its vocabulary has such pieces
# for . _ - ( / (824 to 4,410 each), few for other marks (' < , [ : = under 300). A translate maps
# a mark's pair after a non-space, non-mark to "a" (those five) or "b", a letter's after a mark to
# "c", any other mark's to "d", and deletes the rest: a lone mark opening a word is "ac" or "bc".
_OPENERS = (X, LOWER, UPPER, LATIN, DIGIT, NEWLINE, CJK, SPACED)


def _lone_mark_code(i: int) -> int:
    now, before = i >> 4, i & 15
    if now in (*_JOINS, OPEN) and before in _OPENERS:
        return ord("a")
    if now in (PUNCT, SYMBOL) and before in _OPENERS:
        return ord("b")
    if now in _MARK:  # (after a mark or a space: no lone mark)
        return ord("d")
    return ord("c") if now in _LETTER and before in _MARK else 0


_LONE_MARK = bytes(map(_lone_mark_code, range(256)))
_NOT_LONE_MARK = bytes(i for i in range(256) if not _LONE_MARK[i])


def _lone_marks(near: bytes) -> tuple[int, int]:
    """How many lone marks of _ . - ( / and of the other marks open a word (see _LONE_MARK)."""
    codes = near.translate(_LONE_MARK, _NOT_LONE_MARK)
    return codes.count(b"ac"), codes.count(b"bc")


# A run of two or more spaces: a space after a non-space ("b") followed by one after a space ("a").
_INDENT = bytes(ord("a") if i == SPACE << 4 | SPACE else ord("b") if i >> 4 == SPACE else ord(".") for i in range(256))
_SPACE, _NEWLINE, _DIGIT, _TWO_SPACES = bytes([SPACE]), bytes([NEWLINE]), bytes([DIGIT]), bytes([SPACE] * 2)
_BLANK_LINE, _DIGIT_PIECES = bytes([NEWLINE] * 2), bytes([DIGIT << 4 | DIGIT] * 3)


def _pairs(cls: bytes) -> bytes:
    v = int.from_bytes(cls, "big")
    return ((v << 4) | (v >> 8)).to_bytes(len(cls), "big")


def _letters(cls: bytes) -> int:
    return len(cls) - len(cls.translate(None, _LETTERS))


# Each spaced script's lead bytes to its own letter, the rest to ".", continuation bytes deleted.
_SPACED_TABLE = _table([r for r in _SCRIPT_LEADS if r[2] in SCRIPT_WORDS], ord("."))
# A text's Latin words are English (one token each, mostly) or not (split more). "th" per Latin
# letter tells them apart (18 per 1000 letters in English prose, 14 in code, at most 1.4 in the
# other Latin languages of the corpus but Vietnamese, which has its own feature); code whose
# identifiers hide their English in snake_case is told by its underscores (11-22 per 1000).
_TH_PER_LETTER = 0.015
# "th" alone also marks the Celtic and Nguni languages (Welsh "gwaith", Irish and Gaelic
# lenition "thá", Zulu and Xhosa aspiration "thetha": 8-12 per 1000 letters), whose words o200k
# splits far more than English ones. English also ends words in "he" (the, he, she, where:
# 11 per 1000 letters, 8 in code), which those do not (0-1): a "th" counts only as far as a
# word-final "he" backs it, two "th" per "he".
_TH_PER_HE = 2
_UNDERSCORE_AS_TH = 0.3
_ENGLISH_SAMPLE = 16_000  # characters
_JOINED_FROM, _JOINED_SPAN = 0.5, 0.3  # share of words joined by _ . - / above which they are identifiers
# Traditional Chinese costs more per character than simplified: frequent characters that
# differ between the two, counted at the start of a text, say which one it is.
_TRADITIONAL = "無數為時個對開後過來這們說會國學經現還動體於與檔選項設資"
_SIMPLIFIED = "无数为时个对开后过来这们说会国学经现还动体于与档选项设资"
_HAN_SAMPLE = 2000  # characters
_ACCENT_SAMPLE = 3000  # characters
_RARE_KEYS = [(ord(c), f"rare_{c}") for c in RARE_LETTERS]
_NOT_RARE = bytes(i for i in range(256) if chr(i) not in RARE_LETTERS)
_NOT_RARE_NOR_LATIN_PAIR = bytes(i for i in _NOT_RARE if i in _NOT_LATIN_PAIR)
_PATTERNS: dict[str, re.Pattern[str]] = {}  # compiled on first use: the import stays light
load_costs(BLOCK_COSTS)


# A feature whose count is a cost in tokens (up to this many per character), not a number of
# characters: the length bound scales its weight.
SCALE = {"unfitted": MAX_COST, "script_digit": 3.0}  # (script_digit: token_scripts.DIGIT_COSTS)


def _pattern(name: str) -> re.Pattern[str]:
    if not _PATTERNS:
        # A Han character o200k has no single token for (any other costs two or three pieces).
        _PATTERNS["rare_han"] = re.compile("[^\\x00-\\u4dff\\ua000-\\U0010ffff" + HAN_SINGLE + "]")
        _PATTERNS["variant"] = re.compile(f"[{_TRADITIONAL}]|([{_SIMPLIFIED}])")
    return _PATTERNS[name]


_SAMPLE_WINDOWS = 4
_SAMPLE_WINDOW = 16_384  # characters
LONG = 2 * _SAMPLE_WINDOWS * _SAMPLE_WINDOW  # longer texts have their pair counts sampled


def _sample(cls: bytes) -> tuple[bytes, float]:
    """Up to four evenly spaced windows of a long text's class bytes, and the factor that
    scales a count on them to the whole text (the whole text itself when it is short)."""
    n = len(cls)
    if n <= LONG:
        return cls, 1.0
    step = (n - _SAMPLE_WINDOW) // (_SAMPLE_WINDOWS - 1)
    sample = bytes([X]).join(cls[i * step : i * step + _SAMPLE_WINDOW] for i in range(_SAMPLE_WINDOWS))
    return sample, n / (_SAMPLE_WINDOWS * _SAMPLE_WINDOW)


def features(text: str) -> dict[str, float]:
    """Counts the estimate is a weighted sum of (exposed for calibration; a feature that is
    absent counts zero)."""
    ascii_only = text.isascii()
    if ascii_only:
        raw = original = text.encode("ascii")
        cls = raw.translate(_CLASS_TABLE)
        wide, latin_ext, viet = b"", 0, 0
    else:
        raw = original = text.encode("utf-8", "surrogatepass")
        if b"\xe1" in raw:
            raw = raw.translate(_VIET_SECOND).replace(b"\xe1\xb8", b"\xc0\xb8")
        cls = raw.translate(_CLASS_TABLE, _CONTINUATION)
        wide = raw.translate(_SCRIPT_TABLE, _ASCII_AND_CONTINUATION)  # (its Latin letters: "L", "V")
        latin_ext, viet = wide.count(b"L"), wide.count(b"V")
    n_chars = len(cls)
    pairs = _pairs(cls)
    events = pairs.translate(_EVENTS, _NO_EVENT)
    upper = cls.count(UPPER)
    n_letters = cls.count(LOWER) + upper + (0 if ascii_only else latin_ext + viet)
    join_word, line_word = events.count(JOIN_WORD), events.count(LINE_WORD)
    words = events.count(WORD) + join_word + line_word
    # The share of English is read at the start of a long text (one class byte per character).
    in_head = _letters(cls[:_ENGLISH_SAMPLE]) if n_chars > _ENGLISH_SAMPLE else n_letters
    tags_open = 0  # tags whose "<" opens the name's piece (markup only)
    if in_head:
        # (on the UTF-8 bytes of a short text: the same ASCII letters, one byte each)
        if n_chars <= _ENGLISH_SAMPLE:
            th, under = original.count(b"th"), original.count(b"_") if b"_" in original else 0
            he = original.count(b"he ") if th else 0  # (min(th, ...) is 0 without one)
        else:
            th, under = text.count("th", 0, _ENGLISH_SAMPLE), text.count("_", 0, _ENGLISH_SAMPLE)
            he = text.count("he ", 0, _ENGLISH_SAMPLE) if th else 0
        marks = min(th, _TH_PER_HE * he) + _UNDERSCORE_AS_TH * under
        english = min(1.0, marks / (_TH_PER_LETTER * in_head))
        if english < 1.0 and join_word > _JOINED_FROM * words:
            # Words most of which a mark joins to the one before (hosts, paths, package names:
            # URL lists) are identifiers, English-like whatever "th" says (prose: at most 0.6).
            english = max(english, min(1.0, (join_word / words - _JOINED_FROM) / _JOINED_SPAN))
        markup = token_markup.tags(original) if words and original.find(b"<", 0, token_markup.SAMPLE) >= 0 else None
        if markup:
            tags_open = token_markup.tag_opens(original)
        elif english < 1.0 and words and original.find(b"{", 0, token_markup.SAMPLE) >= 0:
            markup = token_markup.declarations(original)
        if markup:
            in_tags = markup.translate(_CLASS_TABLE, _CONTINUATION)
            share = _pairs(in_tags).translate(_EVENTS, _NO_EVENT).translate(None, _NOT_WORD)
            english = token_markup.english_with_markup(english, min(1.0, len(share) / (words * min(1.0, token_markup.SAMPLE / len(original)))))
    else:
        english = 0.0
    foreign, latin_head = 1.0 - english, None
    # Second-order features (how pieces join) are counted on a sample of a long text.
    sample, scale = _sample(cls)
    if sample is cls:
        near, near_events = pairs, events
    else:
        near = _pairs(sample)
        near_events = near.translate(_EVENTS, _NO_EVENT)
        join_word, line_word = near_events.count(JOIN_WORD), near_events.count(LINE_WORD)
    has_newline = _NEWLINE in cls
    # o200k's piece of marks takes the line breaks after it (";\n", ".\n", '"\n\n'): a line break
    # right after a mark is no piece of its own, and is not weighed as one.
    taken = near_events.count(PUNCT_NEWLINE) * scale if has_newline else 0
    f: dict[str, float] = {
        "word_en": words * english, "word_x": words * foreign,
        "letter_en": n_letters * english, "letter_x": n_letters * foreign,
        "upper": upper,
        "digit_run": events.count(DIGIT_RUN) + events.count(SPACE_DIGIT),
        # o200k cuts a run of n digits in threes from its left (1234567: 123 456 7): the pieces
        # beyond its first are the n - 1 "digit after a digit" pairs taken three at a time
        "digit_group": pairs.count(_DIGIT_PIECES) if _DIGIT in cls else 0,
        "punct_run": events.count(PUNCT_RUN),
        "newline": cls.count(NEWLINE) - taken if has_newline else 0,
        "camel": near_events.count(CAMEL) * scale,
        "space_digit": near_events.count(SPACE_DIGIT) * scale,
        "join_word": join_word * scale,
        "punct_newline": taken,
        "slash_line": near_events.count(SLASH_LINE) * scale if has_newline else 0,
        "blank_line": sample.count(_BLANK_LINE) * scale if has_newline else 0,
        "line_word": line_word * scale,
        "indent": 0,
    }
    if _TWO_SPACES in sample:
        f["indent"] = near.translate(_INDENT).count(b"ba") * scale
    if f["punct_run"] and words:
        joins, marks = _lone_marks(near)
        tags_open = min(marks * scale, tags_open)  # (a tag's "<p", "<div": as a joining mark's)
        f["punct_run"] -= joins * scale + tags_open  # (its piece is the word's: "/facebook", ".com", "(text")
        f["mark_prefix"] = marks * scale - tags_open
    if foreign and n_letters:
        in_head = n_letters if n_chars <= _ACCENT_SAMPLE else _letters(cls[:_ACCENT_SAMPLE])
        if in_head:
            per = n_letters * foreign / in_head
            head = original if n_chars <= _ACCENT_SAMPLE else text[:_ACCENT_SAMPLE].encode("utf-8", "surrogatepass")
            # (one pass keeps the rare letters and the accents' bytes: the accent counts read it too)
            latin_head = head.translate(None, _NOT_RARE_NOR_LATIN_PAIR) if latin_ext else None
            rare = (latin_head or head).translate(None, _NOT_RARE)  # the six letters alone: a short string
            for c, key in _RARE_KEYS if rare else ():
                if c in rare:
                    f[key] = rare.count(c) * per
    # English words are familiar, a hash or base64 is not, whatever the English share: its unknown
    # 4-grams weigh apart. Its words are cut by digits and capitals (one in two or more; prose: few).
    random = 2 * (f["digit_run"] + f["camel"]) >= words > 0
    if n_letters * token_grams.SHARE >= n_chars and (foreign or random):
        # (skipped where Latin letters are few: Cyrillic or Chinese with a Latin word or two)
        unknown, rare, known = token_grams.counts(raw, ascii_only, _CONTINUATION)
        f["gram_0"], f["gram_1"], f["gram_2"] = unknown * foreign, rare * foreign, known * foreign
        f["gram_0_en"] = unknown * english if random else 0.0
    if ascii_only:
        return f
    _non_ascii(f, text, raw, original, cls, near_events, scale, wide, latin_ext, viet, latin_head)
    return f


def _non_ascii(f: dict[str, float], text: str, raw: bytes, original: bytes, cls: bytes,
               near_events: bytes, scale: float, wide: bytes, latin_ext: float, viet: int,
               latin_head: bytes | None) -> None:
    """The per-script counts, on the non-ASCII characters alone (``wide``, one class letter
    each: a short string for code or prose with a few accents, one byte per character for CJK)."""
    han, cjk = wide.count(b"H"), wide.count(b"k")
    rest = wide.translate(None, b"LHkV")  # the rarer scripts are counted on what is left: a short string
    if latin_ext:
        n_chars = len(cls)
        if latin_head is None:  # (else the rare-letter count kept these bytes of the head, and a few more)
            head = original if n_chars <= _ACCENT_SAMPLE else text[:_ACCENT_SAMPLE].encode("utf-8", "surrogatepass")
            latin_head = head.translate(None, _NOT_LATIN_PAIR)
        factor = 1.0
        if n_chars > _ACCENT_SAMPLE:
            in_head = latin_head.translate(_SCRIPT_TABLE, _ASCII_AND_CONTINUATION).count(b"L")
            factor = latin_ext / in_head if in_head else 0.0
        # The two-byte Latin characters of the head (U+0080-U+037F), without a search: every
        # byte but their lead bytes and the continuation bytes is deleted, and the continuation
        # bytes left without a lead (of the deleted three- and four-byte characters) are invalid
        # UTF-8, which the decoder drops. One count per distinct accent.
        # Counted as bytes, not characters (a set or a Counter of characters beyond U+00FF makes
        # an object per character): the low byte of each UTF-16 unit whose high byte is 0, 1
        # or 2, the others zeroed with one AND.
        utf16 = latin_head.translate(None, _NOT_LATIN_PAIR).decode("utf-8", "ignore").encode("utf-16-le")
        low, high = utf16[0::2], utf16[1::2]
        for h, accents in _ACCENT_LOW.items():
            if h not in high:
                continue
            if high.count(h) == len(high):
                picked = low
            else:
                mask = int.from_bytes(high.translate(_HIGH_MASKS[h]), "little")
                picked = (int.from_bytes(low, "little") & mask).to_bytes(len(low), "little")
            for x in accents.intersection(picked):
                n = picked.count(x) * factor
                f[_ACCENT_KEYS[h << 8 | x]] = n
                latin_ext -= n
        f["latin_ext"] = max(0.0, latin_ext)
    if viet:
        f["viet"] = viet
    if rest:  # (none in most Latin text)
        spaced = raw.translate(_SPACED_TABLE, _CONTINUATION) if rest.strip(b"qef") else b""  # (not for symbols alone)
        other_scripts(f, spaced, original, rest)
    kana = cjk
    if cjk:
        f["cjk_punct"] = original.count(b"\xe3\x80")  # U+3000-U+303F: 。、「」 and friends
        kana = f["kana"] = cjk - f["cjk_punct"]
    if han or cjk:
        f["space_cjk"] = near_events.count(SPACE_CJK) * scale
    if han:
        japanese = min(1.0, 3 * kana / (kana + han))
        # Both searches run on the non-ASCII characters alone (all of them in Chinese prose, a
        # few in code or English with a Chinese phrase).
        chars = original.translate(None, _ASCII).decode("utf-8", "surrogatepass")
        head = chars if len(cls) <= _HAN_SAMPLE else text[:_HAN_SAMPLE]
        marks = _pattern("variant").findall(head)  # "" for a traditional mark, the character for a simplified one
        simp = len(marks) - marks.count("")
        trad = len(marks) - simp
        traditional = (trad + 0.5) / (trad + simp + 1)
        f["han_rare"] = len(_pattern("rare_han").findall(chars))
        f["han_j"] = han * japanese
        f["han_t"] = han * (1 - japanese) * traditional
        f["han_s"] = han * (1 - japanese) * (1 - traditional)
