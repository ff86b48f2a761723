"""The token estimator's counts of the scripts beyond Latin, Han and kana, for ``token_features``:
per script its characters and word starts, and within a script the shares that tell apart
languages o200k knows unequally well (Russian from the other Cyrillic languages, Persian's
letters from the rarer ones of U+0680-U+06FF), read where the script starts with one translate; and
the names of the per-script features, with the table of the features one character can feed
(``PER_CHARACTER``, for the length bound in ``tokens``)."""

from __future__ import annotations

from typing import Any

from . import token_hangul, token_trigrams
from .token_scripts import BRAHMIC, brahmic, script_digits, unfitted_blocks
from .token_tables import ACCENT_WEIGHTS

# Scripts written with spaces between words: a word start costs a token of its own (their class
# letters in token_features' script string).
SCRIPT_WORDS = {"y": "cyrillic", "g": "greek", "a": "armenian", "r": "hebrew", "b": "arabic", "K": "hangul",
                "i": "indic"}
SPACED_SCRIPTS = [(k.encode(), name, name + "_word") for k, name in SCRIPT_WORDS.items()]
# ASCII letters that are rare in English and the Romance languages but frequent in the Finnic,
# Baltic, Slavic and Germanic ones: their share (at a text's start) scales the foreign letters.
RARE_LETTERS = "kwzjyv"

# For the length bound: the features one character can feed, by kind of character (a pair or a
# run start is counted on its first character; a group in a tuple feeds one of its members:
# the two parts of a split feature, the script classes, the scripts' word starts).
_SCRIPT_CLASSES = ("latin_ext", "viet", *(f"accent_{c}" for c in ACCENT_WEIGHTS), "han_s", "han_t", "han_j",
                   "kana", "cjk_punct", "fullwidth", "hangul", "cyrillic", "cyrillic_x", "greek", "armenian", "hebrew", "arabic",
                   *BRAHMIC, "unfitted", "symbol", "emoji")
_SCRIPT_WORD = (*(f"{name}_word" for name in SCRIPT_WORDS.values()), "cyrillic_word_x")
# The letter trigrams of the alphabets beyond Latin, and the pairs of Hangul syllables, that
# o200k's tokens hold in none or few (sampled: at most one per character; a character is of one
# script, and a syllable's pair is either).
TRIGRAMS = ("script_trigram_0", "script_trigram_1", "hangul_pair_0", "hangul_pair_1", "hangul_pair_00")
_RARE = tuple(f"rare_{c}" for c in RARE_LETTERS)
PER_CHARACTER: dict[str, list[Any]] = {
    "letter": [("word_en", "word_x"), ("letter_en", "letter_x"), ("gram_0", "gram_1", "gram_2", "gram_0_en"), "upper", "camel", _RARE, _SCRIPT_CLASSES],
    "digit": ["digit_run", "digit_group"],
    "space": ["indent", ("space_digit", "space_cjk")],
    "newline": ["newline", "line_word", "punct_run"],
    "mark": ["punct_run", "join_word", "punct_newline", "slash_line", "mark_prefix"],
    "other script": [_SCRIPT_CLASSES, ("cyrillic_ext", "arabic_ext"), _SCRIPT_WORD, "thai_word", "script_upper", "han_rare",
                     "punct_run", "script_digit", "space_digit", TRIGRAMS],
}
NON_ASCII = (  # the features only non-ASCII text has
    "latin_ext", *(f"accent_{c}" for c in ACCENT_WEIGHTS), "viet", "han_s", "han_t", "han_j", "han_rare",
    "space_cjk", "cjk_punct", "kana", "fullwidth", "hangul",
    "hangul_word", "cyrillic", "cyrillic_x", "cyrillic_ext", "cyrillic_word", "cyrillic_word_x", "greek", "greek_word", "armenian", "armenian_word",
    "hebrew", "hebrew_word", "arabic", "arabic_ext", "arabic_word", *BRAHMIC, "unfitted", "indic_word", "thai_word",
    "script_upper", "script_digit", "symbol", "emoji", *TRIGRAMS,
)

# The lead bytes DA and DB (U+0680-U+06FF) to 1 and 2, the second bytes of Persian's چ ژ ک گ
# (DA 86 98 A9 AF) and Urdu's ڈ ڑ ٹ ں (DA 88 91 B9 BA) to 3 and those of ی (DB 8C) and Urdu's
# ہ ے ۔ (DB 81 92 94) to 4: the letters of the two big languages are a 1-3 or a 2-4 pair. (Not ھ,
# which Kurdish and Uyghur write as often as Urdu.)
_PERSIAN_TABLE = bytes(1 if i == 0xDA else 2 if i == 0xDB else 3 if i in (0x86, 0x98, 0xA9, 0xAF, 0x88, 0x91, 0xB9, 0xBA)
                       else 4 if i in (0x8C, 0x81, 0x92, 0x94) else 0 for i in range(256))

# o200k knows Russian words far better than those of the other Cyrillic languages: Ukrainian,
# Belarusian, Bulgarian, Serbian, Kazakh ... split into more pieces (and so do names spelled in
# them). The script's first 1,500 bytes say which it is: Russian writes ы (2% of its letters) and none of
# the letters the others add (і ї є ў ј љ њ ћ ђ џ ѓ ќ ѕ; қ ң ө ә ... of U+0460-U+04FF); Bulgarian,
# Ukrainian, Serbian, Macedonian and Tajik write no ы. The Cyrillic letters and word starts are
# split into the two regimes by that share, as Latin ones are by English.
# One translate of them maps the lead byte D1 (р-я, ё, і ...) to 1, the second bytes of
# the letters Russian lacks after it (і ї є ў ј љ њ ћ ђ џ ѓ ќ ѕ: D1 92-9F but for ѝ) to 2 and that
# of ы to 3, the rest to 0; its Cyrillic letters are the text's, scaled by bytes.
_CYRILLIC_TABLE = bytes(1 if i == 0xD1 else 2 if 0x92 <= i <= 0x9F and i != 0x9D else 3 if i == 0x8B else 0
                        for i in range(256))
_NOT_RUSSIAN_SHARE, _RUSSIAN_SHARE = 0.04, 0.012
_SCRIPT_SAMPLE = 1500  # bytes (some 700 letters: ы and і are 2% and 5% of them; Persian's share of ext too)


# Capitals of Cyrillic (U+0400-U+042F: D0 80-AF) and Greek (U+0386-U+03AB: CE 86-AB): one
# translate per script maps its lead byte to 1 and the second bytes of its capitals to 2, the
# rest to 0, and a capital is a 1-2 pair.
_CAPITAL_SAMPLE = 2000  # bytes (some 1,000 letters, 150 words)
_CAPITAL_TABLES = (
    ("cyrillic", bytes(1 if i == 0xD0 else 2 if 0x80 <= i <= 0xAF else 0 for i in range(256))),
    ("greek", bytes(1 if i == 0xCE else 2 if 0x86 <= i <= 0xAB else 0 for i in range(256))),
)
# A script's shares are read where it starts, not at the text's start: a locale file, a config
# or a catalogue may open with a long English header, whose sample would hold none of them.
_FIRST = token_trigrams.FIRST  # (their UTF-8 prefixes)


def script_start(original: bytes, script: str) -> int:
    """Where the script's first character is (0 without one)."""
    # One find per prefix, at memchr speed (a regex of a byte class scans many times slower),
    # each only up to the first found so far: a lead byte the text lacks scans no further.
    start = len(original)
    for lead in _FIRST[script]:
        at = original.find(lead, 0, start)
        if at >= 0:
            start = at
    return start if start < len(original) else 0


def script_head(original: bytes, script: str, size: int, start: int | None = None) -> tuple[bytes, float]:
    """``size`` bytes from the script's first character (at ``start`` if known), and the factor
    that scales a count on them to the rest of the text."""
    start = script_start(original, script) if start is None else start
    head = original[start : start + size]
    return head, (len(original) - start) / len(head)


def script_capitals(f: dict[str, float], original: bytes, starts: dict[str, int]) -> None:
    """o200k's tokens for Cyrillic and Greek are its words in small letters: a capitalised word
    (a name, a sentence's start) costs some 0.3-1 token more than the same word in small letters
    (Russian +61% per word, Greek +27%, Bulgarian +30% on the corpus's words), and a list of
    names is capitalised throughout. Counted where the script starts (one translate per script),
    scaled to the whole by bytes."""
    n = 0.0
    for script, table in _CAPITAL_TABLES:
        if script in f:
            starts[script] = script_start(original, script)
            head, scale = script_head(original, script, _CAPITAL_SAMPLE, starts[script])
            n += head.translate(table).count(b"\x01\x02") * scale
    if n:
        f["script_upper"] = n


def unfamiliar_trigrams(f: dict[str, float], original: bytes, starts: dict[str, int]) -> None:
    """Names and rare words, which o200k splits into pieces of a letter or two: the letter
    trigrams its tokens hold in none (``script_trigram_0``) or few (``script_trigram_1``), sampled
    where each script starts (``token_trigrams``; not for a word or two of it in other text).
    One weight for every script: fitted per script, left-out languages fared worse (119 of 146
    within 10% against 120, on 320 bytes)."""
    for script in token_trigrams.SCRIPTS:
        if f.get(script, 0) >= token_trigrams.MIN_LETTERS:
            if script not in starts:
                starts[script] = script_start(original, script)
            unknown, rare = token_trigrams.counts(original, script, starts[script])
            f["script_trigram_0"] = f.get("script_trigram_0", 0.0) + unknown
            f["script_trigram_1"] = f.get("script_trigram_1", 0.0) + rare
    if f.get("hangul", 0) >= token_hangul.MIN_SYLLABLES:  # (pairs of syllables, token_hangul: weights of their own)
        f["hangul_pair_0"], f["hangul_pair_1"], share = token_hangul.counts(original, script_start(original, "hangul"))
        # (a text most of whose pairs no token holds is names throughout: it splits further still)
        f["hangul_pair_00"] = f["hangul_pair_0"] * share


def cyrillic_languages(f: dict[str, float], original: bytes, start: int | None = None) -> None:
    head, scale = script_head(original, "cyrillic", _SCRIPT_SAMPLE, start)
    codes = head.translate(_CYRILLIC_TABLE)
    letters = (f["cyrillic"] + f.get("cyrillic_ext", 0)) / scale
    russian = min(1.0, codes.count(b"\x01\x03") / (_RUSSIAN_SHARE * letters))
    if russian:  # (the ext letters: U+0460-U+04FF, Kazakh қ ң ө, Tatar ә ...)
        own = codes.count(b"\x01\x02") + f.get("cyrillic_ext", 0) / scale
        russian *= 1.0 - min(1.0, own / (_NOT_RUSSIAN_SHARE * letters))
    for key in ("cyrillic", "cyrillic_word"):
        n = f.get(key, 0)
        f[key], f[key + "_x"] = n * russian, n * (1 - russian)


def other_scripts(f: dict[str, float], scripts: bytes, original: bytes, rest: bytes) -> None:
    """The counts of the rarer scripts, symbols and emoji. ``scripts``: the text with each spaced
    script's lead bytes mapped to its class letter, the rest to "." (continuation bytes deleted);
    ``rest``: the class letters of the non-ASCII characters beyond Latin, Han and kana."""
    for key, klass in (("symbol", b"q"), ("emoji", b"e"), ("fullwidth", b"f")):
        n = rest.count(klass)
        if n:
            f[key] = n
    for klass, name, word in SPACED_SCRIPTS if scripts else ():  # (a script beyond symbols, emoji)
        n = rest.count(klass)
        if n:
            f[name] = n
            f[word] = scripts.count(b"." + klass) + scripts.startswith(klass)
    if "indic" in f:  # (on the original bytes: the Vietnamese rewrite merged some second bytes)
        indic = f["indic"]
        brahmic(f, original)
        script_digits(f, original)
        if "thai" in f:
            # Thai writes no space between words, only between phrases and list items: a Thai run
            # after a space, a line break or a mark opens a piece o200k has no merge across (a
            # list of names costs more per letter than running text). Its share of the runs of
            # U+0800-U+1FFF scripts ("indic_word"), by its share of their characters.
            f["thai_word"] = f.get("indic_word", 0) * f["thai"] / indic
    # Characters of blocks no weight was fitted on cost what o200k spends on each alone (a
    # table), in place of the class their lead byte put them in.
    unfitted_blocks(f, original, rest)
    # The letters beyond a script's core (Kazakh қ ң ө, Tatar ә, Uyghur ې ۇ ۆ, Kurdish ڕ ڵ) are
    # rarer in o200k's vocabulary: each costs more than a Russian or Arabic letter. Not the four
    # of them Persian and Urdu write all the time (چ ژ ک گ ی; ہ ے ں ٹ ڈ ڑ ۔): o200k knows their
    # words as well as Arabic ones (an Urdu text was +33% when they cost as Uyghur's letters).
    starts: dict[str, int] = {}  # (each script's start is found once)
    if "cyrillic" in f or "greek" in f:
        script_capitals(f, original, starts)
    unfamiliar_trigrams(f, original, starts)
    if "cyrillic" in f:
        f["cyrillic_ext"] = original.count(b"\xd2") + original.count(b"\xd3")
        cyrillic_languages(f, original, starts.get("cyrillic"))
    if "arabic" in f:
        head, scale = script_head(original, "arabic", _SCRIPT_SAMPLE, starts.get("arabic"))
        persian_digits = arabic_digits(f, head, scale)
        ext = original.count(b"\xda") + original.count(b"\xdb") - persian_digits
        if ext > 0:  # (the Persian and Urdu share of them is read where the script starts)
            codes = head.translate(_PERSIAN_TABLE)
            in_head = codes.count(1) + codes.count(2) - persian_digits / scale
            if in_head > 0:
                ext -= ext * (codes.count(b"\x01\x03") + codes.count(b"\x02\x04")) / in_head
        f["arabic_ext"] = max(0.0, ext)


# Arabic-Indic digits ٠-٩ (D9 A0-A9) and Persian ones ۰-۹ (DB B0-B9): one translate maps D9 to
# 1, DB to 2, the second bytes A0-A9 to 3 and B0-B9 to 4, a space to 5.
_DIGIT_TABLE = bytes(1 if i == 0xD9 else 2 if i == 0xDB else 3 if 0xA0 <= i <= 0xA9 else 4 if 0xB0 <= i <= 0xB9
                     else 5 if i == 0x20 else 0 for i in range(256))


def arabic_digits(f: dict[str, float], head: bytes, scale: float) -> float:
    """Digits of the Arabic script are numbers to o200k's pre-tokenizer, cut in threes like
    ASCII ones, but its vocabulary has few merges for them: about one token each (a row of
    them: -70% when they cost as letters; Persian ones, counted as the rarer letters of
    U+0680-U+06FF: +14%), and the space before a number is a piece of its own. Counted where
    the script starts, scaled; they leave the letters' counts. Returns the Persian digits."""
    codes = head.translate(_DIGIT_TABLE)
    arabic, persian = codes.count(b"\x01\x03") * scale, codes.count(b"\x02\x04") * scale
    if arabic or persian:
        f["script_digit"] = arabic + persian
        f["arabic"] = max(0.0, f["arabic"] - arabic - persian)
        spaced = (codes.count(b"\x05\x01\x03") + codes.count(b"\x05\x02\x04")) * scale
        f["space_digit"] = f.get("space_digit", 0) + spaced
        f["arabic_word"] = max(0.0, f.get("arabic_word", 0) - spaced)  # (a number after a space starts no word)
    return persian
