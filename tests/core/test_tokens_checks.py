"""The token estimator on the fourth and fifth outside checks (issue 19, part 4), each built by its
``tests/data/tokens/build_checkN.py`` from packages a registry serves and committed before
anything was measured on it (``checkN/README.md``):

- check4, 353 texts: Django's and Sphinx's catalogues, Babel's CLDR data, Faker's locale
  providers, their code and templates;
- check5, 319 texts from packages no earlier set read: JupyterLab's language packs, pycountry's
  ISO names, mkdocs-material, polars, check-jsonschema.

Each check holds every category at its measured mean error plus two points (rounded up), and a
floor of texts within 10% at six fewer than measured: a later change may move texts it was never
tuned on, but not make a category worse."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from orkas_nb.core import tokens
from tests.core.calibrate_tokens import CORPUS, count, encoders
from tests.core.test_tokens_outside import REQUIRED, _within_bounds
from tests.data.tokens.build_check import OUT
from tests.data.tokens.build_check2 import OUT as OUT2
from tests.data.tokens.build_check3 import OUT as OUT3
from tests.data.tokens.build_check4 import OUT as OUT4
from tests.data.tokens.build_check5 import OUT as OUT5
from tests.data.tokens.build_corpus import MIN_CHARS


@dataclass(frozen=True)
class Check:
    path: Path
    min_texts: int
    bounds: dict[str, float]
    within_ten_percent: int
    earlier: tuple[Path, ...]  # the sets built before it: none of their sources may reappear


CHECKS = {
    # Measured once at 1d57b5f, once more after the name-list change (793f2ac): the categories it
    # improved are held at that figure plus two points, the others keep their first bound.
    # 264 of 353 texts (75%) within 10% at the first measure, 277 (78%) after the change.
    "check4": Check(
        OUT4, 350,
        {"arabic": 0.08, "code": 0.12, "csv": 0.06, "cyrillic": 0.09, "devanagari": 0.07, "english": 0.10,
         "greek": 0.07, "han-simplified": 0.13, "han-traditional": 0.09, "hebrew": 0.07, "html": 0.11,
         "japanese": 0.11, "json": 0.05, "korean": 0.09, "latin": 0.10, "markdown-table": 0.05, "thai": 0.09},
        271, (OUT, OUT2, OUT3)),
    # Measured once at 1db27cf: 244 of 319 texts (76%) within 10%.
    "check5": Check(
        OUT5, 300,
        {"arabic": 0.08, "code": 0.13, "csv": 0.11, "cyrillic": 0.08, "devanagari": 0.07, "english": 0.07,
         "greek": 0.05, "han-simplified": 0.09, "han-traditional": 0.09, "hebrew": 0.08, "html": 0.10,
         "japanese": 0.09, "json": 0.12, "korean": 0.08, "latin": 0.11, "markdown-table": 0.09, "thai": 0.12},
        238, (OUT, OUT2, OUT3, OUT4)),
}
by_check = pytest.mark.parametrize("check", CHECKS.values(), ids=CHECKS.keys())


def _records(check: Check) -> list[dict]:
    return [json.loads(line) for line in check.path.read_text(encoding="utf-8").splitlines()]


@by_check
def test_a_check_reads_no_source_an_earlier_set_reads(check: Check) -> None:
    recs = _records(check)
    assert len(recs) >= check.min_texts and len({r["id"] for r in recs}) == len(recs)
    for r in recs:
        assert len(r["text"]) >= MIN_CHARS and r["split"] == "holdout"
        assert r["source"] and r["licence"] and r["package"] and r["kind"]
    read = {json.loads(line)["source"] for path in [*CORPUS.glob("*.jsonl"), *check.earlier]
            for line in path.read_text(encoding="utf-8").splitlines()}
    assert not read & {r["source"] for r in recs}
    assert REQUIRED | {"html", "english"} <= {r["category"] for r in recs}


@by_check
def test_no_category_of_a_check_is_off_beyond_its_bound(check: Check) -> None:
    _within_bounds(check.path, check.bounds)


@by_check
def test_most_texts_of_a_check_are_within_ten_percent(check: Check) -> None:
    enc = encoders()["o200k_base"]
    errors = [(tokens.estimate_text(r["text"]) - count(enc, r["text"])) / count(enc, r["text"])
              for r in _records(check)]
    assert sum(abs(e) <= 0.10 for e in errors) >= check.within_ten_percent
