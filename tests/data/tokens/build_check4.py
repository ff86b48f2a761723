"""A fourth outside check of the token estimator (issue 19, part 5): texts from Python packages a
package registry serves, which nothing on this machine's disk that the corpus or the first three
checks read holds. Built and committed before anything was measured on it; no fit reads it.

    pip install --no-deps --target /tmp/tok9pkgs Django==5.2.19 Sphinx==9.0.4 Faker==40.63.0 Babel==2.19.0
    pip download --no-deps --no-binary :all: --dest /tmp/tok9dl Faker==40.63.0   # its CHANGELOG.md
    python tests/data/tokens/build_check4.py            # writes check4/outside.jsonl (run once)
    python tests/data/tokens/build_check4.py --measure  # per-category table and worst texts

Kinds the earlier checks lack: Django's and Sphinx's translation catalogues (each locale's
``.mo``), CLDR's locale data as Babel ships it (territory, language, currency and script names;
the locales the issue names, none of which the unseen-language set read), Faker's locale
providers (names, addresses and lorem text it generates with a fixed seed, as fake data for a
data person's tests), Faker's changelog, Django's admin templates and Sphinx's theme templates
(HTML), the three packages' Python and JavaScript, Faker profiles and CLDR number and date data
as JSON, Faker rows and CLDR names as CSV and Markdown tables. Every text is at least 500
characters and carries its category, language, kind, source (the distribution and the path in
it), package and licence.
"""

from __future__ import annotations

import glob
import json
import os
import sys
import tarfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

from tests.data.tokens import build_check as bc  # noqa: E402
from tests.data.tokens.build_check import add, category_of, msgstrs, pieces, sample  # noqa: E402
from tests.data.tokens.build_corpus import _rows_to_csv, _rows_to_markdown, chunks  # noqa: E402

OUT = HERE / "check4" / "outside.jsonl"
SEED = 4044
PKGS = Path(os.environ.get("CHECK4_PACKAGES", "/tmp/tok9pkgs"))
SDIST = Path(os.environ.get("CHECK4_SDISTS", "/tmp/tok9dl")) / "faker-40.63.0.tar.gz"
DISTS = {  # top-level package -> (distribution shown in a source, licence)
    "django": ("Django-5.2.19", "BSD-3-Clause (Django, PyPI wheel)"),
    "sphinx": ("Sphinx-9.0.4", "BSD-2-Clause (Sphinx, PyPI wheel)"),
    "faker": ("Faker-40.63.0", "MIT (Faker, PyPI wheel)"),
    "babel": ("Babel-2.19.0", "BSD-3-Clause (Babel); CLDR data: Unicode-3.0"),
}
# The issue's scripts: (locale as the issue's category table names it, Django's, Sphinx's, Faker's, Babel's)
LOCALES = [
    ("ar", "ar", "ar", "ar_AA", "ar"), ("fa", "fa", "fa", "fa_IR", "fa"), ("ur", "ur", "ur", None, "ur"),
    ("he", "he", "he", "he_IL", "he"), ("th", "th", None, "th_TH", "th"), ("hi", "hi", "hi", "hi_IN", "hi"),
    ("mr", "mr", None, "mr_IN", "mr"), ("ne", "ne", "ne", "ne_NP", "ne"), ("ru", "ru", "ru", "ru_RU", "ru"),
    ("uk", "uk", "uk_UA", "uk_UA", "uk"), ("bg", "bg", "bg", "bg_BG", "bg"), ("sr", "sr", "sr", None, "sr"),
    ("be", "be", None, None, "be"), ("kk", "kk", None, None, "kk"), ("mk", "mk", "mk", "mk_MK", "mk"),
    ("el", "el", "el", "el_GR", "el"), ("zh_CN", "zh_Hans", "zh_CN", "zh_CN", "zh_Hans"),
    ("zh_TW", "zh_Hant", "zh_TW", "zh_TW", "zh_Hant"), ("ja", "ja", "ja", "ja_JP", "ja"),
    ("ko", "ko", "ko", "ko_KR", "ko"), ("fr", "fr", "fr", "fr_FR", "fr"), ("de", "de", "de", "de_DE", "de"),
    ("es", "es", "es", "es_ES", "es"), ("it", "it", "it", "it_IT", "it"), ("pt_BR", "pt_BR", "pt_BR", "pt_BR", "pt"),
    ("pl", "pl", "pl", "pl_PL", "pl"), ("nl", "nl", "nl", "nl_NL", "nl"), ("sv", "sv", "sv", "sv_SE", "sv"),
    ("cs", "cs", "cs", "cs_CZ", "cs"), ("tr", "tr", "tr", "tr_TR", "tr"), ("vi", "vi", "vi", "vi_VN", "vi"),
    ("fi", "fi", "fi", "fi_FI", "fi"), ("hu", "hu", "hu", "hu_HU", "hu"), ("ro", "ro", "ro", "ro_RO", "ro"),
]


def put(category: str, lang: str, kind: str, path: str | Path, text: str, note: str = "") -> None:
    shown, package, licence = bc.in_wheel(PKGS, DISTS, path)
    add(category, lang, kind, shown + note, text, package, licence)


# -- translation catalogues -------------------------------------------------------------------------


def gather_catalogues() -> None:
    for issue_locale, dj, sx, _, _ in LOCALES:
        cat, lang = category_of(issue_locale)
        latin = cat == "latin"
        core = PKGS / "django/conf/locale" / dj / "LC_MESSAGES/django.mo"
        if core.exists():
            for c in chunks(msgstrs(str(core)), per_source=1 if latin else 2, sep="\n"):
                put(cat, lang, "Django translation catalogue (msgstr)", core, c)
        contrib = sorted(glob.glob(str(PKGS / "django/contrib/*/locale" / dj / "LC_MESSAGES/django*.mo")))
        for path in sample(contrib, 1 if latin else 3):
            for c in chunks(msgstrs(path), per_source=1, sep="\n"):
                put(cat, lang, "Django contrib app catalogue (msgstr)", path, c)
        if sx:
            path = PKGS / "sphinx/locale" / sx / "LC_MESSAGES/sphinx.mo"
            if path.exists():
                for c in chunks(msgstrs(str(path)), per_source=1 if latin else 2, sep="\n"):
                    put(cat, lang, "Sphinx translation catalogue (msgstr)", path, c)


# -- locale data: CLDR (Babel) and Faker --------------------------------------------------------------


def gather_cldr() -> None:
    from babel import Locale

    for issue_locale, _, _, _, bb in LOCALES:
        cat, lang = category_of(issue_locale)
        loc = Locale.parse(bb)
        path = PKGS / "babel/locale-data" / f"{bb}.dat"
        lists = {"territory": loc.territories, "language": loc.languages, "currency": loc.currencies, "script": loc.scripts}
        for what in (("territory", "language") if cat == "latin" else ("territory", "language", "currency", "script")):
            names = [v for k, v in sorted(lists[what].items()) if not k.isdigit()]
            start = bc.RNG.randrange(0, max(1, len(names) - 150))
            for p in pieces("\n".join(names[start:]), size=700)[:1]:
                put(cat, lang, f"CLDR {what} names (Babel)", path, p)


def faker_for(locale: str, seed: int):
    from faker import Faker

    fake = Faker(locale)
    fake.seed_instance(seed)
    return fake


def gather_faker() -> None:
    for k, (issue_locale, _, _, fk, _) in enumerate(LOCALES):
        if not fk:
            continue
        cat, lang = category_of(issue_locale)
        fake = faker_for(fk, SEED + k)
        provider = PKGS / "faker/providers/address" / fk
        people = "\n".join(f"{fake.name()}, {fake.address().replace(chr(10), ', ')}" for _ in range(14))
        put(cat, lang, "Faker names and addresses (generated)", provider if provider.exists() else PKGS / "faker/providers/person" / fk,
            people, f" (seed {SEED + k})")
        lorem = PKGS / "faker/providers/lorem" / fk
        if lorem.exists():
            put(cat, lang, "Faker lorem text (generated)", lorem, fake.text(max_nb_chars=1400), f" (seed {SEED + k})")


# -- code, markup, formats ---------------------------------------------------------------------------


def gather_code_and_html() -> None:
    kinds = {
        ("code", "python"): glob.glob(str(PKGS / "django/db/**/*.py"), recursive=True)
        + glob.glob(str(PKGS / "sphinx/builders/**/*.py"), recursive=True) + glob.glob(str(PKGS / "babel/*.py")),
        ("code", "javascript"): glob.glob(str(PKGS / "django/contrib/admin/static/admin/js/*.js"))
        + glob.glob(str(PKGS / "sphinx/themes/basic/static/*.js")),
        ("code", "python-locale-data"): glob.glob(str(PKGS / "faker/providers/person/*/__init__.py")),
        ("html", "html"): glob.glob(str(PKGS / "django/contrib/admin/templates/**/*.html"), recursive=True)
        + glob.glob(str(PKGS / "sphinx/themes/**/*.html"), recursive=True),
    }
    for (cat, lang), paths in kinds.items():
        paths = [p for p in paths if Path(p).stat().st_size > 1500]
        for path in sample(paths, 10):
            for c in chunks(Path(path).read_text(encoding="utf-8", errors="replace"), per_source=1):
                put(cat, lang, f"{lang} source" if cat == "code" else "HTML template", path, c)


def gather_json_and_tables() -> None:
    from babel import Locale

    for k, (_, _, _, fk, bb) in enumerate(LOCALES[::3]):
        loc = Locale.parse(bb)
        data = {"locale": bb, "decimal_formats": {str(a): str(b) for a, b in loc.decimal_formats.items()},
                "number_symbols": dict(loc.number_symbols.get("latn", {})), "days": dict(loc.days["format"]["wide"]),
                "months": dict(loc.months["format"]["wide"]), "eras": dict(loc.eras["wide"])}
        text = json.dumps(data, ensure_ascii=False, indent=2 if k % 2 else None, default=str)
        put("json", "json", "CLDR number and date data as JSON (Babel)", PKGS / "babel/locale-data" / f"{bb}.dat", text[:3000])
        if fk:
            fake = faker_for(fk, SEED + 100 + k)
            profiles = [{key: str(v) for key, v in fake.simple_profile().items()} for _ in range(4)]
            put("json", "json", "Faker profiles as JSON", PKGS / "faker/providers/profile/__init__.py",
                json.dumps(profiles, ensure_ascii=False, indent=2 if k % 2 == 0 else None)[:3000], f" ({fk}, seed {SEED + 100 + k})")
    for k, (_, _, _, fk, _) in enumerate(LOCALES):
        if k % 2 or not fk:
            continue
        fake = faker_for(fk, SEED + 200 + k)
        rows = [["id", "name", "city", "phone", "email", "date_of_birth", "amount"]]
        rows += [[str(1000 + i), fake.name(), fake.city(), fake.phone_number(), fake.email(), str(fake.date_of_birth()),
                  f"{fake.pyfloat(left_digits=5, right_digits=2, positive=True)}"] for i in range(14)]
        put("csv", "csv", f"Faker rows as CSV ({fk})", PKGS / "faker/providers/person" / fk, _rows_to_csv(rows), f" (seed {SEED + 200 + k})")
    en = Locale.parse("en")
    for _, _, _, _, bb in LOCALES[1::3]:
        loc = Locale.parse(bb)
        codes = sorted(c for c in loc.territories if not c.isdigit() and c in en.territories)
        start = bc.RNG.randrange(0, len(codes) - 25)
        table = [["code", "English", f"name ({bb})"]] + [[c, en.territories[c], loc.territories[c]] for c in codes[start : start + 22]]
        put("markdown-table", "markdown", "CLDR territory names as a Markdown table (Babel)", PKGS / "babel/locale-data" / f"{bb}.dat",
            _rows_to_markdown(table))


def gather_english() -> None:
    if SDIST.exists():
        with tarfile.open(SDIST) as tar:
            log = tar.extractfile("faker-40.63.0/CHANGELOG.md").read().decode("utf-8")  # type: ignore[union-attr]
        for c in chunks(log, per_source=6):
            add("english", "en", "changelog (Faker's CHANGELOG.md, sdist)", "Faker-40.63.0/CHANGELOG.md", c,
                "Faker-40.63.0", "MIT (Faker, PyPI sdist)")
    for path in sorted(glob.glob(str(PKGS / "*.dist-info/METADATA"))):
        body = Path(path).read_text(encoding="utf-8").split("\n\n", 1)[-1]
        name = Path(path).parent.name.split("-")[0].lower()
        for c in chunks(body, per_source=2):
            add("english", "en", "package description (METADATA)", f"{DISTS[name][0]}/{Path(path).parent.name}/METADATA", c,
                DISTS[name][0], DISTS[name][1])


def main() -> None:
    sys.path.insert(0, str(PKGS))
    bc.RNG.seed(SEED)
    gather_catalogues()
    gather_cldr()
    gather_faker()
    gather_code_and_html()
    gather_json_and_tables()
    gather_english()
    bc.name_records("check4")
    bc.write(OUT, per_language=6)


if __name__ == "__main__":
    bc.measure(OUT, per_text=True) if "--measure" in sys.argv else main()
