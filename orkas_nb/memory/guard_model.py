"""The learned layer of the memory guard: a linear model over language-independent features.

The detectors recognise structures they have words for; a paraphrase by another writer, in
another language, slips past a missing word. This layer scores what the detectors cannot
name, from features that do not depend on a word list:

- the **shape** of the text: letters folded to ``a``/``A``/``x`` (Latin lower, Latin upper,
  any other script), digits to ``0``, runs collapsed, punctuation kept, so ``$HF_TOKEN``,
  ``~/.kube/config``, ``![x](https://h/p.png?d=X)``, ``--force``, ``| python`` and ``sk-…``
  look alike in every language;
- character n-grams (1–4) of the normalised text and its short words, hashed: the
  vocabulary of every script at once, with no tokeniser;
- the detectors' own findings (category, sure or doubtful) and the doubtful band's families.

The weights (``data/guard_model.bin``, float32, and ``guard_model.json``: dimension, bias,
thresholds) are fitted by ``tests/memory/fit_guard_model.py`` on the committed corpus, with
the thresholds chosen on out-of-fold scores so that benign entries keep their rate; they load
on the first scan, so ``import orkas_nb`` stays light. A score at or above
:data:`Model.refuse` refuses the entry; at or above :data:`Model.ask` it joins the doubtful
band (the user's consent, or a judge).
"""

from __future__ import annotations

import json
import math
import re
import sys
import zlib
from array import array
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
WEIGHTS, META = DATA / "guard_model.bin", DATA / "guard_model.json"
DIM = 1 << 15

_WORD = re.compile(r"\w+")


def _shape(nfkc: str) -> str:
    out = []
    for ch in nfkc:
        if ch.isdigit():
            c = "0"
        elif ch.isalpha():
            c = ("A" if ch.isupper() else "a") if ch.isascii() else "x"
        elif ch.isspace():
            c = " "
        else:
            c = ch
        if not out or out[-1] != c or c not in "aAx0 ":
            out.append(c)
    return "".join(out)


def _hash(feature: str) -> int:
    return zlib.crc32(feature.encode("utf-8")) % DIM


def _ngrams(prefix: str, text: str, low: int, high: int) -> set[str]:
    padded = f" {text} "
    return {prefix + padded[i:i + n] for n in range(low, high + 1) for i in range(len(padded) - n + 1)}


Features = tuple[list[int], list[float]]


def features(flat: str, nfkc: str, marks: Iterable[str]) -> Features:
    """Hashed feature indices and values: text n-grams and shapes scaled to unit length, the
    detectors' marks (findings, band families) at 1 each."""
    text = _ngrams("c", flat, 1, 4) | _ngrams("s", _shape(nfkc), 2, 5)
    text |= {"w" + w for w in _WORD.findall(flat) if len(w) <= 20}
    scale = 1 / math.sqrt(max(len(text), 1))
    weights: dict[int, float] = {}
    for f in text:
        i = _hash(f)
        weights[i] = weights.get(i, 0.0) + scale
    for m in set(marks):
        i = _hash("m" + m)
        weights[i] = weights.get(i, 0.0) + 1.0
    return list(weights), list(weights.values())


def marks(found: Iterable[object], families: Iterable[str], ask: bool) -> list[str]:
    """The detectors' doubtful findings and the band's families, as feature names. Sure
    findings are left out: an entry with one is refused before the model is asked, so the
    model learns from the text, not from the detectors' verdicts."""
    out = [f"{f.category}:doubt" for f in found if not f.sure]  # type: ignore[attr-defined]
    out += [f"band:{name}" for name in families]
    return out + (["band:ask"] if ask else [])


@dataclass(frozen=True)
class Model:
    weights: array
    bias: float
    refuse: float
    ask: float

    def score(self, idx: list[int], val: list[float]) -> float:
        z = self.bias + sum(self.weights[i] * v for i, v in zip(idx, val))
        return 1 / (1 + math.exp(-max(min(z, 40.0), -40.0)))


@lru_cache(maxsize=1)
def load() -> Model | None:
    """The shipped model, or None when its files are missing (the layer is then off)."""
    try:
        meta = json.loads(META.read_text(encoding="utf-8"))
        weights = array("f")
        weights.frombytes(WEIGHTS.read_bytes())
        if sys.byteorder == "big":  # the file is little-endian
            weights.byteswap()
    except (OSError, ValueError):
        return None
    if meta.get("dim") != DIM or len(weights) != DIM:
        return None
    return Model(weights, float(meta["bias"]), float(meta["refuse"]), float(meta["ask"]))
