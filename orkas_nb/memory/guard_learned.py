"""The learned layer of the memory guard: a small linear classifier over hashed n-grams.

The detectors read words and syntax a person listed; on paraphrases nobody listed they reach
about half of hostile entries (``tests/data/memory_guard/README.md``). This layer reads the
same entry as a bag of *hashed* features that need no word list and no tokenizer, so they hold
in any script (CJK and Thai without spaces too):

- character 1..5-grams of the normalised entry (:func:`.guard.normalise`, digits folded to
  ``0``), padded with a space at each end;
- word unigrams and bigrams (``\\w+`` runs).

Each feature is hashed into :data:`BUCKETS` buckets (a polynomial hash of the code points and a
multiply-shift, stable across processes, unlike ``hash``), counted, and the counts divided by
the square root of their sum; the score is a logistic regression on that, in ``[0, 1]`` (1:
reads like text planted for the assistant). Inference is NumPy only: a few dozen vector
operations per entry, no loop over its characters.

The weights are trained offline by ``tests/memory/train_guard_model.py`` on the committed
corpora (never on the ``holdout`` split) and shipped as ``data/guard_model.npz`` (int8, one
scale); ``data/guard_model.json`` records their SHA-256, the feature settings and the training
files, and the blend's weights. Both are loaded on first use only. How the score is combined
with the detectors (it may add a refusal, or overrule a soft detector hit) is :mod:`.guard_blend`.
"""

from __future__ import annotations

import hashlib
import json
import re
import zipfile
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

DATA = Path(__file__).resolve().parent / "data"
MODEL_FILE, RECORD_FILE = DATA / "guard_model.npz", DATA / "guard_model.json"
BITS = 18
BUCKETS = 1 << BITS
NGRAMS = (1, 2, 3, 4, 5)
VERSION = 1

_P = 0x100000001B3  # FNV prime: the polynomial over code points (odd, so invertible mod 2**64)
_PINV = pow(_P, -1, 1 << 64)
_MIX = np.uint64(0x9E3779B97F4A7C15)  # golden-ratio multiplier of the multiply-shift hash
_SHIFT = np.uint64(64 - BITS)
_DIGITS = re.compile(r"\d")
# Word separators: ASCII spaces and punctuation, and the CJK punctuation (words of scripts
# written without spaces are whole clauses then; their character n-grams carry them).
_SEPARATORS = np.zeros(0x10000, dtype=bool)
_SEPARATORS[[ord(c) for c in " !\"#$%&'()*+,-./:;<=>?@[\\]^`{|}~。，、！？：；「」『』（）【】《》・…"]] = True
_SALT = {"w": np.uint64(0x51ED27), "b": np.uint64(0xB16A4D)}


def _text(flat: str) -> str:
    return " " + _DIGITS.sub("0", flat) + " "


@lru_cache(maxsize=4)
def _powers(n: int) -> tuple[np.ndarray, np.ndarray]:
    with np.errstate(over="ignore"):
        up = np.cumprod(np.full(n, _P, dtype=np.uint64), dtype=np.uint64) // np.uint64(_P)
        down = np.cumprod(np.full(n, _PINV, dtype=np.uint64), dtype=np.uint64)
    return up, down


def _buckets(text: str) -> np.ndarray:
    """Bucket ids of the character n-grams and the word uni/bigrams of ``text``.

    The polynomial hash of a span ``a..b`` is ``P**b * (C[b] - C[a-1])`` with ``C`` the running
    sum of ``cp[j] * P**-j``: every span is hashed by a few vector operations (and hashes the
    same wherever it stands), with no Python loop over the text."""
    cps = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
    n = len(cps)
    size = 1 << max(n, 1).bit_length()  # the powers cached for a few lengths, not every one
    up, down = _powers(size)
    up, down = up[:n], down[:n]
    with np.errstate(over="ignore"):  # the hashes wrap modulo 2**64 on purpose
        c = np.concatenate([np.zeros(1, dtype=np.uint64), np.cumsum(cps * down, dtype=np.uint64)])
        parts = []
        for k in NGRAMS:
            if n < k:
                break
            parts.append((up[k - 1 :] * (c[k:] - c[: n + 1 - k]) + np.uint64(k)) * _MIX)
        sep = _SEPARATORS[np.minimum(cps, 0xFFFF)]
        edges = np.flatnonzero(np.diff(np.concatenate([[True], sep, [True]]).astype(np.int8)))
        starts, stops = edges[0::2], edges[1::2] - 1
        if len(starts):
            words = up[stops] * (c[stops + 1] - c[starts])
            parts.append((words ^ _SALT["w"]) * _MIX)
            parts.append(((words[:-1] * np.uint64(_P) + words[1:]) ^ _SALT["b"]) * _MIX)
    return (np.concatenate(parts) >> _SHIFT) if parts else np.zeros(0, dtype=np.uint64)


def buckets(flat: str) -> np.ndarray:
    """The bucket of every feature occurrence in a normalised entry (repeats repeated)."""
    return _buckets(_text(flat)).astype(np.intp)


def features(flat: str) -> tuple[np.ndarray, np.ndarray]:
    """Distinct bucket indices and their values for a normalised entry: counts over the square
    root of the number of occurrences, so ``weights[buckets].sum() / sqrt(len(buckets))`` (what
    :meth:`Model.score` computes, with no sort) is the dot product with them."""
    b = buckets(flat)
    idx, counts = np.unique(b, return_counts=True)
    return idx, counts / np.sqrt(max(len(b), 1))


@dataclass(frozen=True)
class Model:
    weights: np.ndarray  # float32, BUCKETS
    bias: float
    record: dict[str, Any]
    _blends: dict[bool, Any] = field(default_factory=dict, compare=False, repr=False)

    def blend(self, *, encoder: bool = False) -> Any:
        """The record's :class:`.guard_blend.Blend` (with or without the encoder's logit), built
        on first use and kept: every memory scan reads it."""
        if encoder not in self._blends:
            from .guard_blend import Blend  # the blend reads the scope analysis: loaded with it

            self._blends[encoder] = Blend.from_record(self.record, encoder=encoder)
        return self._blends[encoder]

    def logit(self, flat: str) -> float:
        b = buckets(flat)
        return float(self.weights[b].sum()) / float(np.sqrt(max(len(b), 1))) + self.bias

    def score(self, flat: str) -> float:
        """The text classifier alone, in ``[0, 1]``."""
        return 1.0 / (1.0 + float(np.exp(-self.logit(flat))))


def file_sha256(path: Path = MODEL_FILE) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@lru_cache(maxsize=1)
def model() -> Model | None:
    """The shipped model, loaded once; ``None`` when its file is missing or does not match its
    record (the guard then runs on the detectors alone, as before this layer)."""
    try:
        record = json.loads(RECORD_FILE.read_text(encoding="utf-8"))
        if record.get("version") != VERSION or record.get("sha256") != file_sha256():
            return None
        with np.load(MODEL_FILE) as z:
            weights = z["weights"].astype(np.float32) * np.float32(z["scale"])
            bias = float(z["bias"])
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return None
    if weights.shape != (BUCKETS,):
        return None
    return Model(weights, bias, record)


def score(flat: str) -> float | None:
    """The learned score of a normalised entry, or ``None`` without a model."""
    m = model()
    return None if m is None else m.score(flat)
