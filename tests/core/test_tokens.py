"""The token estimator: accuracy per class against the real o200k tokenizer, images, messages."""

from __future__ import annotations

import base64
import json
import struct
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orkas_nb.core import token_features, token_scripts, token_tables, tokens
from orkas_nb.core.messages import (
    AssistantMessage,
    ImageBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultMessage,
    user_message,
)
from orkas_nb.core.tokens import (
    estimate_image,
    estimate_message,
    estimate_request,
    estimate_text,
)
from orkas_nb.providers.base import ToolSpec
from tests.core.calibrate_tokens import (
    CATEGORIES,
    CORPUS,
    load_corpus,
    load_legacy,
    markdown,
    table,
)
from tests.data.tokens.build_corpus import MIN_CHARS, group_split

BOUND = 0.10
# Every script a data person writes in, and the formats they paste (issue 19, part 4).
REQUIRED = {
    "latin-en", "latin-fr", "latin-de", "latin-es", "latin-it", "latin-pt", "latin-pl", "latin-cs",
    "latin-nl", "latin-sv", "latin-tr", "latin-vi", "cyrillic", "greek", "han-simplified",
    "han-traditional", "japanese", "korean", "arabic", "hebrew", "devanagari", "thai", "code",
    "json", "csv", "markdown-table", "mixed",
    # added after a first measure on languages the fit had never seen
    "latin-hu", "latin-fi", "latin-ro", "latin-sk", "latin-hr", "latin-da", "latin-lt", "latin-et",
    "latin-sl", "latin-nb", "latin-ca", "latin-id", "georgian",
    # lists of short names in the scripts beyond Latin (build_names.py), under by up to 22% before
    "names",
}
# 58 more languages in five script families (more-*.jsonl), added to measure what the fit does
# on languages and scripts it had no category for; bounded per language below.
MORE = {"more-latin", "more-cyrillic", "more-indic", "more-arabic", "more-other"}
# Languages from CLDR (build_unseen.py): Latin languages o200k knows little of and scripts
# outside the fitted blocks (fitted on their tune split), and blind languages chosen before
# any measure, every text held out.
UNSEEN = {"unseen-latin", "unseen-script", "blind"}
# The worst mean under-estimate of one added language on its held-out texts. Every script but
# Latin is held to the general bound; Latin languages whose words o200k knows little of (Xhosa,
# Ewe, Kabyle, Irish, Welsh, Somali) are under-estimated by up to a fifth even with the
# letter-pair splits (they were by up to a third before them).
MORE_UNDER = {"more-latin": 0.15, "unseen-latin": 0.15}


@pytest.fixture(scope="module")
def held_out() -> list:
    return table(load_corpus("holdout"))


def test_every_category_is_within_ten_percent_of_o200k_on_texts_never_fitted_on(held_out: list) -> None:
    print("\n" + markdown(held_out))
    assert {r.category for r in held_out} == REQUIRED | MORE | UNSEEN
    for r in held_out:
        if r.category in MORE | UNSEEN:
            continue
        assert r.samples >= 7, f"{r.category}: too few held-out texts to measure"
        assert r.mae_o200k <= BOUND, f"{r.category}: mean error {r.mae_o200k:.1%} > {BOUND:.0%}"


def test_errors_lean_to_over_estimating(held_out: list) -> None:
    # An under-estimate delays compaction into an overflow; an over-estimate compacts a little
    # early. The fit is scaled up (calibrate_tokens.UPLIFT) so the errors lean positive.
    signed = [r.signed_o200k for r in held_out]
    assert sum(signed) / len(signed) > 0
    for r in held_out:
        if r.category in MORE | UNSEEN:
            continue
        assert r.signed_o200k > -0.05, f"{r.category} under-estimated by {-r.signed_o200k:.1%} on average"


def test_no_added_language_is_under_estimated_beyond_its_bound_on_held_out_texts() -> None:
    added = sorted(MORE | UNSEEN - {"blind"})
    samples = load_corpus("holdout", added)
    for s in samples:
        s.lang = f"{s.category}/{s.lang}"  # (Xhosa is in both Latin files)
    rows = table(samples, by="lang")
    family = {s.lang: s.category for s in samples}
    print("\n" + markdown(sorted(rows, key=lambda r: r.signed_o200k)))
    assert len(rows) >= 70
    for r in rows:
        bound = MORE_UNDER.get(family[r.category], BOUND)
        assert r.signed_o200k >= -bound, f"{r.category}: under-estimated by {-r.signed_o200k:.1%} > {bound:.0%}"


def test_languages_chosen_before_any_measure_are_within_the_bound() -> None:
    # blind.jsonl (build_unseen.py): ten Latin-script languages and four scripts named before
    # anything was measured on them and never looked at while designing; every text held out.
    samples = load_corpus("holdout", ["blind"])
    assert {s.split for s in samples} == {"holdout"} and len(samples) >= 100
    rows = table(samples, by="lang")
    print("\n" + markdown(sorted(rows, key=lambda r: r.signed_o200k)))
    assert len(rows) >= 14
    for r in rows:
        assert r.signed_o200k >= -BOUND, f"{r.category}: under-estimated by {-r.signed_o200k:.1%}"
        assert r.mae_o200k <= BOUND, f"{r.category}: mean error {r.mae_o200k:.1%} > {BOUND:.0%}"


def test_a_script_the_fit_never_saw_is_over_estimated_not_under() -> None:
    # Lao, Cherokee, Ol Chiki, Tifinagh, N'Ko, Vai, Adlam, Shavian, Glagolitic ... have no weight:
    # each character costs what o200k spends on it alone (token_tables.BLOCK_COSTS).
    from tests.core.calibrate_tokens import count, encoders

    assert token_tables.WEIGHTS["unfitted"] == pytest.approx(1.03)
    enc = encoders()["o200k_base"]
    for text in ("ພາສາລາວ ເປັນພາສາທາງການ ຂອງປະເທດລາວ ", "ᱥᱟᱱᱛᱟᱲᱤ ᱯᱟᱹᱨᱥᱤ ", "ᏣᎳᎩ ᎦᏬᏂᎯᏍᏗ ",
                 "ⵜⴰⵎⴰⵣⵉⵖⵜ ⵜⴰⵏⴰⵡⴰⵢⵜ ", "ߒߞߏ ߞߊ߲ ", "ꕙꔤ ꕞꕌꔳ ", "𞤆𞤵𞤤𞤢𞤪 ", "𐑖𐑱𐑝𐑾𐑯 ", "ⰳⰾⰰⰳⱁⰾⰹⱌⰰ "):
        text *= 20
        real = count(enc, text)
        assert 0.95 * real <= estimate_text(text) <= 1.4 * real, text[:10]  # (a space is a piece of its own)


def test_the_block_cost_table_matches_o200k() -> None:
    from tests.core.calibrate_tokens import block_costs

    assert token_tables.BLOCK_COSTS == block_costs()


def test_the_gram_table_is_read_off_o200ks_vocabulary() -> None:
    import zlib

    from orkas_nb.core.token_grams import TABLE
    from tests.core.calibrate_tokens import gram_levels

    shipped = TABLE.read_bytes()
    assert zlib.decompress(shipped) == gram_levels()
    assert len(shipped) < 64_000  # (the package ships it: about 49 KB)


def test_a_foreign_word_whose_letters_o200k_has_no_tokens_for_costs_more() -> None:
    # Same letters, same length: o200k's vocabulary holds the 4-grams of "information" (level
    # 3), not most of those of "kwinkqubo". (Every fourth 4-gram is read: 25 characters a
    # repeat, so that each is read in one repeat or another.)
    known = token_features.features("la information nacional, " * 16)
    rare = token_features.features("la kwinkqubo ngokwemiga, " * 16)
    assert known.get("gram_0", 0) == 0 < rare["gram_0"]
    assert rare["gram_0"] + rare["gram_1"] > 4 * (known.get("gram_1", 0) + known["gram_2"])
    # An accented letter is one letter of the 4-grams (Ewe, Turkmen), not a word break.
    ewe = token_features.features("Eʋegbe nye gbe si wodona le Ghana kple Togo ƒe akpa aɖewo " * 5)
    assert sum(ewe.get(f"gram_{level}", 0) for level in range(3)) >= 100


def test_the_gram_table_is_loaded_only_when_a_foreign_latin_text_needs_it() -> None:
    import subprocess
    import sys

    code = ("import sys; from orkas_nb.core.tokens import estimate_text; estimate_text('你好，世界'); "
            "estimate_text('the weather is there and the sea is fine'); "
            "from orkas_nb.core import token_grams; print(bool(token_grams._LEVELS)); "
            "estimate_text('la kwinkqubo ngokwemiga'); print(bool(token_grams._LEVELS))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "True"]


def test_the_trigram_table_of_the_other_scripts_is_read_off_o200ks_vocabulary() -> None:
    from orkas_nb.core import token_hangul, token_trigrams
    from tests.core.calibrate_tokens import hangul_table, trigram_table

    shipped = token_trigrams.TABLE.read_bytes()
    assert zlib.decompress(shipped) == zlib.decompress(trigram_table())
    assert len(shipped) < 40_000  # (the package ships it: about 30 KB)
    hangul = token_hangul.TABLE.read_bytes()
    assert zlib.decompress(hangul) == zlib.decompress(hangul_table()) and len(hangul) < 12_000


def test_hangul_names_whose_syllable_pairs_o200k_has_no_tokens_for_cost_more() -> None:
    from tests.core.calibrate_tokens import count, encoders

    # African capitals transcribed into Hangul (written for this test) and prose of the same length.
    names = ("와가두구, 누악쇼트, 바마코, 킨샤사, 리브르빌, 부줌부라, 안타나나리보, 릴롱궤, 마푸토, 빈트후크, "
             "가보로네, 하라레, 루사카, 키갈리, 지부티, 모가디슈, 아스마라, 하르툼, 은자메나, 니아메, 아부자")
    prose = ("파일을 선택하면 사용자의 시스템에 저장됩니다. 다른 파일을 선택하거나 작업을 취소할 수 있습니다. "
             "파일이 이미 있으면 경고 없이 덮어쓰므로 저장하기 전에 이름을 확인하십시오.")
    f_names, f_prose = token_features.features(names), token_features.features(prose)
    assert f_names["hangul_pair_0"] / f_names["hangul"] > 3 * f_prose["hangul_pair_0"] / f_prose["hangul"]
    enc = encoders()["o200k_base"]
    saved = dict(tokens.WEIGHTS)
    try:
        tokens.WEIGHTS.update({"hangul_pair_0": 0.0, "hangul_pair_1": 0.0, "hangul_pair_00": 0.0})
        without = estimate_text(names)
    finally:
        tokens.WEIGHTS.update(saved)
    real = count(enc, names)
    # (-35% with the pairs' weights at 0, -21% with them; the estimator before them: -29%)
    assert estimate_text(names) - without > 0.1 * real and estimate_text(names) >= 0.75 * real
    # The pair hash the table is read with is the one counts computes on many pairs at once.
    from orkas_nb.core.token_hangul import NOT_SYLLABLE, counts, pair_hash

    assert pair_hash(ord("가"), NOT_SYLLABLE) == (0xAC00FFFF ^ 0xAC00FFFF >> 12) & 0xFFFFF
    assert counts("가나 다라".encode(), 0) == counts("가나, 다라".encode(), 0)  # (a word's end is no pair)


# Names transliterated into a script (African capitals, written for this test) and prose of the
# same length: o200k splits the names into pieces of a letter or two, and holds the prose's words.
_NAMES = {
    "cyrillic": ("Уагадугу, Нуакшот, Бамако, Киншаса, Либревиль, Бужумбура, Антананариву, Лилонгве, Мапуту, "
                 "Виндхук, Габороне, Хараре, Лусака, Кигали, Джибути, Могадишо, Нджамена, Ниамей, Абуджа"),
    "greek": ("Ουαγκαντούγκου, Νουακσότ, Μπαμάκο, Κινσάσα, Λιμπρεβίλ, Μπουζουμπούρα, Ανταναναρίβο, Λιλόνγκουε, "
              "Μαπούτο, Βίντχουκ, Γκαμπορόνε, Χαράρε, Λουσάκα, Κιγκάλι, Τζιμπουτί, Ασμάρα, Χαρτούμ, Αμπούτζα"),
    "hebrew": ("ואגדוגו, נואקשוט, במאקו, קינשאסה, ליברוויל, בוז'ומבורה, אנטננריבו, לילונגווה, מאפוטו, וינדהוק, "
               "גבורונה, הררה, לוסקה, קיגאלי, ג'יבוטי, מוגדישו, אסמרה, חרטום, נג'מנה, ניאמיי, אבוג'ה"),
}
_PROSE = {
    "cyrillic": ("Выберите файл, который будет сохранён в системе пользователя. Вы можете выбрать другой файл "
                 "или отменить операцию. Если файл уже существует, он будет перезаписан без предупреждения."),
    "greek": ("Επιλέξτε το αρχείο που θα αποθηκευτεί στο σύστημα του χρήστη. Μπορείτε να επιλέξετε άλλο αρχείο "
              "ή να ακυρώσετε τη λειτουργία. Αν το αρχείο υπάρχει ήδη, θα αντικατασταθεί."),
    "hebrew": ("בחר את הקובץ שיישמר במערכת של המשתמש. אתה יכול לבחור קובץ אחר או לבטל את הפעולה. אם הקובץ "
               "כבר קיים, הוא יוחלף ללא אזהרה, לכן בדוק את השם לפני השמירה."),
}


@pytest.mark.parametrize("script", sorted(_NAMES))
def test_names_whose_letter_trigrams_o200k_has_no_tokens_for_cost_more(script: str) -> None:
    from tests.core.calibrate_tokens import count, encoders

    enc = encoders()["o200k_base"]
    names, prose = token_features.features(_NAMES[script]), token_features.features(_PROSE[script])
    unknown = "script_trigram_0"
    assert names[unknown] / len(_NAMES[script]) > 2 * prose.get(unknown, 0) / len(_PROSE[script])
    assert token_tables.WEIGHTS[unknown] > 0
    saved = dict(tokens.WEIGHTS)
    try:
        tokens.WEIGHTS.update({key: 0.0 for key in saved if key.startswith("script_trigram_")})
        without = {text: estimate_text(text) for text in (_NAMES[script], _PROSE[script])}
    finally:
        tokens.WEIGHTS.update(saved)
    raise_of = {text: (estimate_text(text) - n) / count(enc, text) for text, n in without.items()}
    # The trigrams add 9-15% of o200k's count to the names (Russian -13% -> -4%, Greek -28% -> -14%,
    # Hebrew -13% -> -2%), less to the prose (Greek prose holds rare trigrams too: 10%).
    assert raise_of[_NAMES[script]] > max(0.07, raise_of[_PROSE[script]])
    assert estimate_text(_NAMES[script]) >= 0.85 * count(enc, _NAMES[script])
    # A capital is read as its small letter (script_upper costs it apart).
    assert token_features.features(_NAMES[script].lower())[unknown] == names[unknown]


def test_the_trigram_table_is_loaded_only_when_a_text_of_those_scripts_needs_it() -> None:
    import subprocess
    import sys

    code = ("from orkas_nb.core.tokens import estimate_text; estimate_text('你好，世界'); "
            "estimate_text('la kwinkqubo ngokwemiga, and a word in Russian: слово'); "
            "from orkas_nb.core import token_trigrams; print(bool(token_trigrams._TABLES)); "
            "estimate_text('Уагадугу, Нуакшот, Бамако, Киншаса'); print(bool(token_trigrams._TABLES))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "True"]


def test_a_character_outside_the_fitted_blocks_leaves_its_lead_bytes_class() -> None:
    # Tifinagh shares its lead byte with the punctuation, Vai with Hangul, N'Ko with Arabic,
    # Adlam with the emoji, Lao with Thai.
    from tests.core.calibrate_tokens import count, encoders

    enc = encoders()["o200k_base"]
    for char, klass in (("ⵜ", "symbol"), ("ꕙ", "hangul"), ("ߒ", "arabic"), ("𞤆", "emoji"), ("ລ", "thai")):
        f = token_features.features("ab " + char * 3)
        # the block's mean cost, rounded up to half a token, and the space before the run
        lead, second = char.encode()[:2]
        assert f["unfitted"] == 3 * int(token_tables.BLOCK_COSTS[lead][second - 0x80]) / 2 + 1, char
        assert f["unfitted"] >= 3 * count(enc, char), char
        assert not f.get(klass), (char, klass)
    mixed = token_features.features("한국어 ꕙꔤ “Tifinagh ⵜⴰⵎ” 😀")
    assert mixed["hangul"] == 3 and mixed["emoji"] == 1 and mixed["symbol"] == 2


def test_the_first_corpus_is_unseen_now_and_stays_within_the_bound() -> None:
    rows = table(load_legacy(["english", "chinese", "mixed", "code", "json"]))
    print("\n" + markdown(rows))
    for r in rows:
        assert r.mae_o200k <= BOUND, f"{r.category}: mean error {r.mae_o200k:.1%} > {BOUND:.0%}"


def test_the_bound_tells_a_script_aware_estimate_from_chars_over_four(held_out: list) -> None:
    # The check can fail: the naive rule is far outside it on most scripts.
    by_category = {r.category: r for r in held_out}
    for category in ("han-simplified", "japanese", "korean", "arabic", "devanagari", "thai", "csv"):
        assert by_category[category].mae_chars4 > 3 * BOUND, category


def test_the_corpus_records_its_sources_and_its_split_follows_the_rule() -> None:
    splits: dict[str, str] = {}
    for category in CATEGORIES:
        for line in (CORPUS / f"{category}.jsonl").read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            assert len(r["text"]) >= MIN_CHARS, r["id"]
            assert r["category"] == category and r["source"] and r["package"] and r["licence"], r["id"]
            assert r["split"] == group_split(r["group"]), r["id"]
            # One work (all its translations) stays in one split.
            assert splits.setdefault(r["group"], r["split"]) == r["split"], r["group"]
    assert set(splits.values()) == {"tune", "holdout"}


def test_the_fit_refuses_held_out_texts() -> None:
    from tests.core.calibrate_tokens import fit

    with pytest.raises(AssertionError, match="holdout"):
        fit(load_corpus("holdout", ["thai"]))


def test_the_single_token_han_table_matches_o200k() -> None:
    from tests.core.calibrate_tokens import han_table

    assert token_tables.HAN_SINGLE == han_table()


def test_rare_han_characters_cost_more_than_common_ones() -> None:
    common = "一天还是今年第一出来" * 20  # one o200k token each
    rare = "闷饕餮魑魍魉耄耋龘" * 20  # two or three byte pieces each
    assert token_features.features(rare)["han_rare"] == len(rare)
    assert token_features.features(common)["han_rare"] == 0
    assert estimate_text(rare) > 1.5 * estimate_text(common)


def test_english_and_other_latin_languages_are_told_apart() -> None:
    en = token_features.features("The weather on the north coast is rather wet throughout the year.")
    pl = token_features.features("Pogoda na północnym wybrzeżu jest przez cały rok raczej wilgotna.")
    code = token_features.features("def read_file(file_path, max_size=None):\n    return open(file_path).read(max_size)\n")
    assert en["word_x"] == 0 and en["word_en"] > 0
    assert pl["word_en"] < 0.2 * pl["word_x"]
    assert code["word_x"] == 0  # snake_case marks code as English words


def test_chinese_costs_far_more_per_character_than_english() -> None:
    zh = "缓存是提高系统性能最常用的手段之一，但要把缓存用好并不容易。" * 20
    en = "Caching is one of the most common ways to make a system faster. " * 20
    assert estimate_text(zh) / len(zh) > 3 * estimate_text(en) / len(en)


def test_ascii_fast_path_agrees_with_the_general_path() -> None:
    text = "def load(path: str) -> dict:\n    return json.loads(Path(path).read_text())  # 42\n" * 5
    fast = token_features.features(text)
    # One non-ASCII character forces the general path; it must add only that character.
    slow = token_features.features(text + "é")
    assert slow["accent_é"] == 1
    # "é" after the last line break is a word of one Latin letter.
    for a, b in (("word_en", "word_x"), ("letter_en", "letter_x")):
        assert slow[a] + slow[b] == pytest.approx(fast[a] + fast[b] + 1), a
    assert slow["line_word"] == fast["line_word"] + 1
    for key, value in fast.items():
        if key.startswith(("rare_", "gram_")):  # scaled by the share of foreign letters, which the é moves
            assert slow[key] == pytest.approx(value, rel=0.01), key
        elif not key.startswith(("word_", "letter_", "line_word")):
            assert slow[key] == value, key


def test_empty_and_odd_text() -> None:
    assert estimate_text("") == 0
    assert estimate_text(" ") == 1
    assert estimate_text("\ud800 lone surrogate") > 0  # never raises on what str allows
    assert estimate_text("\x00\x01\x02") > 0


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400))
def test_any_text_gets_a_sane_estimate(text: str) -> None:
    n = estimate_text(text)
    assert (n == 0) == (text == "")
    # No text costs more than a few tokens per code point (emoji are the worst case).
    assert n <= 4 * len(text) + 1


def test_scales_linearly_with_repetition() -> None:
    piece = "The river had been low all summer, 河水很浅。 "
    one, hundred = estimate_text(piece), estimate_text(piece * 100)
    # (within 8%: the letter 4-grams are a sample, every fourth one, and a text that repeats
    # with a period of 38 characters shows them only two of the four offsets)
    assert 92 * one <= hundred <= 108 * one


# -- images ---------------------------------------------------------------------------------


def _png(width: int, height: int) -> str:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    raw = b"".join(b"\x00" + b"\x00" * (3 * width) for _ in range(height))
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
    return base64.b64encode(png).decode()


def _gif(width: int, height: int) -> str:
    return base64.b64encode(b"GIF89a" + struct.pack("<HH", width, height) + b"\x00" * 20).decode()


def _jpeg(width: int, height: int) -> str:
    app0 = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\x00" + b"\x00" * 9
    sof = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, height, width, 1) + b"\x01\x11\x00"
    return base64.b64encode(b"\xff\xd8" + app0 + sof + b"\xff\xd9").decode()


@pytest.mark.parametrize("encode", [_png, _gif, _jpeg])
def test_image_size_is_read_from_the_header(encode) -> None:
    small, large = encode(64, 48), encode(1024, 768)
    assert estimate_image(data=small) == estimate_image(64, 48)
    assert estimate_image(data=large) == estimate_image(1024, 768)
    assert estimate_image(data=small) < estimate_image(data=large)


def test_image_rules() -> None:
    # OpenAI high detail: 1024x1024 -> 768x768 -> 4 tiles -> 765; Anthropic: ~1399.
    assert estimate_image(1024, 1024) == max(765, -(-1024 * 1024 // 750))
    assert estimate_image(100, 100) == 255  # one tile dominates a tiny image
    # Huge images are capped by the providers' resizing, not counted by raw pixels.
    assert estimate_image(20_000, 20_000) == estimate_image(4_000, 4_000)


def test_unknown_or_garbage_images_count_as_full_size() -> None:
    assert estimate_image() == tokens.UNKNOWN_IMAGE_TOKENS
    assert estimate_image(data="not base64 at all!!") == tokens.UNKNOWN_IMAGE_TOKENS
    assert estimate_image(data=base64.b64encode(b"\x89PNG short").decode()) == tokens.UNKNOWN_IMAGE_TOKENS
    assert estimate_image(0, 100) == tokens.UNKNOWN_IMAGE_TOKENS


# -- messages and requests ------------------------------------------------------------------


def test_message_estimate_counts_every_block_and_is_cached() -> None:
    call = ToolCallBlock(id="c1", name="read_file", arguments={"path": "data/报告.csv", "limit": 200})
    answer = AssistantMessage(content=[TextBlock(text="Let me read it."), call])
    n = estimate_message(answer)
    assert n > estimate_text("Let me read it.") + estimate_text("read_file")
    assert answer.wire_cache[tokens._CACHE_KEY] == n
    answer.wire_cache[tokens._CACHE_KEY] = 12345  # a second call must read the cache
    assert estimate_message(answer) == 12345

    result = ToolResultMessage(
        tool_call_id="c1", name="read_file",
        content=[TextBlock(text="月份,销售额\n1,100\n"), ImageBlock(data=_png(512, 512))],
    )
    assert estimate_message(result) > estimate_image(512, 512)


def test_request_estimate_includes_system_and_tools() -> None:
    messages = [user_message("hello there")]
    spec = ToolSpec(name="grep_files", description="Search file contents with a regex.",
                    input_schema={"type": "object", "properties": {"pattern": {"type": "string"}}})
    bare = estimate_request("", messages)
    assert estimate_request("You are a careful agent.", messages) > bare
    assert estimate_request("", messages, [spec]) > bare + estimate_text("grep_files")


@pytest.mark.parametrize("char,klass", [
    ("中", "han_s"), ("這", "han_t"), ("あ", "kana"), ("カ", "kana"), ("。", "cjk_punct"), ("한", "hangul"),
    ("，", "fullwidth"), ("я", "cyrillic"), ("α", "greek"), ("ש", "hebrew"), ("ع", "arabic"),
    ("अ", "devanagari"), ("ก", "thai"), ("ქ", "georgian"), ("ക", "malayalam"), ("ሰ", "ethiopic"),
    ("ա", "armenian"), ("ਪ", "gurmukhi"), ("ཀ", "tibetan"), ("—", "symbol"), ("→", "symbol"), ("😀", "emoji"),
    ("ŋ", "latin_ext"), ("ß", "accent_ß"), ("ł", "accent_ł"), ("ệ", "viet"),
])
def test_each_script_lands_in_its_class(char: str, klass: str) -> None:
    f = token_features.features("ab " + char * 3)
    if klass in ("han_s", "han_t"):  # a three-character sample says little: both shares are kept
        assert f["han_s"] + f["han_t"] == pytest.approx(3) and f[klass] >= 1.5
        klass_set = {"han_s", "han_t"}
    elif klass == "cyrillic":  # (split by how Russian the text looks: "яяя" has no ы, so not Russian)
        assert f["cyrillic"] + f["cyrillic_x"] == 3 and f["cyrillic_word"] + f["cyrillic_word_x"] == 1
        klass_set = {"cyrillic", "cyrillic_x", "cyrillic_word", "cyrillic_word_x"}
    else:
        assert f[klass] == 3
        klass_set = {klass, "thai_word"} if klass == "thai" else {klass}  # (the space before it)
    word = {"cyrillic": "cyrillic_word", "greek": "greek_word", "hebrew": "hebrew_word", "arabic": "arabic_word",
            "hangul": "hangul_word", "armenian": "armenian_word",
            **{k: "indic_word" for k in token_scripts.BRAHMIC}}
    if klass in word and klass != "cyrillic":
        assert f[word[klass]] == 1
        klass_set.add(word[klass])
    if klass in ("han_s", "han_t", "kana", "cjk_punct"):
        assert f["space_cjk"] == 1  # the space before the run
        klass_set.add("space_cjk")
    others = {k: v for k, v in f.items() if k in token_features.NON_ASCII and k not in klass_set and v}
    assert not others, others


def test_a_running_estimate_equals_the_plain_sum_through_appends_prefixes_and_rewrites() -> None:
    from orkas_nb.core.tokens import RunningEstimate, estimate_messages

    history = [user_message(f"message {i} " * (i + 1)) for i in range(6)]
    running = RunningEstimate()
    for cut in (3, 6, 2, 6):  # grow, shrink to a prefix, grow again
        assert running.total(history[:cut]) == estimate_messages(history[:cut])
    rewritten = [user_message("a summary of the first four"), *history[4:]]  # compaction
    assert running.total(rewritten) == estimate_messages(rewritten)
    changed = [*history[:2], user_message("another third message, longer " * 9), *history[3:]]
    assert running.total(changed) == estimate_messages(changed)  # differs in the middle
    assert running.total([]) == 0


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300), st.text(min_size=1, max_size=40), st.booleans())
def test_the_length_bound_is_never_below_the_estimate(text: str, name: str, raw: bool) -> None:
    from orkas_nb.core.tokens import estimate_bound, estimate_messages

    arguments = {"path": text, name: [1, 2]}
    messages = [
        user_message(text or "x"),
        AssistantMessage(content=[TextBlock(text=text or "y"), ToolCallBlock(
            id=f"call_{name}", name=name, arguments={} if raw else arguments,
            raw_arguments=text if raw else None)]),
        ToolResultMessage(tool_call_id=f"call_{name}", name=name, content=[TextBlock(text=text or "z")]),
    ]
    bound = estimate_bound(messages)  # before anything is cached on the messages
    assert bound is not None and bound >= estimate_messages(messages)
    assert estimate_bound(messages) == estimate_messages(messages)  # estimated ones count exactly
    with_image = ToolResultMessage(tool_call_id="c", name="n", content=[ImageBlock(data="AAAA")])
    assert estimate_bound([*messages, with_image]) is None


def test_a_long_text_sampled_for_its_pair_counts_stays_within_its_length_bound() -> None:
    from orkas_nb.core.tokens import _text_bound

    # camelCase only at the start: the sampled windows see more of it than the text holds.
    text = "getValueForKey(someName) " * 3000 + "plain words and more words " * 4000
    assert len(text) > 131_072
    assert 0 < estimate_text(text) <= _text_bound(text)
    # And a sampled long text is estimated close to the same text counted whole.
    piece = "Der Fluss war den ganzen Sommer niedrig, 河水很浅。 def f(x_1): return x_1\n"
    hundred = estimate_text(piece * 100)  # short enough to be counted whole
    assert 0.97 * hundred * 30 <= estimate_text(piece * 3000) <= 1.03 * hundred * 30


def test_name_lists_in_the_scripts_beyond_latin_are_not_under_estimated_by_more_than_a_tenth() -> None:
    # The held-out name lists (build_names.py: mimesis' and pythainlp's lists, not any check's):
    # o200k splits transliterated and rare names into pieces of a letter or two. The trigram and
    # Hangul pair shares were read on the first 100 letters (50 syllables), a handful of names,
    # and a text of mostly unknown pairs costs more than their count says: 11 of 52 were more
    # than 10% under (worst -20%) before; 1 (-12%) now.
    from tests.core.calibrate_tokens import count, encoders

    enc = encoders()["o200k_base"]
    errors = []
    for s in load_corpus("holdout", ["names"]):
        real = count(enc, s.text)
        errors.append((tokens.estimate_text(s.text) - real) / real)
    assert len(errors) >= 40
    assert min(errors) >= -0.14
    assert sum(e < -BOUND for e in errors) <= 2
