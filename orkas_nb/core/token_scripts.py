"""The token estimator's split of U+0800-U+1FFF (UTF-8 lead byte E0 or E1) by script, for
``token_features``: Devanagari, Tamil, Thai, Georgian, Ethiopic ... each get their own weight;
and the cost of characters in blocks no weight was fitted on (Tifinagh, Cherokee, Vai, N'Ko,
Adlam ...): what o200k spends on each of their characters alone, from a table."""

from __future__ import annotations

# The scripts of U+0800-U+1FFF (lead byte E0 or E1), told by their second byte: each has its own
# weight (o200k spends 0.5 tokens a character on Malayalam, 1.3 on Oriya, 2.3 on Ethiopic); a
# script of that range not named here is "unfitted" (see ``unfitted``).
_BRAHMIC = {
    0xE0: [(0xA4, "devanagari"), (0xA6, "bengali"), (0xA8, "gurmukhi"), (0xAA, "gujarati"), (0xAC, "oriya"),
           (0xAE, "tamil"), (0xB0, "telugu"), (0xB2, "kannada"), (0xB4, "malayalam"), (0xB6, "sinhala"),
           (0xB8, "thai"), (0xBC, "tibetan"), (0xBE, "tibetan")],
    0xE1: [(0x80, "myanmar"), (0x82, "georgian"), (0x88, "ethiopic"), (0x8A, "ethiopic"), (0x8C, "ethiopic"),
           (0x9E, "khmer")],
}
BRAHMIC = tuple(dict.fromkeys(name for blocks in _BRAHMIC.values() for _, name in blocks))
_BRAHMIC_CODE = {name: i + 1 for i, name in enumerate(BRAHMIC)}
_OTHER_CODE = len(BRAHMIC) + 1


def _second_table(lead: int) -> bytes:
    table = bytearray([_OTHER_CODE] * 256)
    for second, name in _BRAHMIC[lead]:
        table[second : second + 2] = bytes([_BRAHMIC_CODE[name]]) * 2
    if lead == 0xE1:
        table[0xB8:0xBC] = b"\0" * 4  # Latin Extended Additional: counted as "viet"
    return bytes(table)


_SECOND_TABLES = {lead: _second_table(lead) for lead in _BRAHMIC}
_LEAD_MASKS = {lead: bytes(0xFF if i == lead else 0 for i in range(256)) for lead in _BRAHMIC}
# Each script's two-byte UTF-8 prefixes (lead byte, second byte).
_PREFIXES: dict[str, list[bytes]] = {}
for _lead, _blocks in _BRAHMIC.items():
    for _second, _name in _blocks:
        _PREFIXES.setdefault(_name, []).extend(bytes([_lead, _second + i]) for i in range(2))


def brahmic(f: dict[str, float], original: bytes) -> None:
    """Split the E0/E1 characters by script. A lead byte is never a continuation byte, so a
    two-byte prefix counted in the UTF-8 bytes counts that block's characters: a text in one
    script (the common case) costs the counts of its first character's prefixes. A text that
    mixes them takes the byte after each lead byte, picked with one AND of two big integers and
    mapped to a script code, and counts each code present."""
    left = f.pop("indic")
    for lead, mask in _LEAD_MASKS.items():
        lead_byte = bytes([lead])
        n_lead = original.count(lead_byte)
        if not n_lead:
            continue
        at = original.index(lead_byte)
        code = _SECOND_TABLES[lead][original[at + 1]] if at + 1 < len(original) else _OTHER_CODE
        if code and code != _OTHER_CODE:
            name = BRAHMIC[code - 1]
            n = sum(original.count(prefix) for prefix in _PREFIXES[name])
            if n == n_lead:
                f[name] = f.get(name, 0) + n
                left -= n
                continue
        picked = int.from_bytes(original.translate(mask), "big") & int.from_bytes(original[1:] + b"\0", "big")
        # (non-lead positions are 0: deleted before the map; Vietnamese maps to 0 and is dropped)
        codes = picked.to_bytes(len(original), "big").translate(_SECOND_TABLES[lead], b"\0").replace(b"\0", b"")
        while codes:
            code = codes[0]
            n = codes.count(code)
            if code != _OTHER_CODE:
                name = BRAHMIC[code - 1]
                f[name] = f.get(name, 0) + n
                left -= n
            codes = codes.translate(None, bytes([code]))
    if left > 0:
        f["unfitted_leads"] = left  # (costed by ``unfitted``)


# -- blocks no weight was fitted on -----------------------------------------------------------
# A script the corpus holds no text of has no weight; a byte-level BPE learned few or no merges
# for it, so each of its characters costs about what it costs alone: 2 tokens for a Syriac
# letter, 3 for a Tifinagh or Cherokee one, 4 for most of the supplementary planes. That cost
# is read off o200k itself (``python tests/core/calibrate_tokens.py --block-costs``) for every
# UTF-8 prefix of a block outside the fitted ones, rounded up to half a token: the fallback
# over-estimates rather than under.
UNFITTED_LEADS = (0xDC, 0xDD, 0xDE, 0xDF, 0xE0, 0xE1, 0xE2, 0xEA, 0xEF, 0xF0, 0xF1, 0xF2, 0xF3, 0xF4)
MAX_COST = 4.0  # tokens a character can cost alone (its four bytes)


def fitted(lead: int, second: int) -> bool:
    """Whether the characters of UTF-8 prefix (lead, second byte) have a fitted weight."""
    if lead in (0xE0, 0xE1):
        known = any(second in (s, s + 1) for s, _ in _BRAHMIC[lead])
        return known or (lead == 0xE1 and 0xB8 <= second <= 0xBB)  # Latin Extended Additional
    if lead == 0xE2:  # punctuation, arrows, maths, box drawing, dingbats; not Braille nor U+2C00-U+2FFF
        return not (0xA0 <= second <= 0xA3 or second >= 0xB0)
    if lead == 0xEA:  # Hangul syllables from U+AC00; Yi, Vai, Bamum, Javanese ... before them
        return second >= 0xB0
    if lead == 0xEF:  # variation selectors, small and full-width forms; not private use nor presentation forms
        return second >= 0xB8
    if lead == 0xF0:  # emoji
        return second == 0x9F
    return lead not in UNFITTED_LEADS  # (Syriac, Thaana, N'Ko; planes 4-16)


def unfitted(f: dict[str, float], original: bytes, leads: bytes) -> int:
    """Add the cost of the characters outside fitted blocks to ``f["unfitted"]`` and return how
    many there are. ``original``: the text's UTF-8 bytes; ``leads``: the lead bytes to look at.
    Per lead, one translate maps that lead to 1, the continuation bytes to their prefix's cost
    code (0 when fitted), a space to 2 and the rest to 0, so each of its characters is a 1
    followed by its code: one count per cost level. A space before such a character is a token
    of its own (o200k merged it with none of their bytes): one more count."""
    total, n = 0.0, 0
    for lead in leads:
        table, pairs = _UNFITTED_MAPS[lead]
        t = original.translate(table)
        for code, pair in pairs:
            k = t.count(pair)
            if k:
                total += k * code / 2 + t.count(b"\x02" + pair)
                n += k
    if n:
        f["unfitted"] = f.get("unfitted", 0.0) + total
    return n


_UNFITTED_MAPS: dict[int, tuple[bytes, list[tuple[int, bytes]]]] = {}


def load_costs(costs: dict[int, str]) -> None:
    """Build the per-lead maps from the table (``token_tables.BLOCK_COSTS``: per lead byte, 64
    digits, the cost in half tokens of each second byte's characters, 0 for fitted ones)."""
    for lead, digits in costs.items():
        table = bytearray(256)
        table[lead], table[0x20] = 1, 2
        for i, d in enumerate(digits):
            table[0x80 + i] = int(d) + 1 if int(d) else 0  # (codes 2.. : 1 is the lead)
        codes = sorted({int(d) for d in digits} - {0})
        _UNFITTED_MAPS[lead] = (bytes(table), [(c, bytes([1, c + 1])) for c in codes])


# Where to look for them: (the class letter of token_features' script string, the feature that
# class counted them in, the lead bytes, the prefixes of the fitted block nearly all of that
# class's characters are in, counted first). Syriac, Thaana and N'Ko have a class of their own;
# the E0/E1 ones are those ``brahmic`` leaves.
_UNFITTED_GROUPS = [
    (b"u", "", bytes(range(0xDC, 0xE0)), ()), (b"i", "", b"\xe0\xe1", ()),
    (b"q", "symbol", b"\xe2", (b"\xe2\x80",)), (b"K", "hangul", b"\xea", ()),
    (b"f", "fullwidth", b"\xef", (b"\xef\xbc", b"\xef\xbd")), (b"e", "emoji", bytes(range(0xF0, 0xF5)), (b"\xf0\x9f",)),
]
_NOT_UNFITTED_CLASS = bytes(i for i in range(256) if i not in b"uqKfe")


def unfitted_blocks(f: dict[str, float], original: bytes, rest: bytes) -> None:
    """Cost the characters of blocks no weight was fitted on (``unfitted``) and take them out of
    the class their lead byte counted them in. ``rest``: the text's script string (one class
    letter per non-ASCII character, token_features); ``f["unfitted_leads"]``: the E0/E1
    characters ``brahmic`` left."""
    candidates = rest.translate(None, _NOT_UNFITTED_CLASS)  # (a short string: most texts have none)
    if "unfitted_leads" in f:
        candidates += b"i"
    for klass, key, leads, common in _UNFITTED_GROUPS if candidates else ():
        if klass not in candidates:
            continue
        if klass == b"i":
            del f["unfitted_leads"]
        elif common and sum(map(original.count, common)) == candidates.count(klass):
            continue  # all in the usual blocks: ’ “ — …, ，：（）, emoji
        present = bytes(b for b in leads if b in original) if len(leads) > 1 else leads
        if not present:
            continue
        n = unfitted(f, original, present)
        if n and key:
            f[key] -= n


# -- digits -----------------------------------------------------------------------------------
# The digits of the scripts of U+0900-U+1FFF are numbers to o200k's pre-tokenizer (\p{N}, in
# threes, apart from the letters and from the space before them), and its vocabulary has few
# merges for them: each costs about what it costs alone, 1-3 tokens (what o200k spends on each
# of a block's ten digits alone, the mean, rounded up to a tenth; a test checks it), against
# the 0.4-0.6 of a letter of the script: a row of Devanagari or Thai numbers was -65% to -84%.
# A block whose feature is "" is not searched (Myanmar's Shan digits U+1090-U+1099 share
# Georgian's prefix E1 82: a search in every Georgian text for digits nobody writes there).
DIGIT_COSTS = {  # the block's zero -> (tokens a digit costs, the feature its characters were counted in)
    0x966: (1.0, "devanagari"), 0x9E6: (1.0, "bengali"), 0xA66: (1.8, "gurmukhi"), 0xAE6: (1.0, "gujarati"),
    0xB66: (2.0, "oriya"), 0xBE6: (2.0, "tamil"), 0xC66: (2.0, "telugu"), 0xCE6: (1.7, "kannada"),
    0xD66: (2.0, "malayalam"), 0xDE6: (2.0, "sinhala"), 0xE50: (1.8, "thai"), 0xED0: (2.0, ""),
    0xF20: (2.0, "tibetan"), 0x1040: (1.0, "myanmar"), 0x1090: (1.7, ""), 0x17E0: (1.0, "khmer"),
    0x1810: (3.0, ""),
}


def _digit_table(zero: int) -> tuple[bytes, list[bytes], list[bytes]]:
    """For a block's ten digits (three UTF-8 bytes each, all with the same second byte): a
    translate that maps that second byte to 1, the third bytes of the ten to 2 (3 when the
    second byte is one of them), a space to 4; the pairs that are a digit, and the same after
    a space. (A third byte is never followed by a continuation byte: no digit is counted twice.)"""
    code = chr(zero).encode()
    second, thirds = code[1], [chr(zero + i).encode()[2] for i in range(10)]
    assert all(chr(zero + i).encode()[:2] == code[:2] for i in range(10))
    table = bytearray(256)
    for b in thirds:
        table[b] = 2
    table[second] = 3 if second in thirds else 1
    table[0x20] = 4
    lead = bytes([table[second]])
    pairs = [lead + b"\x02"] + ([lead + b"\x03"] if second in thirds else [])
    return bytes(table), pairs, [b"\x04\x00" + pair for pair in pairs]  # (space, lead byte, digit)


_DIGIT_SAMPLE = 16_384  # bytes
_DIGIT_TABLES = {zero: _digit_table(zero) for zero, (_, script) in DIGIT_COSTS.items() if script}


def script_digits(f: dict[str, float], original: bytes) -> None:
    """The digits of the U+0900-U+1FFF scripts the text has letters of: their cost into
    ``script_digit`` (out of their script's letters), a space before one into ``space_digit``.
    One translate and a count or two per script present, on the text's first 16 KB (scaled to
    the whole: a long text of many scripts would otherwise take a pass over it per script)."""
    head = original[:_DIGIT_SAMPLE]
    scale = len(original) / len(head)
    for zero, (table, pairs, spaced) in _DIGIT_TABLES.items():
        each, script = DIGIT_COSTS[zero]
        if script not in f:
            continue
        codes = head.translate(table)
        n = sum(map(codes.count, pairs)) * scale
        if n:
            f[script] = max(0.0, f[script] - n)
            f["script_digit"] = f.get("script_digit", 0) + each * n
            f["space_digit"] = f.get("space_digit", 0) + sum(map(codes.count, spaced)) * scale
