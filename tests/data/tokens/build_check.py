"""An outside check of the token estimator (issue 19, part 4): texts from sources on this machine
that the corpus (``build_corpus.py``, ``build_unseen.py``) does not read, never fitted on.

    python tests/data/tokens/build_check.py            # writes check/outside.jsonl (run once)
    python tests/data/tokens/build_check.py --measure  # per-category table and worst texts
    python tests/data/tokens/build_check.py --measure --per-text  # ... and every text's error

Sources the corpus does not use: debconf templates' translations (``/var/lib/dpkg/info/*.templates``),
man pages in translation the corpus left out (it reads the 25 largest of each language; these are
the others, chosen with a fixed seed), the TypeScript compiler's translated messages
(``typescript/lib/<lang>/diagnosticMessages.generated.json``), Arrow's locale classes, the
labextension's node_modules (TypeScript declarations, READMEs and CHANGELOGs with their tables and
emoji), JupyterLab's minified bundles, botocore's service models, Debian changelogs, PostgreSQL's
SQL, Go and C sources, YAML, TOML, LaTeX, HTML, CSS, dpkg and apt logs, Adobe font metrics,
the CA certificate bundle (base64), dist-info RECORD files (CSV with base64 hashes) and dpkg's
package database as CSV and as a Markdown table. Every text is at least 500 characters and
carries its category, language, kind, source and licence. The whole file is held out: no fit
reads it (``calibrate_tokens.load_corpus`` reads ``corpus/`` only).
"""

from __future__ import annotations

import glob
import gzip
import json
import os
import random
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

from tests.data.tokens.build_corpus import (  # noqa: E402
    LOCALES,
    MIN_CHARS,
    SITE,
    _rows_to_csv,
    _rows_to_markdown,
    catalogue,
    chunks,
    markdown_tables,
    provenance,
)

OUT = HERE / "check" / "outside.jsonl"
NODE = Path("/work/main/labextension/node_modules")  # the labextension's npm install on this machine
# The Rust toolchain's HTML documentation (rustup's stable toolchain), read by the second and third checks.
RUST = Path("/root/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/share/doc/rust/html")
RUST_LICENCE = ("Rust documentation (rustup toolchain, stable)", "MIT OR Apache-2.0")
SEED = 19
PER_LANGUAGE = 3  # texts of one language, kind and category
RNG = random.Random(SEED)
RECORDS: list[dict] = []
# Hosts of the package registries are kept out of committed text.
_REGISTRY = re.compile(r"npmjs|pypi\.|debian\.org|registry\.", re.I)


def category_of(locale: str) -> tuple[str, str]:
    locale = locale.replace("-", "_").split(".")[0]
    norm = {"pt_br": "pt_BR", "zh_cn": "zh_CN", "zh_tw": "zh_TW", "no": "nb"}.get(locale.lower(), locale)
    cat, lang = LOCALES.get(norm, LOCALES.get(norm.split("_")[0], ("", norm)))
    if cat.startswith("latin-") and cat != "latin-en" or cat == "more-latin":
        cat = "latin"
    if cat.startswith("more-"):
        cat = {"more-cyrillic": "cyrillic", "more-arabic": "arabic"}.get(cat, "other-script")
    return cat, lang


def node_licence(path: Path) -> tuple[str, str]:
    for parent in path.parents:
        meta = parent / "package.json"
        if meta.is_file():
            try:
                data = json.loads(meta.read_text())
            except ValueError:
                continue
            if "name" in data:
                return f"{data['name']} {data.get('version', '')} (npm)".strip(), str(data.get("license", "unknown"))
    return "unknown", "unknown"


def add(category: str, lang: str, kind: str, source: str | Path, text: str,
        package: str | None = None, licence: str | None = None) -> None:
    text = "\n".join(line for line in text.split("\n") if not _REGISTRY.search(line)).strip("\n")
    if len(text) < MIN_CHARS or not category:
        return
    src = Path(source)
    if package is None or licence is None:
        package, licence = node_licence(src) if NODE in src.parents else provenance(src)
    shown = str(src).replace(str(NODE), "labextension/node_modules")
    n = sum(r["source"] == shown for r in RECORDS)
    RECORDS.append({"id": f"{category}/{lang}/{src.parent.name}/{src.name}#{n}", "category": category, "lang": lang, "kind": kind,
                    "source": shown, "package": package, "licence": licence, "split": "holdout", "text": text})


def in_wheel(root: Path, dists: dict[str, tuple[str, str]], path: str | Path) -> tuple[str, str, str]:
    """A file of a wheel unpacked under *root*: its source as shown (distribution and path inside
    it), the distribution and its licence (*dists*: top-level folder -> distribution, licence)."""
    rel = Path(path).relative_to(root)
    name, licence = dists[rel.parts[0]]
    return f"{name}/{rel}", name, licence


def msgstrs(*paths: str | Path) -> str:
    """The translated strings of gettext catalogues, one per line; a catalogue gettext cannot
    read gives none."""
    out: list[str] = []
    for p in paths:
        try:
            out.extend(v.strip() for _, v in catalogue(str(p)))
        except Exception:  # noqa: BLE001 (any unreadable catalogue is skipped the same way)
            continue
    return "\n".join(out)


def pieces(text: str, sep: str = "\n", size: int = 700) -> list[str]:
    """Short sources cut into pieces of at least ``size`` characters (``chunks`` wants longer ones)."""
    out, cur = [], ""
    for unit in text.split(sep):
        cur = f"{cur}{sep}{unit}" if cur else unit
        if len(cur) >= size:
            out.append(cur)
            cur = ""
    if out and len(cur) < MIN_CHARS:
        out[-1] += sep + cur
    elif cur:
        out.append(cur)
    return out


# -- prose in each script -----------------------------------------------------------------------


def gather_debconf() -> None:
    field = re.compile(r"^(Description|Choices)-([A-Za-z_@]+)\.UTF-8:\s?(.*)$")
    for path in sorted(glob.glob("/var/lib/dpkg/info/*.templates")):
        by_lang: dict[str, list[str]] = {}
        cur: list[str] | None = None
        raw = Path(path).read_text(encoding="utf-8", errors="replace")
        for line in raw.splitlines():
            m = field.match(line)
            if m:
                cur = by_lang.setdefault(m.group(2), [])
                cur.append(m.group(3))
            elif line.startswith(" ") and cur is not None:
                cur.append("" if line.strip() == "." else line.strip())
            else:
                cur = None
        for locale, lines in sorted(by_lang.items()):
            cat, lang = category_of(locale)
            for p in pieces("\n".join(lines), size=600)[:3]:
                add(cat, lang, "debconf template translation", path, p)
        for c in chunks(raw, per_source=1, sep="\n"):
            add("mixed", "multi", "debconf template file (English and its translations)", path, c)


def corpus_man_pages() -> set[str]:
    names = set()
    for f in (HERE / "corpus").glob("*.jsonl"):
        for line in f.read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            if r["group"].startswith("man:"):
                names.add(r["group"][4:])
    return names


def gather_man() -> None:
    from tests.data.tokens.build_corpus import render_man

    used = corpus_man_pages()
    for base in sorted(Path("/usr/share/man").iterdir()):
        if base.name.startswith("man") or not base.is_dir():
            continue
        cat, lang = category_of(base.name)
        pages = sorted(p for p in base.rglob("*") if p.is_file() and p.name.split(".")[0] not in used
                       and p.stat().st_size > 1500)
        for page in RNG.sample(pages, min(2, len(pages))):
            for c in chunks(render_man(str(page)), per_source=1):
                add(cat, lang, "man page (rendered), not one the corpus reads", page, c)


def gather_typescript() -> None:
    for path in sorted(NODE.glob("typescript/lib/*/diagnosticMessages.generated.json")):
        cat, lang = category_of(path.parent.name)
        items = list(json.loads(path.read_text(encoding="utf-8")).items())
        start = RNG.randrange(0, len(items) - 200)
        prose = "\n".join(v for _, v in items[start : start + 60])
        for p in pieces(prose, size=1200)[:1]:
            add(cat, lang, "TypeScript compiler messages (translated)", path, p)
        doc = dict(items[start + 100 : start + 112])
        style = RNG.randrange(2)
        text = json.dumps(doc, ensure_ascii=False, indent=2 if style == 0 else None,
                          separators=None if style == 0 else (",", ":"))
        add("json", lang, "TypeScript messages JSON, " + ("indented" if style == 0 else "compact"), path, text)


def gather_arrow() -> None:
    path = SITE / "arrow" / "locales.py"
    src = path.read_text(encoding="utf-8")
    classes = re.split(r"\n(?=class )", src)
    for name, cat in (("Hindi", "devanagari"), ("Nepali", "devanagari"), ("Marathi", "devanagari"),
                      ("Arabic", "arabic"), ("Hebrew", "hebrew"), ("Thai", "thai"), ("Greek", "greek")):
        for c in classes:
            if c.startswith(f"class {name}Locale"):
                add("code-i18n", name.lower(), f"Python locale class ({cat} strings)", path, c)


# -- code and formats -------------------------------------------------------------------------------


def sample(paths: list, k: int) -> list:
    paths = sorted(set(paths))
    return RNG.sample(paths, min(k, len(paths)))


def read(path: Path | str) -> str:
    p = str(path)
    raw = gzip.open(p).read() if p.endswith(".gz") else open(p, "rb").read()
    return raw.decode("utf-8", "replace")


def gather_code() -> None:
    kinds = {
        ("code", "typescript"): sample([p for p in NODE.glob("*/*.d.ts")] + list(NODE.glob("*/src/*.ts")), 5),
        ("code", "sql"): sample(glob.glob("/usr/share/postgresql/*/*.sql") + glob.glob("/usr/share/postgresql/*/extension/*.sql"), 4),
        ("code", "go"): sample(glob.glob("/usr/share/doc/git/contrib/**/*.go", recursive=True), 3),
        ("code", "c"): sample(glob.glob(str(SITE / "*/*.c")) + glob.glob("/usr/share/tcltk/**/*.c", recursive=True), 3),
        ("code", "css"): sample(glob.glob(str(SITE / "**/*.css"), recursive=True), 3),
        ("code", "perl"): sample(glob.glob("/usr/share/perl5/**/*.pm", recursive=True), 3),
        ("html", "html"): sample(glob.glob("/usr/lib/node_modules/npm/docs/output/**/*.html", recursive=True)
                                 + glob.glob(str(SITE / "**/templates/**/*.html"), recursive=True), 4),
        ("config", "yaml"): sample(glob.glob(str(SITE / "**/*.yaml"), recursive=True)
                                   + glob.glob("/usr/share/doc/**/*.yaml", recursive=True)
                                   + [p for p in glob.glob("/usr/lib/node_modules/**/*.yml", recursive=True)], 4),
        ("config", "toml"): sample(glob.glob(str(SITE / "**/*.toml"), recursive=True)
                                   + glob.glob("/usr/lib/node_modules/**/*.toml", recursive=True), 4),
        ("latex", "latex"): sample([p for p in glob.glob(str(SITE / "docutils/writers/latex2e/*.*"))
                                    + glob.glob("/usr/lib/google-cloud-sdk/platform/gsutil/third_party/httplib2/*.tex")
                                    + glob.glob("/root/.pyenv/versions/3.11.7/share/jupyter/nbconvert/templates/latex/*.tex.j2")
                                    if os.path.getsize(p) > 1500], 5),
    }
    for (cat, lang), paths in kinds.items():
        for path in paths:
            for c in chunks(read(path), per_source=1):
                add(cat, lang, f"{lang} source", path, c)
    for path in sample(glob.glob(str(SITE / "jupyterlab/static/*.js")), 4):
        text = read(path)
        if text.count("\n") < len(text) / 2000:  # minified: few, long lines
            start = RNG.randrange(0, max(1, len(text) - 3000))
            add("code-minified", "javascript", "minified JavaScript bundle (a slice)", path, text[start : start + 2000])


def gather_json() -> None:
    models = sample(glob.glob(str(SITE / "botocore/data/*/*/service-2.json")), 4)
    for k, path in enumerate(models):
        data = json.loads(read(path))
        shapes = dict(list(data.get("shapes", {}).items())[:8])
        text = json.dumps(shapes, indent=2) if k % 2 == 0 else json.dumps(shapes, separators=(",", ":"))
        add("json", "json", "botocore service model, " + ("indented" if k % 2 == 0 else "compact"), path, text[:3000])
    for path in sample(glob.glob(str(SITE / "jsonschema_specifications/schemas/**/*"), recursive=True), 3):
        if os.path.isfile(path):
            add("json", "json", "JSON Schema metaschema", path, read(path)[:3000])


def gather_notebook() -> None:
    """Notebooks (nbformat v4) made from real READMEs: prose as Markdown cells, code blocks as code cells."""
    import nbformat

    readmes = sample([p for p in NODE.glob("*/README.md") if p.stat().st_size > 4000], 4)
    for path in readmes:
        parts = re.split(r"```[a-z]*\n", read(path))
        cells = [(nbformat.v4.new_code_cell if i % 2 else nbformat.v4.new_markdown_cell)(p.strip("`\n "))
                 for i, p in enumerate(parts[:8]) if p.strip()]
        for i, cell in enumerate(cells):
            cell["id"] = f"cell-{i}"  # nbformat draws random ids; fixed ones keep the file reproducible
        nb = nbformat.v4.new_notebook(cells=cells)
        add("ipynb", "json", "notebook JSON made from a README (markdown + code cells)", path,
            nbformat.writes(nb)[:3500])


def dpkg_rows() -> list[list[str]]:
    rows, cur = [["package", "version", "architecture", "installed_size_kb", "section", "priority"]], {}
    for line in read("/var/lib/dpkg/status").splitlines() + [""]:
        if not line:
            if cur:
                rows.append([cur.get(k, "") for k in ("Package", "Version", "Architecture", "Installed-Size", "Section", "Priority")])
            cur = {}
        elif ":" in line and not line.startswith(" "):
            k, v = line.split(":", 1)
            cur[k] = v.strip()
    return rows


def gather_tables() -> None:
    rows = dpkg_rows()
    head, body = rows[0], rows[1:]
    for k in range(3):
        start = RNG.randrange(0, len(body) - 40)
        add("csv", "csv", "dpkg package database as CSV", "/var/lib/dpkg/status", _rows_to_csv([head] + body[start : start + 25]))
        add("markdown-table", "markdown", "dpkg package database as a Markdown table", "/var/lib/dpkg/status",
            _rows_to_markdown([head] + body[start + 40 : start + 55]))
    for path in sample(glob.glob(str(SITE / "*.dist-info/RECORD")), 3):
        add("csv", "csv", "dist-info RECORD (path, sha256 in base64, size)", path, "\n".join(read(path).splitlines()[:30]))
    csvs = [p for p in glob.glob("/usr/share/**/*.csv", recursive=True) + glob.glob(str(SITE / "**/*.csv"), recursive=True)
            if "sample_data" not in p and "numpy" not in p and "distro-info" not in p]
    for path in sample(csvs, 3):
        for c in chunks(read(path), per_source=1, sep="\n"):
            add("csv", "csv", "CSV file", path, c)
    mds = sorted(NODE.glob("*/README.md")) + sorted(NODE.glob("*/CHANGELOG.md")) + sorted(NODE.glob("@*/*/README.md"))
    with_tables = []
    for path in mds:
        tables = markdown_tables(read(path).splitlines(), last=False)
        if sum(map(len, tables)) >= 800:
            with_tables.append((path, "\n\n".join(tables)))
    for path, text in RNG.sample(with_tables, min(5, len(with_tables))):
        for c in chunks(text, per_source=1):
            add("markdown-table", "markdown", "Markdown tables from an npm package's .md", path, c)


_EMOJI = re.compile("[\U0001F300-\U0001FAFF\u2600-\u27BF]")


def gather_markdown_and_emoji() -> None:
    mds = sorted(NODE.glob("*/README.md")) + sorted(NODE.glob("*/CHANGELOG.md"))
    for path in sample(mds, 4):
        for c in chunks(read(path), per_source=1):
            add("markdown", "en", "README / CHANGELOG prose (Markdown)", path, c)
    dense = []
    for path in mds:
        text = read(path)
        lines = [ln for ln in text.splitlines() if _EMOJI.search(ln)]
        if len("\n".join(lines)) >= 700:
            dense.append((path, "\n".join(lines)))
    for path, text in RNG.sample(dense, min(4, len(dense))):
        add("emoji", "en", "lines with emoji from a README / CHANGELOG", path, text[:2000])


def gather_logs_numbers_base64() -> None:
    for path in ("/var/log/dpkg.log", "/var/log/apt/history.log", "/var/log/apt/term.log"):
        lines = read(path).splitlines()
        for k in range(2):
            start = RNG.randrange(0, max(1, len(lines) - 40))
            add("log", "log", "package manager log", path, "\n".join(lines[start : start + 25]))
    for path in sample(glob.glob(str(SITE / "matplotlib/mpl-data/fonts/afm/*.afm")), 4):
        lines = read(path).splitlines()
        start = RNG.randrange(20, max(21, len(lines) - 40))
        add("numbers", "numbers", "Adobe font metrics (numbers)", path, "\n".join(lines[start : start + 30]))
    pem = read("/etc/ssl/certs/ca-certificates.crt").split("-----END CERTIFICATE-----\n")
    for k in range(4):
        add("base64", "base64", "CA certificate (PEM, base64)", "/etc/ssl/certs/ca-certificates.crt",
            pem[RNG.randrange(len(pem) - 1)] + "-----END CERTIFICATE-----")
    logs = sample(glob.glob("/usr/share/doc/*/changelog.Debian.gz"), 5)
    for path in logs:
        for c in chunks(read(path), per_source=1):
            add("changelog", "en", "Debian changelog", path, c)
    urls = []
    for path in sorted(NODE.glob("*/package.json")):
        try:
            data = json.loads(read(path))
        except ValueError:
            continue
        for key in ("homepage", "bugs", "repository"):
            v = data.get(key)
            v = v.get("url") if isinstance(v, dict) else v
            if isinstance(v, str) and v.startswith(("http", "git")):
                urls.append(v)
    RNG.shuffle(urls)
    for k in range(3):
        add("urls", "urls", "homepage / repository URLs from package.json files", NODE / "package.json",
            "\n".join(urls[k * 25 : k * 25 + 25]))


def load(path: Path = OUT) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def measure(path: Path = OUT, per_text: bool = True) -> None:
    """The per-category table; with ``per_text`` (a check that is read text by text) the worst
    texts, and with --per-text every text's error."""
    from tests.core.calibrate_tokens import Sample, count, encoders, markdown, table
    from orkas_nb.core import tokens

    recs = load(path)
    samples = [Sample(r["category"], r["id"], r["text"], "holdout", r["lang"]) for r in recs]
    rows = sorted(table(samples), key=lambda r: r.category)
    print(markdown(rows))
    enc = encoders()["o200k_base"]
    errs = sorted(((tokens.estimate_text(s.text) - count(enc, s.text)) / count(enc, s.text), s.name) for s in samples)
    if per_text and "--per-text" in sys.argv:
        print("\n".join(f"{e:+.1%} {n}" for e, n in errs))
    within = sum(abs(e) <= 0.10 for e, _ in errs)
    print(f"\n{len(errs)} texts, {within} within 10% ({within / len(errs):.0%})")
    if not per_text:
        return
    print("worst under:", ", ".join(f"{n} {e:+.1%}" for e, n in errs[:12]))
    print("worst over:", ", ".join(f"{n} {e:+.1%}" for e, n in errs[-8:]))


def main() -> None:
    gather_debconf()
    gather_man()
    gather_typescript()
    gather_arrow()
    gather_code()
    gather_json()
    gather_notebook()
    gather_tables()
    gather_markdown_and_emoji()
    gather_logs_numbers_base64()
    write(OUT)


def name_records(check: str) -> None:
    """Prefix each record's id with its check's name, numbering repeats (``~2``, ``~3``) so that
    every text of a check has an id of its own."""
    seen: dict[str, int] = {}
    for r in RECORDS:
        seen[r["id"]] = seen.get(r["id"], 0) + 1
        r["id"] = f"{check}/" + r["id"] + ("" if seen[r["id"]] == 1 else f"~{seen[r['id']]}")


def write(out: Path, per_language: int = PER_LANGUAGE) -> None:
    """Keep at most ``per_language`` texts of one language, kind and category (debconf has dozens
    of Latin ones) and write the records to ``out``."""
    kept, seen = [], {}
    for r in RECORDS:
        key = (r["category"], r["lang"], r["kind"])
        seen[key] = seen.get(key, 0) + 1
        if seen[key] <= per_language:
            kept.append(r)
    RECORDS[:] = kept
    out.parent.mkdir(exist_ok=True)
    with open(out, "w", encoding="utf-8") as f:
        for r in RECORDS:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    cats: dict[str, int] = {}
    for r in RECORDS:
        cats[r["category"]] = cats.get(r["category"], 0) + 1
    print(len(RECORDS), "texts:", cats)


if __name__ == "__main__":
    measure() if "--measure" in sys.argv else main()
