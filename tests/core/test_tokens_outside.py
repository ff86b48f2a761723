"""The token estimator on the outside checks (issue 19, part 4): 298 texts from sources on this
machine the corpus does not read (``tests/data/tokens/build_check.py``), held out whole and
measured once before any change (``tests/data/tokens/check/README.md``); and a second one, 392
texts from sources neither reads (``build_check2.py``), measured before the fixes made for the
first and read by its per-category totals only (``check2/README.md``); and a third, 263 texts
from sources none of those reads (``build_check3.py``), measured before the changes made after
it and read by its totals only too (``check3/README.md``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orkas_nb.core import token_features, tokens
from tests.core.calibrate_tokens import CORPUS, Sample, count, encoders, fit, markdown, table
from tests.data.tokens.build_check import OUT
from tests.data.tokens.build_check2 import OUT as OUT2
from tests.data.tokens.build_check3 import OUT as OUT3
from tests.data.tokens.build_corpus import MIN_CHARS

# The scripts and formats the issue names, each with at least three texts.
REQUIRED = {"latin", "cyrillic", "greek", "han-simplified", "han-traditional", "japanese", "korean", "arabic",
            "hebrew", "devanagari", "thai", "code", "json", "csv", "markdown-table"}
# Kinds a mechanism was fixed for (a digit run costs ceil(n / 3) pieces; a hash or base64 in
# English or code is told by its unknown 4-grams): 15-16% off before, held to the general bound.
FIXED = {"numbers", "csv", "base64"}
# Every category's mean error (the URL lists, +18% before their joined words were read as
# identifiers, are held to it too).
CATEGORY_BOUND = 0.15


def load_check(path: Path = OUT) -> list[Sample]:
    recs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [Sample(r["category"], r["id"], r["text"], r["split"], r["lang"]) for r in recs]


@pytest.fixture(scope="module")
def rows() -> list:
    rows = table(load_check())
    print("\n" + markdown(sorted(rows, key=lambda r: r.category)))
    return rows


def test_the_check_records_its_sources_and_is_never_fitted_on() -> None:
    recs = [json.loads(line) for line in OUT.read_text(encoding="utf-8").splitlines()]
    assert len(recs) >= 250 and len({r["id"] for r in recs}) == len(recs)
    for r in recs:
        assert len(r["text"]) >= MIN_CHARS and r["split"] == "holdout"
        assert r["source"] and r["licence"] and r["package"] and r["kind"]
    assert OUT.parent != CORPUS  # load_corpus (and so every fit) reads corpus/ only
    with pytest.raises(AssertionError):
        fit(load_check()[:5])


def test_every_script_and_format_of_the_issue_is_in_the_check(rows: list) -> None:
    counts = {r.category: r.samples for r in rows}
    assert REQUIRED | FIXED <= set(counts)
    assert all(counts[c] >= 3 for c in counts), counts


def test_no_category_of_the_check_is_off_beyond_its_bound(rows: list) -> None:
    for r in rows:
        bound = BOUND if r.category in FIXED or r.category in ("urls", "log") else CATEGORY_BOUND
        assert r.mae_o200k <= bound, f"{r.category}: mean error {r.mae_o200k:.1%} > {bound:.0%}"
        assert r.signed_o200k >= -0.10, f"{r.category}: under-estimated by {-r.signed_o200k:.1%}"


BOUND = 0.10


def test_no_text_of_the_check_is_under_estimated_by_more_than_the_worst_bound() -> None:
    enc = encoders()["o200k_base"]
    errs = []
    for s in load_check():
        real = count(enc, s.text)
        errs.append(((tokens.estimate_text(s.text) - real) / real, s.name))
    errs.sort()
    print("\nworst under:", errs[:5], "\nworst over:", errs[-5:])
    # City-name lists in Thai (tzdata's debconf choices) were the worst: o200k has no tokens for
    # the transliterated names (-20%; -26% before a run of Thai after a space had its own cost;
    # -16% once the letter trigrams its tokens lack cost apart, token_trigrams).
    # Belarusian's (-24%, then -17%) came to -4% once a Cyrillic capital cost its own.
    assert errs[0][0] >= -0.21, errs[:3]
    assert sum(abs(e) <= BOUND for e, _ in errs) >= 0.80 * len(errs)  # (242 of 298; 233, 217 before)
    # A hash or base64 next to English words and paths (dist-info RECORD: 16-23% under before).
    assert all(e >= -BOUND for e, name in errs if name.startswith(("csv/", "base64/", "numbers/"))), errs[:5]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=10**12), min_size=1, max_size=30))
def test_digit_pieces_are_counted_as_o200k_cuts_them(numbers: list[int]) -> None:
    # A run of n digits is ceil(n / 3) tokens, cut from its left; a comma before one is its own.
    text = ",".join(map(str, numbers))
    f = token_features.features(text)
    assert f["digit_run"] + f["digit_group"] + len(numbers) - 1 == count(encoders()["o200k_base"], text)


def test_a_hash_among_english_words_is_told_by_its_unknown_four_grams() -> None:
    # Lines of a RECORD file: English-looking paths (their underscores read as code) and base64
    # hashes, whose words digits and capitals cut; prose with few of those never reads the table.
    lines = "".join(f"package/{name}.py,sha256={digest},{size}\n" for name, digest, size in (
        ("__init__", "zuuue4knoyJ-UwPPXg8fezS7VCrXJQrAP7zeNuwvFQg", 4), ("_json", "Y68JiRtr6K0aQlLtQ68PTvun_JSOIoNnvtfzxa4LCdc", 1475),
        ("encoding", "0rk0-1ZwihuU5DnwJVwPWoEI4yWOyCexih3JyZHblhE", 1924), ("signer", "dGhpcyBpcyBub3QgYSByZWFsIGhhc2gsIGp1c3QgdGV4", 9012)))
    english = "The file was checked against the list of the packages that the mirror holds. " * 3
    assert "gram_0_en" not in token_features.features(english)
    f = token_features.features(lines)
    assert f["gram_0_en"] > 10 and f["word_en"] > f.get("word_x", 0)  # (read as English, yet costed as random)
    real = count(encoders()["o200k_base"], lines)
    assert abs(tokens.estimate_text(lines) - real) / real <= BOUND


# -- the mechanisms fixed for the first check (o200k's pre-tokenizer: a word may take one mark
# before it, a run of marks takes the line breaks and slashes after it) ----------------------


def _o200k_pieces(text: str) -> int:
    return count(encoders()["o200k_base"], text)


def test_a_lone_mark_before_a_word_is_in_the_word_s_piece_unless_a_space_is_before_it() -> None:
    assert _o200k_pieces("os.path") == _o200k_pieces("os path") == 2
    f = token_features.features("os.path.join(self")
    assert f["punct_run"] == 0  # ".path" ".join" "(self": no piece of marks
    assert token_features.features(" -v --verbose")["punct_run"] == 2  # " -" "v", " --" "verbose"
    assert token_features.features('class="a"')["punct_run"] == 2  # '="' and '"': runs, not lone


def test_a_run_of_marks_takes_the_line_breaks_and_slashes_after_it() -> None:
    text = "end.\n//\n// next;\n"
    assert _o200k_pieces(".\n//\n//") == 1
    f = token_features.features(text)
    assert f["punct_newline"] == 3 and f["slash_line"] == 2


def test_persian_letters_cost_as_arabic_ones_and_uyghur_letters_more() -> None:
    persian = token_features.features("این یک کتاب بزرگ است که گربه را دوست دارد")
    assert persian["arabic_ext"] == 0
    assert token_features.features("ئۇيغۇر تىلى")["arabic_ext"] > 0  # ۇ ى (U+06C7, U+0649 is core)


def test_cyrillic_text_is_split_into_russian_and_the_other_languages() -> None:
    russian = token_features.features("Вы можете выбрать другой пользователь и мы сохраним системы")
    ukrainian = token_features.features("Ви можете обрати іншого користувача і ми збережемо її")
    assert russian.get("cyrillic_x", 0) == 0 and russian["cyrillic"] > 0
    assert ukrainian["cyrillic"] == 0 and ukrainian["cyrillic_x"] > 0
    assert tokens.WEIGHTS["cyrillic_x"] > tokens.WEIGHTS["cyrillic"]  # o200k knows Russian best


def test_a_cyrillic_or_greek_capital_costs_its_own() -> None:
    # o200k's Cyrillic and Greek tokens are small-letter words: a capitalised one splits more.
    enc = encoders()["o200k_base"]
    for small in ("выберите файл, который будет сохранён в системе пользователя",
                  "оберіть файл, який буде збережено в системі користувача"):
        title = small.title()
        assert count(enc, title) > count(enc, small)  # (11 -> 20, 16 -> 21)
        assert token_features.features(title)["script_upper"] == 8 and "script_upper" not in token_features.features(small)
        assert tokens.estimate_text(title) > tokens.estimate_text(small)
    assert token_features.features("Αθήνα, Θεσσαλονίκη, ά έ ή ί")["script_upper"] == 2


def test_a_line_break_a_mark_takes_is_weighed_as_no_piece() -> None:
    f = token_features.features('msgid "Name"\nmsgstr "Nom"\n\nmsgid "Role"\nmsgstr "Rôle"\n')
    assert f["punct_newline"] == 4 and f["newline"] == 1  # (of five: one of the blank line's two)


def test_arabic_and_persian_digits_cost_about_a_token_each() -> None:
    enc = encoders()["o200k_base"]
    for digits in ("٠١٢٣٤٥٦٧٨٩", "۰۱۲۳۴۵۶۷۸۹"):
        numbers = " ".join(digits[i % 10] + digits[i * 7 % 10] + digits[i * 3 % 10][: i % 2] for i in range(60))
        real = count(enc, numbers)
        assert abs(tokens.estimate_text(numbers) - real) / real <= BOUND  # (-70% and +14% as letters)
        assert token_features.features(numbers)["script_digit"] == len(numbers.replace(" ", ""))


def test_the_digits_of_the_indic_and_southeast_asian_scripts_cost_what_o200k_spends_on_them() -> None:
    import math

    from orkas_nb.core.token_scripts import DIGIT_COSTS

    enc = encoders()["o200k_base"]
    for zero, (cost, _) in DIGIT_COSTS.items():
        alone = sum(count(enc, chr(zero + i)) for i in range(10)) / 10
        assert cost == math.ceil(alone * 10 - 1e-9) / 10, hex(zero)
    for zero in (0xBE6, 0xE50, 0x17E0):  # Tamil, Thai, Khmer: -84%, -73%, -68% as letters
        d = [chr(zero + i) for i in range(10)]
        numbers = " ".join(d[i % 10] + d[i * 7 % 10] + d[i * 3 % 10] * (i % 2) for i in range(60))
        real = count(enc, numbers)
        assert abs(tokens.estimate_text(numbers) - real) / real <= BOUND


def test_a_script_s_shares_are_read_where_it_starts() -> None:
    # A Persian text after a long English header: its common letters still cost as Arabic ones.
    header = "".join(f"% This file is part of the locale data, line {i}.\n" for i in range(40))
    persian = "لطفاً گذرواژه خود را وارد کنید تا هویت شما تأیید شود. اگر مشکلی دارید با مدیر تماس بگیرید. " * 4
    assert token_features.features(header + persian)["arabic_ext"] == token_features.features(persian)["arabic_ext"] == 0
    russian = "Выберите файл, который будет сохранён в системе пользователя. Вы можете выбрать другой. " * 6
    f = token_features.features(header + russian)
    assert f["cyrillic"] > 0 and f.get("cyrillic_x", 0) == 0  # (read on the header: not Russian)


def test_a_run_of_thai_after_a_space_or_a_mark_opens_a_piece() -> None:
    names = token_features.features("อาบิดจัน, อักกรา, แอดดิสอาบาบา, บามาโก")
    assert names["thai_word"] == 4 and tokens.WEIGHTS["thai_word"] > 0  # (the first run too)


# -- the second check: its totals only ---------------------------------------------------------
# Each category's mean error as measured after the fixes (check2/README.md), with two points of
# margin, none looser than 15%. Arabic (3 texts) was 14.3%, then 17.1% once Persian's letters
# cost as Arabic ones, and 12.9% (signed -3.2%) once Arabic-Indic and Persian digits cost a token
# each. HTML (4 texts) was 11.8%, then 7.4% once the words in its tags were read as English
# and a tag's "<" after a line break joined the name. The URL lists (18.4% before their joined words were read as identifiers) and
# the logs (9.2% before a digit run and the space before it were held at one piece each) are at
# what was measured after those fixes, plus two points. Devanagari (2 texts, prose) was 4.4%, then
# 6.8% once the letter trigrams o200k lacks cost apart (the per-letter weight fell as the
# trigrams took the names' cost; the third check's Devanagari name lists went 15.7% -> 12.5%).
CHECK2_BOUNDS = {
    "arabic": 0.15, "code": 0.11, "code-i18n": 0.09, "config": 0.10, "csv": 0.10, "cyrillic": 0.10,
    "devanagari": 0.07, "english": 0.12, "georgian": 0.12, "greek": 0.07, "han-simplified": 0.07,
    "han-traditional": 0.09, "hebrew": 0.05, "html": 0.10, "japanese": 0.11, "json": 0.06, "korean": 0.11,
    "latin": 0.08, "log": 0.06, "markdown-table": 0.05, "other-script": 0.09, "thai": 0.09, "urls": 0.04,
}


def test_the_second_check_reads_no_source_the_corpus_or_the_first_check_reads() -> None:
    recs = [json.loads(line) for line in OUT2.read_text(encoding="utf-8").splitlines()]
    assert len(recs) >= 200 and len({r["id"] for r in recs}) == len(recs)
    for r in recs:
        assert len(r["text"]) >= MIN_CHARS and r["split"] == "holdout"
        assert r["source"] and r["licence"] and r["package"] and r["kind"]
    read = {json.loads(line)["source"] for path in [*CORPUS.glob("*.jsonl"), OUT]
            for line in path.read_text(encoding="utf-8").splitlines()}
    assert not read & {r["source"] for r in recs}
    assert {"latin", "cyrillic", "greek", "han-simplified", "han-traditional", "japanese", "korean", "arabic",
            "hebrew", "devanagari", "thai", "code", "json", "csv", "markdown-table"} <= {r["category"] for r in recs}


def _within_bounds(path: Path, bounds: dict[str, float]) -> list:
    """The check's per-category rows, each asserted within its bound (printed for the log)."""
    rows = table(load_check(path))
    print("\n" + markdown(sorted(rows, key=lambda r: r.category)))
    assert {r.category for r in rows} == set(bounds)
    for r in rows:
        assert r.mae_o200k <= bounds[r.category], f"{r.category}: mean error {r.mae_o200k:.1%}"
    return rows


def test_no_category_of_the_second_check_is_off_beyond_its_bound() -> None:
    for r in _within_bounds(OUT2, CHECK2_BOUNDS):
        assert r.signed_o200k >= -0.10, f"{r.category}: under-estimated by {-r.signed_o200k:.1%}"


def test_words_joined_by_marks_are_read_as_identifiers_not_foreign_words() -> None:
    # A list of URLs: no "th" says English, yet most words are joined to the one before by
    # . / - (hosts, paths), which prose never does; its words weigh as English ones.
    words = ["alpha", "router", "cache", "widget", "parser", "stream", "vendor", "plugin", "sample", "config"]
    urls = "\n".join(f"https://www.{words[i % 10]}.org/{words[i * 3 % 10]}/{words[i * 7 % 10]}-{words[(i + 1) % 10]}"
                     for i in range(40))
    f = token_features.features(urls)
    assert f["word_en"] > 0.9 * (f["word_en"] + f["word_x"])
    prose = "Les fichiers sont copiés dans le répertoire, puis le paquet est configuré. " * 10
    assert token_features.features(prose)["word_en"] == 0


# -- the third check: sources none of the others reads, measured before the changes made after
# it (check3/README.md), and read by its totals only --------------------------------------------
# Each category's mean error as measured before those changes, plus two points: a change may
# move a category of texts it was never tuned on, but not make one worse. The name lists and
# Cyrillic at what was measured once the letter trigrams o200k lacks cost apart, plus two points
# (Devanagari 15.7% -> 12.5%, Greek 14.4% -> 7.0%, Thai 13.5% -> 11.7%, Hebrew 8.0% -> 6.0%,
# Cyrillic 6.3% -> 5.6%), and Korean at its figure once the pairs of Hangul syllables o200k lacks
# cost apart (10.8% -> 8.1%).
CHECK3_BOUNDS = {
    "arabic": 0.05, "code": 0.10, "config": 0.10, "csv": 0.08, "cyrillic": 0.08, "devanagari": 0.15,
    "greek": 0.09, "han-simplified": 0.11, "han-traditional": 0.05, "hebrew": 0.08, "html": 0.11,
    "japanese": 0.09, "json": 0.08, "korean": 0.11, "latin": 0.08, "log": 0.13, "markdown-table": 0.10,
    "thai": 0.14,
}


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_the_third_check_reads_no_source_the_corpus_or_either_other_check_reads() -> None:
    recs = _records(OUT3)
    assert len(recs) >= 250 and len({r["id"] for r in recs}) == len(recs)
    for r in recs:
        assert len(r["text"]) >= MIN_CHARS and r["split"] == "holdout"
        assert r["source"] and r["licence"] and r["package"] and r["kind"]
    read = {r["source"] for path in [*CORPUS.glob("*.jsonl"), OUT, OUT2] for r in _records(path)}
    assert not read & {r["source"] for r in recs}
    # (Thai and Devanagari: all the machine's catalogues in them but the iso-codes name lists are
    # read by the other sets; those are here, four texts and two.)
    assert REQUIRED | {"html", "config", "log"} <= {r["category"] for r in recs}


def test_no_category_of_the_third_check_is_off_beyond_its_bound() -> None:
    _within_bounds(OUT3, CHECK3_BOUNDS)


def test_the_words_in_the_tags_of_a_page_are_english_identifiers() -> None:
    # English prose in HTML: tag, attribute and class names have no "th" backed by "he", yet
    # o200k holds them whole; read as foreign words, a page was over-estimated by 11-12%.
    prose = "A parser reads a file, and a checker looks for errors it can report, if any are found. "
    page = "".join(f'<div class="section-body" id="part-{i}">\n<p>{prose}<a href="errors.html#kind">more</a></p>\n</div>\n'
                   for i in range(6))
    f = token_features.features(page)
    plain = token_features.features(page.replace("</", "<"))  # (no closing tag: not read as markup)
    assert f["word_en"] > 2 * plain["word_en"]  # (the prose has no "th": its words stay foreign)
    real = count(encoders()["o200k_base"], page)
    assert abs(tokens.estimate_text(page) - real) / real <= BOUND


def test_a_tag_s_opening_mark_after_a_line_break_is_in_the_name_s_piece() -> None:
    enc = encoders()["o200k_base"]
    assert count(enc, "x\n<p") == count(enc, "x\np") == 3  # ("x", "\n", "<p")
    lines = "<ul>\n<li>one</li>\n<li>two</li>\n</ul>\n"
    # Five lone marks open a word: "<ul" and the two "<li" (joined, as "_", "." and "(" are) and
    # ">one", ">two" (the text after a tag: "<" alone is in o200k's tags, ">" is not).
    assert token_features.features(lines)["mark_prefix"] == 2


def test_a_style_sheet_s_properties_are_english_identifiers() -> None:
    rules = "".join(f".panel-{name} > .title {{\n    background-color: #f6f8fa;\n    font-family: sans-serif;\n"
                    f"    margin: 0 auto;\n    border-radius: 6px;\n}}\n" for name in ("left", "right", "header", "footer"))
    f = token_features.features(rules)
    assert f["word_en"] > 0.9 * (f["word_en"] + f["word_x"])  # (no "th": read as foreign words before)
    assert token_features.features(rules.replace(";", ""))["word_en"] < 0.5 * f["word_en"]  # (no declarations)
