"""How well o200k_base's vocabulary knows each pair of Hangul syllables in a row: the data of
``token_letters``' Hangul pair counts, read off the vocabulary alone (never off Korean text), as
``token_trigrams`` is for the alphabets.

o200k holds 703 of Hangul's 11,172 syllables in its tokens and the common words of Korean prose
whole; a name transcribed into Hangul, or a rare word, pairs syllables no token holds together
and is split into syllables and their bytes. A pair is two UTF-16 units (any character not a
syllable is FFFF), hashed to 20 bits (the pair's 32 bits: its low 20 XOR its high 20); the level
of each hash says in how many of o200k's Hangul tokens (after an optional space: FFFF first, a
word start) a pair of that hash occurs: "0" none, "1" up to 3, "2" up to 20, "3" more; "x" a pair
that ends at a character not a syllable. (A pair no token holds shares a hash with one that some
token holds, or ends a word, about once in 50.) 1,048,576 levels, zlib-compressed in
``data/token_hangul.zlib`` (``python tests/core/calibrate_tokens.py --trigram-table --write``
rewrites it with the trigram table; a test checks it against o200k), read on first use.
"""

from __future__ import annotations

from pathlib import Path

TABLE = Path(__file__).parent / "data" / "token_hangul.zlib"
FIRST_SYLLABLE, LAST_SYLLABLE = 0xAC00, 0xD7A3
NOT_SYLLABLE = 0xFFFF
LEVELS_SIZE = 1 << 20
SAMPLE = 450  # bytes from the first syllable: 150 syllables (name lists: 50 read too few names)
MIN_SYLLABLES = 16
# The UTF-16 high bytes of the syllables to 0, any other to FF (taken at the high bytes only).
_OTHERS = bytes(0 if FIRST_SYLLABLE >> 8 <= i <= LAST_SYLLABLE >> 8 else 0xFF for i in range(256))
_WORDS = SAMPLE  # (more 32-bit words than a head's pairs at both offsets fill)
_HIGH = int.from_bytes(bytes.fromhex("ff00") * 2 * _WORDS, "big")
_LOW_20 = int.from_bytes(bytes.fromhex("000fffff") * _WORDS, "big")
_LEVELS: list[str] = []  # loaded on first use


def pair_hash(first: int, second: int) -> int:
    """The 20-bit hash of two UTF-16 units in a row (as ``counts`` computes it on many at once)."""
    word = first << 16 | second
    return (word ^ word >> 12) & 0xFFFFF


def levels() -> str:
    """The level of each pair hash, one character each (read from the package on first use)."""
    if not _LEVELS:
        import zlib

        _LEVELS.append(zlib.decompress(TABLE.read_bytes()).decode("latin-1"))
    return _LEVELS[0]


def counts(original: bytes, at: int) -> tuple[float, float, float]:
    """The syllable pairs of levels 0 and 1 where Hangul starts in ``original`` (a text's UTF-8
    bytes), at ``at``, scaled to the rest of the text by bytes, and the share of level 0 among
    the pairs read.

    The head is decoded and re-encoded as UTF-16; one translate and two masks make every unit
    not a syllable FFFF; the units' pairs at both offsets, in one big integer, are hashed with a
    shift, an XOR and a mask, and looked up in one ``str.translate`` (every pair is read)."""
    head = original[at : at + SAMPLE]
    units = head.decode("utf-8", "ignore").encode("utf-16-be")
    others = int.from_bytes(units.translate(_OTHERS), "big") & _HIGH
    syllables = (int.from_bytes(units, "big") | others | others >> 8).to_bytes(len(units), "big")
    n = len(syllables)
    both = syllables[: n & ~3] + syllables[2 : 2 + ((n - 2) & ~3)]
    v = int.from_bytes(both, "big")
    hashed = ((v ^ v >> 12) & _LOW_20).to_bytes(len(both), "big")
    found = hashed.decode("utf-32-be", "surrogatepass").translate(levels())
    scale = (len(original) - at) / len(head)
    unknown = found.count("0")
    sampled = len(found) - found.count("x")
    return unknown * scale, found.count("1") * scale, unknown / sampled if sampled else 0.0
