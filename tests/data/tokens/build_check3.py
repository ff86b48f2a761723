"""A third outside check of the token estimator (issue 19, part 4): texts from sources on this
machine that neither the corpus, the first check (``build_check.py``) nor the second
(``build_check2.py``) reads. The first two were read while tuning; this one is built and measured
before any change made after it, and read by its per-category totals only, never text by text.

    python tests/data/tokens/build_check3.py            # writes check3/outside.jsonl (run once)
    python tests/data/tokens/build_check3.py --measure  # per-category table (no per-text errors)

Sources: gettext catalogues no other set reads (each locale's ``.mo`` files left over, the
iso-codes lists of currency, script and language names, and the subdivision names of ISO 3166-2,
most of them transliterated), HTML from the Rust toolchain's books other than the two check2
reads (cargo, rustc, the edition guide, the nomicon, Rust by Example, the embedded book) and
its standard library's API pages, valgrind's, libxslt's and libffi's HTML manuals and Node.js's
API pages; Python standard library modules, npm's own scripts, C headers of /usr/include, shell
scripts of /usr/bin and PostgreSQL's extension SQL that no other set reads; JupyterLab's settings
schemas and npm's bundled package.json files (JSON); zone.tab and the iso-codes translations
written as CSV and Markdown tables, and Node.js's API Markdown tables; apt's EIPP log; X11's
Compose tables, /etc/default files and systemd timers and sockets (config). Every text is at
least 500 characters and carries its category, language, kind, source, package and licence;
a test checks no source is one the corpus or either check reads.
"""

from __future__ import annotations

import glob
import json
import lzma
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

from tests.data.tokens import build_check as bc  # noqa: E402
from tests.data.tokens.build_check import NODE, RUST, RUST_LICENCE, add, category_of, msgstrs, pieces, read, sample  # noqa: E402
from tests.data.tokens.build_corpus import SITE, STDLIB, _rows_to_csv, _rows_to_markdown, catalogue, chunks, markdown_tables  # noqa: E402

OUT = HERE / "check3" / "outside.jsonl"
SEED = 3033
LOCALE_DIR = Path("/usr/share/locale")
# The locales of the scripts and languages the issue names (several Latin ones).
LOCALES = ["ar", "fa", "ur", "th", "hi", "mr", "ne", "he", "ru", "uk", "bg", "sr", "be", "kk", "el",
           "zh_CN", "zh_TW", "zh_HK", "ja", "ko", "fr", "de", "es", "it", "pt_BR", "pt", "pl", "nl", "sv",
           "cs", "tr", "vi", "fi", "hu", "ro", "da", "id", "ca", "nb", "sk", "hr", "lt"]
NAME_LISTS = ("iso_4217", "iso_15924", "iso_639-2", "iso_3166-2")


def already_read() -> set[str]:
    """Every source the corpus, the first and the second check read."""
    files = [*(HERE / "corpus").glob("*.jsonl"), HERE / "check" / "outside.jsonl", HERE / "check2" / "outside.jsonl"]
    return {json.loads(line)["source"] for f in files for line in f.read_text(encoding="utf-8").splitlines()}


READ = already_read()


def shown(path: str | Path) -> str:
    return str(path).replace(str(NODE), "labextension/node_modules")


def unread(paths: list) -> list:
    return [p for p in paths if shown(p) not in READ]


def lang_of(locale: str) -> tuple[str, str]:
    cat, lang = category_of(locale)
    return ("english", "en") if locale.startswith("en") else (cat, lang)


# -- prose and names in each script ---------------------------------------------------------------


def gather_catalogues() -> None:
    for locale in LOCALES:
        cat, lang = lang_of(locale)
        files = sorted(glob.glob(str(LOCALE_DIR / locale / "LC_MESSAGES" / "*.mo")))
        prose = unread([p for p in files if not Path(p).stem.startswith("iso_")])
        for path in sample(prose, 3 if cat != "latin" else 2):
            for c in chunks(msgstrs(path), per_source=1, sep="\n"):
                add(cat, lang, "gettext catalogue (msgstr), one no other set reads", path, c)
        for domain in NAME_LISTS:
            path = LOCALE_DIR / locale / "LC_MESSAGES" / f"{domain}.mo"
            if path.exists() and shown(path) not in READ and (cat != "latin" or domain in ("iso_4217", "iso_639-2")):
                names = msgstrs(str(path)).split("\n")
                start = bc.RNG.randrange(0, max(1, len(names) - 120))
                for p in pieces("\n".join(names[start:]), size=800)[:1]:
                    add(cat, lang, f"names from iso-codes ({domain})", path, p)


# -- markup ---------------------------------------------------------------------------------------


def gather_html() -> None:
    books = {name: glob.glob(str(RUST / name / "**/*.html"), recursive=True)
             for name in ("cargo", "rustc", "edition-guide", "nomicon", "rust-by-example", "embedded-book")}
    books["std"] = glob.glob(str(RUST / "std/collections/*.html")) + glob.glob(str(RUST / "std/string/*.html"))
    books["valgrind"] = glob.glob("/usr/share/doc/valgrind/html/*.html")
    books["libxslt"] = glob.glob("/usr/share/doc/libxslt1-dev/html/**/*.html", recursive=True)
    books["libffi"] = glob.glob("/usr/share/doc/libffi8/html/*.html")
    books["nodejs"] = glob.glob("/usr/share/doc/nodejs/api/*.html")
    books["shared-mime-info"] = glob.glob("/usr/share/doc/shared-mime-info/**/*.html", recursive=True)
    for name, paths in books.items():
        for path in sample(unread(paths), 2 if name in ("std", "shared-mime-info") else 4):
            text = read(path)
            if len(text) > 40000:  # (a long page: a slice of its body, not its head only)
                start = bc.RNG.randrange(0, len(text) - 6000)
                text = text[text.index("\n", start) + 1 : start + 5000]
            extra = RUST_LICENCE if str(path).startswith(str(RUST)) else (None, None)
            for c in chunks(text, per_source=1, sep="\n"):
                add("html", "html", f"HTML ({name})", path, c, *extra)


# -- code and formats -------------------------------------------------------------------------------


def gather_code() -> None:
    kinds = {
        "python": [p for p in glob.glob(str(STDLIB / "*.py")) + glob.glob(str(STDLIB / "*/*.py")) if "site-packages" not in p],
        "javascript": glob.glob("/usr/lib/node_modules/npm/lib/**/*.js", recursive=True),
        "typescript": glob.glob(str(NODE / "@jupyterlab/*/lib/*.d.ts")),
        "c": glob.glob("/usr/include/*.h") + glob.glob("/usr/include/linux/*.h"),
        "shell": [p for p in glob.glob("/usr/bin/*") if Path(p).is_file() and not Path(p).is_symlink()
                  and open(p, "rb").read(64).startswith((b"#!/bin/sh", b"#! /bin/sh", b"#!/bin/bash", b"#!/usr/bin/env bash"))],
        "sql": glob.glob("/usr/share/postgresql/15/extension/*.sql"),
    }
    for lang, paths in kinds.items():
        paths = [p for p in unread(paths) if Path(p).stat().st_size > 1500]
        for path in sample(paths, 8):
            for c in chunks(read(path), per_source=1):
                add("code", lang, f"{lang} source", path, c)


def gather_json() -> None:
    schemas = unread(glob.glob(str(SITE / "jupyterlab/schemas/@jupyterlab/*/*.json")))
    packages = unread(glob.glob("/usr/lib/node_modules/npm/node_modules/*/package.json"))
    for k, path in enumerate(sample(schemas, 8) + sample(packages, 6)):
        try:
            data = json.loads(read(path))
        except ValueError:
            continue
        text = json.dumps(data, indent=2 if k % 2 else None, ensure_ascii=False, separators=None if k % 2 else (",", ":"))
        add("json", "json", "JSON settings schema / package.json, " + ("indented" if k % 2 else "compact"), path, text[:3000])


def gather_tables() -> None:
    zone = "/usr/share/zoneinfo/zone.tab"
    rows = [["code", "coordinates", "TZ", "comments"]] + [line.split("\t") for line in read(zone).splitlines() if not line.startswith("#")]
    for k in range(3):
        start = bc.RNG.randrange(1, len(rows) - 40)
        add("csv", "csv", "zone.tab as CSV", zone, _rows_to_csv([rows[0]] + rows[start : start + 30]))
    for locale in ("ru", "ja", "ar", "th", "zh_TW", "de", "el", "he", "hi", "ko"):
        for domain in ("iso_4217", "iso_15924"):
            path = LOCALE_DIR / locale / "LC_MESSAGES" / f"{domain}.mo"
            if not path.exists():
                continue
            pairs = [[en, tr] for en, tr in catalogue(str(path))]
            table = [["name_en", f"name_{locale}"]] + pairs
            start = bc.RNG.randrange(1, max(2, len(table) - 30))
            if domain == "iso_4217":
                add("csv", "csv", f"currency names as CSV ({locale})", path, _rows_to_csv([table[0]] + table[start : start + 25]))
            else:
                add("markdown-table", "markdown", f"script names as a Markdown table ({locale})", path,
                    _rows_to_markdown([table[0]] + table[start : start + 25]))
    with_tables = []
    for path in unread(sorted(glob.glob("/usr/share/doc/nodejs/api/*.md"))):
        tables = markdown_tables(read(path).splitlines(), last=False)
        if sum(map(len, tables)) >= 800:
            with_tables.append((path, "\n\n".join(tables)))
    for path, text in bc.RNG.sample(with_tables, min(5, len(with_tables))):
        for c in chunks(text, per_source=1):
            add("markdown-table", "markdown", "Markdown tables from Node.js's API docs", path, c)


def gather_logs_and_config() -> None:
    eipp = "/var/log/apt/eipp.log.xz"
    lines = lzma.open(eipp).read().decode("utf-8", "replace").splitlines()
    for k in range(4):
        start = bc.RNG.randrange(0, max(1, len(lines) - 40))
        add("log", "log", "apt's EIPP log", eipp, "\n".join(lines[start : start + 30]), "this machine's state",
            "machine state (no licence: generated by the system)")
    for name in ("en_US.UTF-8", "ru_RU.UTF-8", "el_GR.UTF-8", "ja_JP.UTF-8", "ko_KR.UTF-8", "am_ET.UTF-8"):
        path = f"/usr/share/X11/locale/{name}/Compose"
        if Path(path).exists() and shown(path) not in READ:
            lines = read(path).splitlines()
            start = bc.RNG.randrange(0, max(1, len(lines) - 40))
            add("config", "x11-compose", "X11 Compose table", path, "\n".join(lines[start : start + 25]))
    confs = unread(glob.glob("/etc/default/*") + glob.glob("/usr/lib/systemd/system/*.timer")
                   + glob.glob("/usr/lib/systemd/system/*.socket") + glob.glob("/etc/apt/apt.conf.d/*"))
    for path in sample([p for p in confs if Path(p).is_file() and Path(p).stat().st_size >= 500], 8):
        add("config", "config", "configuration file", path, read(path)[:3000])


def main() -> None:
    bc.RNG.seed(SEED)
    gather_catalogues()
    gather_html()
    gather_code()
    gather_json()
    gather_tables()
    gather_logs_and_config()
    bc.name_records("check3")
    bc.write(OUT, per_language=6)


if __name__ == "__main__":
    bc.measure(OUT, per_text=False) if "--measure" in sys.argv else main()
