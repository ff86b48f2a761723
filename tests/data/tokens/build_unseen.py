"""Add languages the token estimator was never designed on to the corpus (issue 19, part 4).

    python tests/data/tokens/build_unseen.py

Source: the CLDR locale data Babel ships in its wheel (``babel/locale-data/<locale>.dat``,
Unicode License v3; Babel itself is BSD-3-Clause): for each locale, the names it gives
languages, territories, scripts, currencies, units and time zones, in its own language and
script, one name a line (names equal to the English one or to CLDR's root fallback, borrowed or inherited, are
dropped).
Each section is a work: ``cldr:<section>`` is split by the corpus rule
(``build_corpus.group_split``), so a held-out section is held out in every language.

Two files, written once; the rest of the corpus is left as it is:

* ``unseen-latin.jsonl`` and ``unseen-script.jsonl``: Latin-script languages whose words o200k
  knows little of, and scripts outside the fitted blocks; looked at while designing the
  estimator, fitted on their ``tune`` split only.
* ``blind.jsonl``: languages chosen before any measure and never looked at while designing;
  their groups are ``blind:cldr:<section>``, always ``holdout`` (never fitted on, in any split).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

from tests.data.tokens.build_corpus import MIN_CHARS, OUT, chunks, group_split  # noqa: E402

UNSEEN_LATIN = ["xh", "zu", "cy", "ga", "gd", "kab", "so", "st", "mg", "mi", "ceb", "jv", "su", "om", "rw",
                "ln", "lg", "ak", "ee", "kl", "se", "smn", "fy", "rm", "br", "kw", "gv", "fo"]
UNSEEN_SCRIPT = ["zgh", "shi_Tfng", "chr", "bo", "sat_Olck", "lo", "am", "ti"]
# Chosen up front, before measuring anything on them (named in the commit that adds them).
BLIND = ["sw", "yo", "ha", "ig", "sn", "mt", "lb", "haw", "qu", "wo", "tn", "to",
         "vai", "ii", "nqo", "syr", "dv", "osa", "iu", "ff_Adlm"]
SECTIONS = ["languages", "territories", "scripts", "currencies", "unit_display_names", "meta_zones"]
PER_SECTION = 3
LICENCE = "Unicode-3.0 (CLDR data, shipped in the Babel wheel: BSD-3-Clause)"


def names(locale: object, section: str) -> list[str]:
    data = getattr(locale, section)
    out = []
    for value in data.values():
        if section == "unit_display_names":
            value = value.get("long") if hasattr(value, "get") else value
        if section == "meta_zones":
            value = value.get("long", {}).get("generic") if hasattr(value, "get") else None
        if isinstance(value, str) and value.strip():
            out.append(value.strip())
    return out


def records(locale_id: str, category: str, blind: bool) -> list[dict]:
    import babel
    from babel import Locale

    locale = Locale.parse(locale_id)
    inherited = [Locale.parse("en"), Locale("root")]  # borrowed names, and CLDR's fallbacks
    source = Path(babel.__file__).parent / "locale-data" / f"{locale_id}.dat"
    out = []
    for section in SECTIONS:
        seen = {n for other in inherited for n in names(other, section)}
        lines = list(dict.fromkeys(n for n in names(locale, section) if n not in seen))
        group = ("blind:" if blind else "") + f"cldr:{section}"
        for i, text in enumerate(chunks("\n".join(lines), per_source=PER_SECTION, sep="\n")):
            if len(text) < MIN_CHARS:
                continue
            out.append({
                "id": f"{category}/{locale_id}/{section}#{i}", "category": category, "lang": locale_id,
                "kind": f"CLDR locale data ({section.replace('_', ' ')})", "source": str(source),
                "package": f"babel {babel.__version__} (PyPI)", "licence": LICENCE, "group": group,
                "split": group_split(group), "text": text,
            })
    return out


def main() -> None:
    for category, locales, blind in (("unseen-latin", UNSEEN_LATIN, False), ("unseen-script", UNSEEN_SCRIPT, False),
                                     ("blind", BLIND, True)):
        recs = [r for loc in locales for r in records(loc, category, blind)]
        with open(OUT / f"{category}.jsonl", "w", encoding="utf-8") as f:
            for r in recs:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
        langs = sorted({r["lang"] for r in recs})
        splits = {s: sum(r["split"] == s for r in recs) for s in ("tune", "holdout")}
        print(f"{category:14} {len(recs):4} texts  {len(langs)} languages  {splits}  missing: "
              f"{sorted(set(locales) - set(langs))}")


if __name__ == "__main__":
    main()
