"""How well o200k_base's vocabulary knows each 4-gram of letters: the data of ``token_features``'
familiarity counts, read off the vocabulary alone (never off a language's text).

A word o200k has merges for costs few tokens per letter; one whose letter sequences its
vocabulary lacks (Xhosa "kwinkqubo", Welsh "gwybodaeth") is split into short pieces. For every
4-gram of letters (a-z case folded, and one number for any accented letter of U+00C0-U+037F;
a word start may stand in the first place) the level says
in how many of o200k's letter tokens it occurs: "0" none, "1" up to 3, "2" up to 20, "3" more;
"x" marks an index that is no 4-gram. Index a << 15 | b << 10 | c << 5 | d, letters 1-26, 27 an
accented one, 0 a word start. 1,048,576 bytes, stored zlib-compressed in
``data/token_grams.zlib`` (``python tests/core/calibrate_tokens.py --gram-table --write``
rewrites it; a test checks it against o200k), read on first use.
"""

from __future__ import annotations

from pathlib import Path

TABLE = Path(__file__).parent / "data" / "token_grams.zlib"

# A foreign word costs what o200k's vocabulary knows of it: each 4-gram of letters (a word
# start may open one) has a level, how many o200k tokens hold it ("x": no 4-gram),
# counted on the text's start. Each letter (of either case) to 1-26, the lead byte of an
# accented one (U+00C0-U+037F, and U+1E00-U+1EFF once rewritten to C0) to 27, every other byte
# to 0 (continuation bytes deleted); every four such bytes in a row are one sampled 4-gram
# (neighbouring 4-grams say nearly the same, and each lookup costs ~40 ns; reading every other
# one of these makes the count too noisy): their big-endian 32-bit word, its bytes packed to
# five bits each with four masks, is one code point, looked up in one ``str.translate``.
INDEX = bytes((b | 0x20) - 0x60 if chr(b).isascii() and chr(b).isalpha()
              else 27 if b == 0xC0 or 0xC3 <= b <= 0xCD else 0 for b in range(256))
SHARE = 8  # counted when at least one character in this many is a Latin letter
SAMPLE = 600  # bytes
MASKS = [int.from_bytes(bytes.fromhex(word) * (SAMPLE // 4), "big")
         for word in ("ff000000", "00ff0000", "0000ff00", "000000ff")]
_LEVELS: list[str] = []  # loaded on first use (a 1,048,576-character table)


def levels() -> str:
    """The level of each 4-gram index, one character each (read from the package on first use)."""
    if not _LEVELS:
        import zlib

        _LEVELS.append(zlib.decompress(TABLE.read_bytes()).decode("latin-1"))
    return _LEVELS[0]


def counts(raw: bytes, ascii_only: bool, continuation: bytes) -> tuple[float, float, float]:
    """The 4-grams of levels 0, 1 and 2 on the start of ``raw`` (a text's UTF-8 bytes), scaled to
    the whole text by bytes: the start holds as many letters per byte as the rest; a character
    cut at the end is no letter."""
    head = raw if len(raw) <= SAMPLE else raw[:SAMPLE]
    x = head.translate(INDEX) if ascii_only else head.translate(INDEX, continuation)
    x = x[: len(x) & ~3]
    v = int.from_bytes(x, "big")
    m0, m1, m2, m3 = MASKS
    v = (v & m0) >> 9 | (v & m1) >> 6 | (v & m2) >> 3 | v & m3
    found = v.to_bytes(len(x), "big").decode("utf-32-be", "surrogatepass").translate(levels())
    per = 4 * len(raw) / len(head)
    return found.count("0") * per, found.count("1") * per, found.count("2") * per
