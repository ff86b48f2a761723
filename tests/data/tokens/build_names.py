"""Add lists of short names in the scripts beyond Latin to the corpus (issue 19, part 4).

    pip download --no-deps --dest /tmp/names mimesis==22.2.0 pythainlp==5.4.0
    (cd /tmp/names && for w in *.whl; do unzip -qo "$w"; done)
    python tests/data/tokens/build_names.py /tmp/names

Lists of names, one a line or comma-separated (cities, countries, streets, companies, people,
languages, occupations, dishes ...), are the text o200k splits most in these scripts: its
vocabulary holds the common words of prose, not transliterated or rare names. The corpus had
none of them in Cyrillic, Greek, Arabic, Japanese, Korean, Chinese or Thai, and the fit read
their cost off prose and catalogues (a fourth check's name lists were under by up to 22%).

Sources (neither is read by any other set of the corpus or the checks):

* mimesis 22.2.0 (MIT; PyPI wheel): the word lists of its locale data,
  ``mimesis/datasets/<locale>/<file>.json``, one list a work.
* pythainlp 5.4.0 (Apache-2.0; its corpora CC0-1.0, ``corpus/corpus_license.md``): the Thai
  lists of ``pythainlp/corpus`` (countries, provinces, given and family names).

Each list is a work (``names:<list>``), split by the corpus rule (``build_corpus.group_split``),
so a held-out list is held out in every language. One file, ``names.jsonl``, written once.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

from tests.data.tokens.build_corpus import MIN_CHARS, chunks, group_split, write_category  # noqa: E402

CATEGORY = "names"
PER_LIST = 2
LOCALES = {"ru": "ru", "uk": "uk", "kk": "kk", "el": "el", "ja": "ja", "ko": "ko", "zh": "zh", "fa": "fa",
           "ar-sa": "ar"}
# (file, path inside it): the lists of at least 20 names, the same in every locale that has them.
LISTS = [("address", "city"), ("address", "country.name"), ("address", "state.name"), ("address", "street.name"),
         ("finance", "company.name"), ("finance", "banks"), ("food", "dishes"), ("food", "drinks"),
         ("food", "fruits"), ("food", "spices"), ("food", "vegetables"), ("person", "language"),
         ("person", "nationality"), ("person", "occupation"), ("person", "surnames"), ("person", "surnames.male"),
         ("person", "names.female"), ("person", "names.male"), ("person", "university"), ("text", "color")]
THAI = [("countries_th.txt", "countries"), ("thailand_provinces_th.csv", "provinces"),
        ("person_names_female_th.txt", "names.female"), ("person_names_male_th.txt", "names.male"),
        ("family_names_th.txt", "surnames")]
MIMESIS = ("mimesis 22.2.0 (PyPI)", "MIT (mimesis-22.2.0.dist-info/licenses/LICENSE)")
PYTHAINLP = ("pythainlp 5.4.0 (PyPI)", "CC0-1.0 (pythainlp/corpus/corpus_license.md; the package Apache-2.0)")


def _separator(key: str) -> str:
    """One list in three is written comma-separated, the rest one name a line (fixed by hash)."""
    return ", " if hashlib.sha256(key.encode()).digest()[0] % 3 == 0 else "\n"


def _records(lang: str, key: str, names: list[str], source: str, package: tuple[str, str]) -> list[dict]:
    names = list(dict.fromkeys(n.strip() for n in names if n.strip()))
    group = f"names:{key}"
    sep = _separator(f"{lang}:{key}")
    out = []
    for i, text in enumerate(chunks("\n".join(names), per_source=PER_LIST, sep="\n")):
        if len(text) < MIN_CHARS:
            continue
        out.append({
            "id": f"{CATEGORY}/{lang}/{key}#{i}", "category": CATEGORY, "lang": lang,
            "kind": "list of names" + (" (comma-separated)" if sep != "\n" else " (one a line)"),
            "source": source, "package": package[0], "licence": package[1], "group": group,
            "split": group_split(group), "text": text.replace("\n", sep),
        })
    return out


def _pick(data: object, path: str) -> list[str] | None:
    for part in path.split("."):
        if not isinstance(data, dict) or part not in data:
            return None
        data = data[part]
    ok = isinstance(data, list) and len(data) >= 20 and all(isinstance(x, str) for x in data)
    return data if ok else None  # type: ignore[return-value]


def main(root: Path) -> None:
    recs = []
    for locale, lang in LOCALES.items():
        for file, path in LISTS:
            json_path = root / "mimesis" / "datasets" / locale / f"{file}.json"
            if not json_path.exists():
                continue
            names = _pick(json.loads(json_path.read_text(encoding="utf-8")), path)
            if names:
                source = f"mimesis-22.2.0 wheel: mimesis/datasets/{locale}/{file}.json ({path})"
                recs += _records(lang, f"{file}.{path}", names, source, MIMESIS)
    for file, key in THAI:
        lines = (root / "pythainlp" / "corpus" / file).read_text(encoding="utf-8").splitlines()
        names = [line.split(",")[0] for line in lines if line and not line.startswith("#")]
        recs += _records("th", key, names, f"pythainlp-5.4.0 wheel: pythainlp/corpus/{file}", PYTHAINLP)
    splits = write_category(CATEGORY, recs)
    print(f"{len(recs)} texts, {len({r['lang'] for r in recs})} languages, {splits}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
