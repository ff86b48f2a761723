"""A fifth outside check of the token estimator (issue 19): texts from Python packages a package
registry serves that neither the corpus, the first four checks nor the fit read. Built and
committed before anything was measured on it; no fit reads it.

    pip download --no-deps --dest /tmp/tok5dl jupyterlab-language-pack-<locale>==4.5.post3 (the 22 of LOCALES)
    pip download --no-deps --dest /tmp/tok5dl pycountry==26.2.16 polars==2.1.0 mkdocs-material==9.8.1 check-jsonschema==0.39.0
    pip download --no-deps --no-binary :all: --dest /tmp/tok5dl check-jsonschema==0.39.0   # its CHANGELOG.rst
    (mkdir -p /tmp/tok5pkgs && cd /tmp/tok5pkgs && for w in /tmp/tok5dl/*.whl; do unzip -qo "$w"; done)
    python tests/data/tokens/build_check5.py            # writes check5/outside.jsonl (run once)
    python tests/data/tokens/build_check5.py --measure  # per-category table and worst texts

Kinds: JupyterLab's translation catalogues (each language pack's ``.mo``, core and extensions),
pycountry's ISO 3166-1 and ISO 639-3 translations (country and language names, one a line; the
ISO 4217, 15924, 639-2 and 3166-2 lists and eight locales' 3166-1 lists were read by the corpus
and the third check from Debian's iso-codes, so they are left out), mkdocs-material's UI strings
of each language partial, the Python of polars, check-jsonschema and mkdocs-material, JSON
schemas check-jsonschema vendors and a language pack's JSON catalogue, catalogue and ISO 639-3
rows as CSV and Markdown tables, mkdocs-material's HTML templates, and English from the wheels'
descriptions and check-jsonschema's changelog. Every text is at least 500 characters and
carries its category, language, kind, source (the distribution and the path in it), package and
licence.
"""

from __future__ import annotations

import glob
import json
import os
import re
import sys
import tarfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

from tests.data.tokens import build_check as bc  # noqa: E402
from tests.data.tokens.build_check import add, category_of, msgstrs, pieces, sample  # noqa: E402
from tests.data.tokens.build_corpus import _rows_to_csv, _rows_to_markdown, catalogue, chunks  # noqa: E402

OUT = HERE / "check5" / "outside.jsonl"
SEED = 5055
PKGS = Path(os.environ.get("CHECK5_PACKAGES", "/tmp/tok5pkgs"))
SDIST = Path(os.environ.get("CHECK5_SDISTS", "/tmp/tok5dl")) / "check_jsonschema-0.39.0.tar.gz"
PACK = "jupyterlab-language-pack-{}-4.5.post3"
PACK_LICENCE = "BSD-3-Clause (Project Jupyter, PyPI wheel)"
DISTS = {  # top-level folder -> (distribution shown in a source, licence)
    "pycountry": ("pycountry-26.2.16", "LGPL-2.1-only (pycountry, PyPI wheel; data from iso-codes)"),
    "polars": ("polars-2.1.0", "MIT (polars, PyPI wheel)"),
    "material": ("mkdocs-material-9.8.1", "MIT (mkdocs-material, PyPI wheel)"),
    "check_jsonschema": ("check-jsonschema-0.39.0", "Apache-2.0 (check-jsonschema, PyPI wheel; vendored schemas: "
                         "their own licences in builtin_schemas/vendor/licenses)"),
}
# (locale as category_of reads it, language pack's, pycountry's, mkdocs-material's partial)
LOCALES = [
    ("ar", "ar_SA", "ar", "ar"), ("fa", None, "fa", "fa"), ("ur", None, "ur", "ur"), ("he", "he_IL", "he", "he"),
    ("th", None, "th", "th"), ("hi", None, "hi", "hi"), ("mr", None, "mr", None), ("ne", None, "ne", None),
    ("ru", "ru_RU", "ru", "ru"), ("uk", "uk_UA", "uk", "uk"), ("bg", None, "bg", "bg"), ("sr", None, "sr", "sr"),
    ("be", None, "be", "be"), ("kk", None, "kk", None), ("mk", None, "mk", "mk"), ("el", "el_GR", "el", "el"),
    ("zh_CN", "zh_CN", "zh_CN", "zh"), ("zh_TW", "zh_TW", "zh_TW", "zh-TW"), ("zh_HK", None, "zh_HK", "zh-Hant"),
    ("ja", "ja_JP", "ja", "ja"), ("ko", "ko_KR", "ko", "ko"), ("fr", "fr_FR", "fr", "fr"), ("de", "de_DE", "de", "de"),
    ("es", "es_ES", "es", "es"), ("it", "it_IT", "it", "it"), ("pt_BR", "pt_BR", "pt_BR", "pt-BR"),
    ("pl", "pl_PL", "pl", "pl"), ("nl", "nl_NL", "nl", "nl"), ("cs", "cs_CZ", "cs", "cs"), ("tr", "tr_TR", "tr", "tr"),
    ("vi", "vi_VN", "vi", "vi"), ("fi", "fi_FI", "fi", "fi"), ("hu", "hu_HU", "hu", "hu"), ("ro", "ro_RO", "ro", "ro"),
]
# Locales whose ISO 3166-1 names the corpus read (build_corpus.iso_tables, from Debian's iso-codes).
READ_3166 = {"fr", "de", "ru", "ja", "zh_CN", "ar", "el", "ko"}


def dist(path: str | Path) -> tuple[str, str, str]:
    """The source as shown (distribution and path inside it), the package and the licence."""
    rel = Path(path).relative_to(PKGS)
    top = rel.parts[0]
    if top.startswith("jupyterlab_language_pack_"):
        name = PACK.format((top.rsplit("_", 2)[-2] + "-" + top.rsplit("_", 1)[-1]).lower())
        return f"{name}/{rel}", name, PACK_LICENCE
    return bc.in_wheel(PKGS, DISTS, path)


def put(category: str, lang: str, kind: str, path: str | Path, text: str, note: str = "") -> None:
    shown, package, licence = dist(path)
    add(category, lang, kind, shown + note, text, package, licence)


def pack_dir(pack: str) -> Path:
    return PKGS / f"jupyterlab_language_pack_{pack}" / "locale" / pack / "LC_MESSAGES"


# -- text in each script ---------------------------------------------------------------------------


def gather_catalogues() -> None:
    for locale, pack, _, _ in LOCALES:
        if not pack:
            continue
        cat, lang = category_of(locale)
        core = pack_dir(pack) / "jupyterlab.mo"
        for c in chunks(msgstrs(core), per_source=3 if cat == "latin" else 6, sep="\n"):
            put(cat, lang, "JupyterLab translation catalogue (msgstr)", core, c)
        others = [p for p in sorted(glob.glob(str(pack_dir(pack) / "*.mo"))) if not p.endswith("/jupyterlab.mo")]
        for path in sample(others, 6):
            for c in chunks(msgstrs(path), per_source=1, sep="\n"):
                put(cat, lang, "JupyterLab extension catalogue (msgstr)", path, c)


def gather_iso() -> None:
    for locale, _, pc, _ in LOCALES:
        cat, lang = category_of(locale)
        domains = ("iso639-3",) + (() if pc in READ_3166 else ("iso3166-1",))
        for domain in domains:
            path = PKGS / "pycountry/locales" / pc / "LC_MESSAGES" / f"{domain}.mo"
            if not path.exists():
                continue
            names = msgstrs(path).split("\n")
            start = bc.RNG.randrange(0, max(1, len(names) - 150))
            for p in pieces("\n".join(names[start:]), size=700)[: 1 if cat == "latin" else 3]:
                put(cat, lang, f"names from pycountry ({domain})", path, p)


def gather_mkdocs_strings() -> None:
    value = re.compile(r'^\s*"[^"]+":\s*"(.*)",?\s*$')
    for locale, _, _, mk in LOCALES:
        path = PKGS / "material/templates/partials/languages" / f"{mk}.html"
        if not mk or not path.exists():
            continue
        cat, lang = category_of(locale)
        lines = [m.group(1) for m in map(value.match, path.read_text(encoding="utf-8").splitlines()) if m]
        put(cat, lang, "mkdocs-material UI strings (a language partial's values)", path, "\n".join(lines[1:]))


# -- code, markup, formats ---------------------------------------------------------------------------


def gather_code_and_html() -> None:
    kinds = {
        ("code", "python", "polars"): glob.glob(str(PKGS / "polars/**/*.py"), recursive=True),
        ("code", "python", "check-jsonschema"): glob.glob(str(PKGS / "check_jsonschema/**/*.py"), recursive=True),
        ("code", "python", "mkdocs-material"): glob.glob(str(PKGS / "material/**/*.py"), recursive=True),
        ("html", "html", "mkdocs-material"): [p for p in glob.glob(str(PKGS / "material/templates/**/*.html"), recursive=True)
                                              if "/languages/" not in p],
    }
    for (cat, lang, pkg), paths in kinds.items():
        paths = [p for p in paths if Path(p).stat().st_size > 1500]
        for path in sample(paths, 10 if cat == "html" else 6):
            for c in chunks(Path(path).read_text(encoding="utf-8", errors="replace"), per_source=1):
                put(cat, lang, f"{lang} source ({pkg})" if cat == "code" else "HTML template (mkdocs-material)", path, c)


def gather_json() -> None:
    schemas = sorted(glob.glob(str(PKGS / "check_jsonschema/builtin_schemas/vendor/*.json")))
    for k, path in enumerate(sample(schemas, 8)):
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        defs = data.get("definitions") or data.get("$defs") or data.get("properties") or data
        keys = sorted(defs)
        start = bc.RNG.randrange(0, max(1, len(keys) - 6))
        doc = {key: defs[key] for key in keys[start : start + 6]}
        text = json.dumps(doc, indent=2) if k % 2 == 0 else json.dumps(doc, separators=(",", ":"))
        put("json", "json", "JSON schema (check-jsonschema's vendored)", path, text[:2000])
    for k, (_, pack, _, _) in enumerate(LOCALES[::4]):
        if not pack:
            continue
        path = pack_dir(pack) / "jupyterlab.json"
        items = list(json.loads(path.read_text(encoding="utf-8")).items())
        if len(items) < 60:
            continue
        start = bc.RNG.randrange(1, len(items) - 30)
        text = json.dumps(dict(items[start : start + 20]), ensure_ascii=k % 2 == 0, indent=4)
        put("json", "json", "JupyterLab JSON catalogue (" + ("escaped, as shipped" if k % 2 == 0 else "UTF-8") + ")", path,
            text[:2000])


def fit(render, head: list[str], rows: list[list[str]], limit: int = 2000) -> str:
    """The table of ``head`` and as many of ``rows`` as keep it within ``limit`` characters."""
    while len(rows) > 3 and len(render([head] + rows)) > limit:
        rows = rows[:-1]
    return render([head] + rows)


def gather_tables() -> None:
    for k, (locale, pack, pc, _) in enumerate(LOCALES):
        if pack and k % 2 == 0:
            path = pack_dir(pack) / "jupyterlab.mo"
            pairs = [[en.strip(), tr.strip()] for en, tr in catalogue(str(path)) if "\n" not in en + tr]
            start = bc.RNG.randrange(0, max(1, len(pairs) - 30))
            text = fit(_rows_to_csv, ["msgid", f"msgstr_{pack}"], pairs[start : start + 22])
            put("csv", "csv", f"JupyterLab catalogue as CSV ({pack})", path, text)
        elif pack:
            path = pack_dir(pack) / "jupyterlab.mo"
            pairs = [[en.strip(), tr.strip()] for en, tr in catalogue(str(path)) if "\n|" not in en + tr and "|" not in en + tr]
            start = bc.RNG.randrange(0, max(1, len(pairs) - 30))
            text = fit(_rows_to_markdown, ["msgid", f"msgstr_{pack}"], pairs[start : start + 18])
            put("markdown-table", "markdown", f"JupyterLab catalogue as a Markdown table ({pack})", path, text)
    for k, (locale, _, pc, _) in enumerate(LOCALES[1::3]):
        path = PKGS / "pycountry/locales" / pc / "LC_MESSAGES/iso639-3.mo"
        if not path.exists():
            continue
        tr = dict(catalogue(str(path)))
        langs = json.loads((PKGS / "pycountry/databases/iso639-3.json").read_text(encoding="utf-8"))["639-3"]
        rows = [[r["alpha_3"], r.get("scope", ""), r.get("type", ""), r["name"], tr[r["name"]]] for r in langs if r["name"] in tr]
        start = bc.RNG.randrange(0, max(1, len(rows) - 30))
        head = ["alpha_3", "scope", "type", "name", f"name_{pc}"]
        if k % 2 == 0:
            put("csv", "csv", f"ISO 639-3 names as CSV (pycountry, {pc})", path, fit(_rows_to_csv, head, rows[start : start + 24]))
        else:
            put("markdown-table", "markdown", f"ISO 639-3 names as a Markdown table (pycountry, {pc})", path,
                fit(_rows_to_markdown, head, rows[start : start + 20]))


def gather_english() -> None:
    if SDIST.exists():
        with tarfile.open(SDIST) as tar:
            log = tar.extractfile("check_jsonschema-0.39.0/CHANGELOG.rst").read().decode("utf-8")  # type: ignore[union-attr]
        for c in chunks(log, per_source=6):
            add("english", "en", "changelog (check-jsonschema's CHANGELOG.rst, sdist)", "check-jsonschema-0.39.0/CHANGELOG.rst",
                c, "check-jsonschema-0.39.0", "Apache-2.0 (check-jsonschema, PyPI sdist)")
    for path in sorted(glob.glob(str(PKGS / "*.dist-info/METADATA"))):
        top = {"mkdocs": "material", "check": "check_jsonschema"}.get(Path(path).parent.name.split("_")[0].split("-")[0],
                                                                      Path(path).parent.name.split("-")[0])
        if top not in DISTS:
            continue
        body = Path(path).read_text(encoding="utf-8").split("\n\n", 1)[-1]
        for c in chunks(body, per_source=3):
            add("english", "en", "package description (METADATA)", f"{DISTS[top][0]}/{Path(path).parent.name}/METADATA", c,
                DISTS[top][0], DISTS[top][1])


def main() -> None:
    bc.RNG.seed(SEED)
    gather_catalogues()
    gather_iso()
    gather_mkdocs_strings()
    gather_code_and_html()
    gather_json()
    gather_tables()
    gather_english()
    bc.name_records("check5")
    bc.write(OUT, per_language=6)


if __name__ == "__main__":
    bc.measure(OUT, per_text=True) if "--measure" in sys.argv else main()
