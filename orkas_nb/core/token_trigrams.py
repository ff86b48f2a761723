"""How well o200k_base's vocabulary knows each three letters in a row of the scripts beyond
Latin: the data of ``token_letters``' trigram counts, read off the vocabulary alone (never off a
language's text), as ``token_grams`` is for Latin letters.

o200k holds the common words of Russian, Greek, Hebrew, Arabic and Hindi whole; a name
transliterated into them ("Абиджан", "Θεσσαλονίκη") or a rare word is split into pieces of one or
two letters, which the per-letter weights, fitted on prose, under-count (lists of names: -14% to
-20%). A text's share of letter trigrams no o200k token holds says how much of it is such words.
(Pairs say too little: o200k's tokens hold nearly every pair of Cyrillic letters.)

Per script (a block of at most 256 code points, one UTF-16 high byte): the 62 letters o200k's
tokens hold most often have an index 1-62 (capitals their small letter's), any other letter or
mark of the block 63 (few or no tokens hold it), anything else 0 (a word break). For each
trigram of indices a << 12 | b << 6 | c the level says in how many of o200k's tokens (of that
script alone, after an optional space; 0 first: a word start) it occurs: "0" none, "1" up to
3, "2" up to 20, "3" more; "x" no trigram (b or c is 0). Stored, per script in ``SCRIPTS``'
order, as its 256-byte index map (UTF-16 low byte to index) and its 262,144 levels,
zlib-compressed in ``data/token_trigrams.zlib`` (``python tests/core/calibrate_tokens.py
--trigram-table --write`` rewrites it; a test checks it against o200k), read on first use.
"""

from __future__ import annotations

from pathlib import Path

TABLE = Path(__file__).parent / "data" / "token_trigrams.zlib"

# The scripts and their blocks (first and last code point, one UTF-16 high byte each).
SCRIPTS = {"greek": (0x370, 0x3FF), "cyrillic": (0x400, 0x4FF), "hebrew": (0x590, 0x5FF),
           "arabic": (0x600, 0x6FF), "devanagari": (0x900, 0x97F), "thai": (0xE00, 0xE7F)}
OTHER_LETTER = 63
MAP_SIZE, LEVELS_SIZE = 256, 1 << 18
# Where each script starts (``token_letters.script_start``): one find per prefix (lead byte, or
# lead and second byte).
FIRST = {"greek": (b"\xce", b"\xcf"), "cyrillic": (b"\xd0", b"\xd1", b"\xd2", b"\xd3"), "hebrew": (b"\xd6", b"\xd7"),
         "arabic": (b"\xd8", b"\xd9", b"\xda", b"\xdb"), "devanagari": (b"\xe0\xa4", b"\xe0\xa5"),
         "thai": (b"\xe0\xb8", b"\xe0\xb9"), "hangul": (b"\xea", b"\xeb", b"\xec", b"\xed")}
SAMPLE = 600  # bytes from the script's start: 300 Cyrillic letters, 200 Thai ones (name lists: 200 read too few names)
MIN_LETTERS = 16  # a word or two of a script in other text is not read
# Per script, a translate of the UTF-16 high bytes: the script's own to 0, every other to FF,
# so that OR-ed into the low bytes, each character not of the script is FF (index 0).
_OTHERS = {name: bytes(0 if i == first >> 8 else 0xFF for i in range(256)) for name, (first, _) in SCRIPTS.items()}
# Every four indices in a row (a big-endian 32-bit word) to one code point a << 12 | b << 6 | c.
_MASKS = [int.from_bytes(bytes.fromhex(word) * (SAMPLE // 2), "big") for word in ("ff000000", "00ff0000", "0000ff00")]
_TABLES: dict[str, tuple[bytes, str]] = {}  # loaded on first use


def tables() -> dict[str, tuple[bytes, str]]:
    """Each script's index map and trigram levels (read from the package on first use)."""
    if not _TABLES:
        import zlib

        data = zlib.decompress(TABLE.read_bytes())
        size = MAP_SIZE + LEVELS_SIZE
        for i, name in enumerate(SCRIPTS):
            part = data[i * size : (i + 1) * size]
            _TABLES[name] = (part[:MAP_SIZE], part[MAP_SIZE:].decode("latin-1"))
    return _TABLES


def counts(original: bytes, script: str, at: int) -> tuple[float, float]:
    """The sampled letter trigrams of levels 0 and 1 where ``script`` starts in ``original`` (a
    text's UTF-8 bytes), at ``at``, scaled to the rest of the text by bytes.

    The head is decoded and re-encoded as UTF-16: a character's low byte, OR-ed with FF unless
    its high byte is the script's, maps to its index with one translate; the first three of
    every four indices in a row are one sampled trigram, packed to one code point with three
    masks and looked up in one ``str.translate``, at two offsets (half the trigrams are read:
    neighbouring ones say nearly the same)."""
    index_map, levels = tables()[script]
    head = original[at : at + SAMPLE]
    units = head.decode("utf-8", "ignore").encode("utf-16-le")
    low, high = units[0::2], units[1::2]
    n = len(low)
    merged = int.from_bytes(low, "little") | int.from_bytes(high.translate(_OTHERS[script]), "little")
    index = merged.to_bytes(n, "little").translate(index_map)
    both = index[: n & ~3] + index[2 : 2 + ((n - 2) & ~3)]  # (the words at both offsets, in one int)
    v = int.from_bytes(both, "big")
    m0, m1, m2 = _MASKS
    packed = ((v & m0) >> 12 | (v & m1) >> 10 | (v & m2) >> 8).to_bytes(len(both), "big")
    found = packed.decode("utf-32-be", "surrogatepass").translate(levels)
    scale = (len(original) - at) / len(head)
    return found.count("0") * scale, found.count("1") * scale
