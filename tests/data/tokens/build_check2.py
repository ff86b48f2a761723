"""A second outside check of the token estimator (issue 19, part 4): texts from sources on this
machine that neither the corpus (``build_corpus.py``, ``build_unseen.py``) nor the first check
(``build_check.py``) reads. Built once and measured before any change made after the first
check; it is read by its totals only (per category), never text by text, so that no fix is
tuned on it.

    python tests/data/tokens/build_check2.py            # writes check2/outside.jsonl (run once)
    python tests/data/tokens/build_check2.py --measure  # per-category table (no per-text errors)

Sources: systemd's message catalogues (``/usr/lib/systemd/catalog``), GnuPG's translated help
(``/usr/share/gnupg/help.*.txt``), the freedesktop MIME database's translated type names
(``/usr/share/mime/packages``), polkit's translated action messages, glibc's locale sources
(``/usr/share/i18n/locales``: month, day, country and language names, decoded from ``<Uxxxx>``),
Day.js's locale modules, docutils' language modules, English man pages (sections 1-8, which the
corpus and the first check, reading translated pages only, leave), Java's sources (Temurin's
``src.zip``), typeshed's stubs in jedi, Playwright's type declarations and scripts, CPython's C
headers, Perl's core modules, bash completions, rustdoc's and Playwright's CSS, the Rust book and
reference (HTML), /etc configuration files, systemd unit files, Rust's channel manifest (TOML),
the Google Cloud CLI's YAML, cfn-lint's and SAM's JSON schemas, the alternatives and fontconfig
logs, tables written from
/etc/services and the MIME translations (CSV and Markdown), and project URLs from dist-info
METADATA and Debian copyright files. Every text is at least 500 characters and carries its
category, language, kind, source and licence; a test checks no source is one the corpus or the
first check reads. (postgresql-common's test SQL, pip's HTML docs and the PostgreSQL log are
looked at too, but gave no text of 500 characters or none the seeded sample drew.)
"""

from __future__ import annotations

import glob
import json
import re
import sys
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

from tests.data.tokens import build_check as bc  # noqa: E402
from tests.data.tokens.build_check import NODE, RECORDS, RUST, RUST_LICENCE, add, category_of, pieces, read, sample  # noqa: E402
from tests.data.tokens.build_corpus import SITE, _rows_to_csv, _rows_to_markdown, chunks, render_man  # noqa: E402

OUT = HERE / "check2" / "outside.jsonl"
SEED = 2026
CPYTHON_HEADERS = "/root/.pyenv/versions/3.11.7/include/python3.11"
CPYTHON_LICENCE = ("CPython 3.11.7 (C headers)", "PSF-2.0")
JDK = Path("/usr/lib/jvm/temurin-25-jdk-amd64/lib/src.zip")
XML_LANG = "{http://www.w3.org/XML/1998/namespace}lang"


def lang_of(locale: str) -> tuple[str, str]:
    cat, lang = category_of(locale)
    if locale.split("_")[0].split("@")[0] == "en" and "@" not in locale:
        return "english", "en"
    return cat, lang


# -- prose in each script -----------------------------------------------------------------------


def gather_systemd_catalog() -> None:
    for path in sorted(glob.glob("/usr/lib/systemd/catalog/systemd*.catalog")):
        name = Path(path).name.split(".")
        locale = name[1] if len(name) == 3 else "en"
        cat, lang = lang_of(locale)
        body = "\n".join(line for line in read(path).splitlines() if not line.startswith("#"))
        for p in chunks(body, per_source=3):
            add(cat, lang, "systemd message catalogue", path, p)


def gather_gnupg_help() -> None:
    for path in sorted(glob.glob("/usr/share/gnupg/help*.txt")):
        parts = Path(path).name.split(".")
        cat, lang = lang_of(parts[1] if len(parts) == 3 else "en")
        body = "\n".join(line for line in read(path).splitlines() if not line.startswith("#"))
        for p in chunks(body, per_source=2):
            add(cat, lang, "GnuPG online help (translated)", path, p)


def translations(path: str, tags: tuple[str, ...]) -> dict[str, list[str]]:
    """The translated texts of an XML file (elements named in ``tags`` with an xml:lang), by locale."""
    out: dict[str, list[str]] = {}
    for el in ET.parse(path).iter():
        tag = el.tag.rsplit("}", 1)[-1]
        locale = el.get(XML_LANG)
        if tag in tags and locale and el.text and el.text.strip():
            out.setdefault(locale, []).append(" ".join(el.text.split()))
    return out


def gather_mime() -> None:
    path = "/usr/share/mime/packages/freedesktop.org.xml"
    for locale, names in sorted(translations(path, ("comment",)).items()):
        cat, lang = lang_of(locale)
        start = bc.RNG.randrange(0, max(1, len(names) - 200))
        for p in pieces("\n".join(names[start:]), size=800)[: 1 if cat == "latin" else 2]:
            add(cat, lang, "MIME type names (translated)", path, p)


POLKIT: dict[str, list[str]] = {}  # locale -> polkit's translated messages


def gather_polkit() -> None:
    for path in sorted(glob.glob("/usr/share/polkit-1/actions/*.policy")):
        for locale, texts in translations(path, ("description", "message")).items():
            POLKIT.setdefault(locale, []).extend(texts)
    for locale, texts in sorted(POLKIT.items()):
        cat, lang = lang_of(locale)
        for p in pieces("\n".join(texts), size=900)[:2]:
            add(cat, lang, "polkit action messages (translated)", "/usr/share/polkit-1/actions", p,
                "polkit, systemd, packagekit ... (Debian)", "LGPL-2.0-or-later / LGPL-2.1-or-later (each .policy's package)")


_UCODE = re.compile(r"<U([0-9A-Fa-f]{4,6})>")
_STRING = re.compile(r'"((?:<U[0-9A-Fa-f]{4,6}>|[^"<])*)"')
_GLIBC_LOCALES = ["th_TH", "hi_IN", "mr_IN", "ne_NP", "sa_IN", "mai_IN", "bho_IN", "kok_IN", "ta_IN", "bn_IN", "gu_IN", "te_IN", "ar_EG", "ar_SA", "fa_IR", "ur_PK", "he_IL", "yi_US",
                  "ru_RU", "be_BY", "uk_UA", "bg_BG", "sr_RS", "kk_KZ", "el_GR", "zh_CN", "zh_TW", "zh_HK", "ja_JP",
                  "ko_KR", "ka_GE", "hy_AM", "am_ET", "km_KH", "lo_LA", "my_MM", "bn_IN", "ta_IN", "fr_FR",
                  "pl_PL", "tr_TR", "vi_VN", "fi_FI", "hu_HU", "cs_CZ", "lt_LT"]


def gather_glibc() -> None:
    for locale in _GLIBC_LOCALES:
        path = Path("/usr/share/i18n/locales") / locale
        if not path.exists():
            continue
        # The sections of names a person reads, not LC_CTYPE's and LC_COLLATE's character tables.
        source = "\n".join(re.findall(r"^(LC_(?:TIME|MESSAGES|MONETARY|ADDRESS|NAME|IDENTIFICATION)\n.*?^END LC_\w+)",
                                      read(path), re.M | re.S))
        strings = [_UCODE.sub(lambda m: chr(int(m.group(1), 16)), s) for s in _STRING.findall(source)]
        text = "\n".join(s for s in strings if s.strip() and not s.isascii() or len(s) > 12 and " " in s)
        cat, lang = lang_of(locale)
        if len(text) < bc.MIN_CHARS:  # (Thai, Hindi ...: too few names alone; with polkit's messages)
            polkit = POLKIT.get(locale.split("_")[0], [])
            add(cat, lang, "glibc locale names and polkit action messages", f"{path} + /usr/share/polkit-1/actions",
                text + "\n" + "\n".join(polkit), "locales, polkit (Debian)", "LGPL-2.1 (glibc locales) / LGPL-2.0-or-later (polkit)")
            continue
        for p in pieces(text, size=700)[:2]:
            add(cat, lang, "glibc locale source (names: months, days, country, language)", path, p)


_DAYJS = ["th", "hi", "mr", "ne", "ar", "fa", "he", "ru", "be", "uk", "el", "ja", "ko", "zh-cn", "zh-tw", "ka",
          "bn", "ta", "pl", "vi"]


def gather_dayjs_and_docutils() -> None:
    for name in _DAYJS:
        path = NODE / "dayjs" / "esm" / "locale" / f"{name}.js"
        if path.exists():
            add("code-i18n", name, "JavaScript locale module (Day.js)", path, read(path))
    for sub in ("languages", "parsers/rst/languages"):
        for path in sorted((SITE / "docutils" / sub).glob("*.py")):
            if path.stem in ("ru", "zh_cn", "zh_tw", "ja", "ko", "ar", "fa", "he", "uk", "ka", "fr", "de", "pl"):
                add("code-i18n", path.stem, "Python language module (docutils)", path, read(path))


def gather_english_man() -> None:
    pages = [p for p in Path("/usr/share/man").glob("man[1-8]/*.gz") if p.stat().st_size > 2500]
    for page in sample(pages, 8):
        for c in chunks(render_man(str(page)), per_source=1):
            add("english", "en", "English man page (rendered)", page, c)


# -- code and formats -------------------------------------------------------------------------------


def gather_code() -> None:
    with zipfile.ZipFile(JDK) as z:
        java = [n for n in z.namelist() if n.endswith(".java") and n.startswith(("java.sql/", "java.net.http/", "java.base/java/util/"))]
        for name in sample(java, 5):
            for c in chunks(z.read(name).decode("utf-8", "replace"), per_source=1):
                add("code", "java", "Java source (JDK)", f"{JDK}!{name}", c, "Eclipse Temurin 25 JDK (src.zip)",
                    "GPL-2.0 WITH Classpath-exception-2.0")
    kinds = {
        ("code", "python-stub"): sample(glob.glob(str(SITE / "jedi/third_party/typeshed/**/*.pyi"), recursive=True), 5),
        ("code", "typescript"): sample(glob.glob(str(SITE / "playwright/driver/package/types/*.d.ts")), 3),
        ("code", "javascript"): sample([p for p in glob.glob(str(SITE / "playwright/driver/package/lib/**/*.js"), recursive=True)
                                        if "/vite/" not in p], 4),
        ("code", "c"): sample(glob.glob(CPYTHON_HEADERS + "/**/*.h", recursive=True), 4),
        ("code", "perl"): sample(glob.glob("/usr/share/perl/5.36.0/**/*.pm", recursive=True), 3),
        ("code", "shell"): sample(glob.glob("/usr/share/bash-completion/completions/*"), 4),
        ("code", "sql"): sample(glob.glob("/usr/share/postgresql-common/**/*.sql", recursive=True), 3),
        ("code", "css"): sample(glob.glob(str(RUST / "rustdoc/**/*.css"), recursive=True)
                                + glob.glob(str(SITE / "playwright/driver/package/lib/vite/**/*.css"), recursive=True), 4),
        ("html", "html"): sample(glob.glob(str(RUST / "book/*.html")) + glob.glob(str(RUST / "reference/*.html"))
                                 + glob.glob("/usr/share/doc/python3-pip/html/**/*.html", recursive=True), 5),
        ("config", "ini"): sample([p for p in glob.glob("/etc/*.conf") + glob.glob("/etc/*/*.conf")], 4),
        ("config", "systemd-unit"): sample(glob.glob("/usr/lib/systemd/system/*.service"), 6),
        ("config", "yaml"): sample(glob.glob("/usr/lib/google-cloud-sdk/lib/googlecloudsdk/command_lib/**/*.yaml",
                                             recursive=True), 4),
    }
    for (cat, lang), paths in kinds.items():
        for path in paths:
            text = read(path)
            if cat == "config" and lang == "systemd-unit" and len(text) < 500:
                continue
            for c in chunks(text, per_source=1):
                extra = (RUST_LICENCE if str(path).startswith(str(RUST)) else CPYTHON_LICENCE
                         if str(path).startswith(CPYTHON_HEADERS) else (None, None))
                add(cat, lang, f"{lang} source", path, c, *extra)
    manifest = RUST.parents[3] / "lib/rustlib/multirust-channel-manifest.toml"
    lines = read(manifest).splitlines()
    for k in range(3):
        start = bc.RNG.randrange(0, len(lines) - 40)
        add("config", "toml", "Rust channel manifest (TOML)", manifest, "\n".join(lines[start : start + 30]), *RUST_LICENCE)


def gather_json() -> None:
    paths = sample(glob.glob(str(SITE / "cfnlint/data/schemas/**/*.json"), recursive=True), 5)
    paths += sample(glob.glob(str(SITE / "samtranslator/**/*.json"), recursive=True), 3)
    for k, path in enumerate(paths):
        try:
            data = json.loads(read(path))
        except ValueError:
            continue
        text = json.dumps(data, indent=2, ensure_ascii=False) if k % 2 else json.dumps(data, separators=(",", ":"))
        add("json", "json", "JSON schema (cfn-lint, SAM), " + ("indented" if k % 2 else "compact"), path, text[:3000])
    names = translations("/usr/share/mime/packages/freedesktop.org.xml", ("comment",))
    for locale in ("ru", "ja", "ar", "el", "zh_TW"):
        items = dict(list(zip([f"type{i}" for i in range(len(names[locale]))], names[locale]))[40:70])
        add("json", category_of(locale)[1], "MIME type names as JSON (translated)", "/usr/share/mime/packages/freedesktop.org.xml",
            json.dumps(items, ensure_ascii=False, indent=2))


def services_rows() -> list[list[str]]:
    rows = [["service", "port", "protocol", "aliases", "comment"]]
    for line in read("/etc/services").splitlines():
        body, _, comment = line.partition("#")
        parts = body.split()
        if len(parts) >= 2 and "/" in parts[1]:
            port, proto = parts[1].split("/")
            rows.append([parts[0], port, proto, " ".join(parts[2:]), comment.strip()])
    return rows


def mime_rows(locale: str) -> list[list[str]]:
    rows = [["mime_type", "comment_en", f"comment_{locale}"]]
    for el in ET.parse("/usr/share/mime/packages/freedesktop.org.xml").getroot():
        en = [c.text for c in el if c.tag.endswith("comment") and c.get(XML_LANG) is None]
        tr = [c.text for c in el if c.tag.endswith("comment") and c.get(XML_LANG) == locale]
        if en and tr:
            rows.append([el.get("type", ""), en[0], tr[0]])
    return rows


def gather_tables() -> None:
    services = services_rows()
    for k in range(3):
        start = bc.RNG.randrange(1, len(services) - 40)
        add("csv", "csv", "/etc/services as CSV", "/etc/services", _rows_to_csv([services[0]] + services[start : start + 30]))
        add("markdown-table", "markdown", "/etc/services as a Markdown table", "/etc/services",
            _rows_to_markdown([services[0]] + services[start + 5 : start + 22]))
    for locale in ("ru", "ja", "ar", "he", "zh_CN", "ko", "el", "de"):
        rows = mime_rows(locale)
        start = bc.RNG.randrange(1, len(rows) - 40)
        add("csv", "csv", f"MIME type names as CSV ({locale})", "/usr/share/mime/packages/freedesktop.org.xml",
            _rows_to_csv([rows[0]] + rows[start : start + 20]))
        add("markdown-table", "markdown", f"MIME type names as a Markdown table ({locale})",
            "/usr/share/mime/packages/freedesktop.org.xml", _rows_to_markdown([rows[0]] + rows[start + 20 : start + 34]))


def gather_logs_and_urls() -> None:
    for path in ("/var/log/alternatives.log", "/var/log/fontconfig.log", "/var/log/postgresql/postgresql-15-main.log"):
        lines = read(path).splitlines()
        for k in range(2):
            start = bc.RNG.randrange(0, max(1, len(lines) - 40))
            add("log", "log", "system log", path, "\n".join(lines[start : start + 25]), "this machine's state",
                "machine state (no licence: generated by the system)")
    urls: list[tuple[str, str]] = []
    for meta in sorted(SITE.glob("*.dist-info/METADATA")):
        for line in read(meta).splitlines():
            m = re.match(r"^(Home-page|Project-URL):\s*(?:[^,]*,\s*)?(https?://\S+)", line)
            if m:
                urls.append((str(meta), m.group(2)))
    for path in sorted(glob.glob("/usr/share/doc/*/copyright")):
        for line in read(path).splitlines():
            m = re.match(r"^(Source|Upstream-Contact|Homepage):\s*(https?://\S+)", line)
            if m:
                urls.append((path, m.group(2)))
    bc.RNG.shuffle(urls)
    for k in range(4):
        add("urls", "urls", "project URLs from dist-info METADATA and Debian copyright files", SITE,
            "\n".join(u for _, u in urls[k * 25 : k * 25 + 25]), "dist-info METADATA / Debian copyright files",
            "facts (URLs), from each package's metadata")


def main() -> None:
    bc.RNG.seed(SEED)
    gather_systemd_catalog()
    gather_gnupg_help()
    gather_mime()
    gather_polkit()
    gather_glibc()
    gather_dayjs_and_docutils()
    gather_english_man()
    gather_code()
    gather_json()
    gather_tables()
    gather_logs_and_urls()
    seen: dict[str, int] = {}
    for r in RECORDS:  # (two sources can share a folder and file name: polkit's, the JDK's)
        seen[r["id"]] = seen.get(r["id"], 0) + 1
        r["id"] = "check2/" + r["id"] + ("" if seen[r["id"]] == 1 else f"~{seen[r['id']]}")
    bc.write(OUT, per_language=4)


if __name__ == "__main__":
    bc.measure(OUT, per_text=False) if "--measure" in sys.argv else main()
