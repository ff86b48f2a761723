"""The token estimator's split of U+0800-U+1FFF (UTF-8 lead byte E0 or E1) by script, for
``token_features``: Devanagari, Tamil, Thai, Georgian, Ethiopic ... each get their own weight."""

from __future__ import annotations

# The scripts of U+0800-U+1FFF (lead byte E0 or E1), told by their second byte: each has its own
# weight (o200k spends 0.5 tokens a character on Malayalam, 1.3 on Oriya, 2.3 on Ethiopic); a
# script the corpus does not hold is "other_script", whose weight is a cautious prior.
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
        f["other_script"] = left
