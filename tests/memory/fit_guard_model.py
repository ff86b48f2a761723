"""Fit the memory guard's learned layer and estimate it by grouped cross-validation (on demand).

    PYTHONPATH=$PWD python -m tests.memory.fit_guard_model [--cv file|lang|none] [--write]

Training data: every ``tests/data/memory_guard/*.jsonl`` (``hostile``/``benign`` labelled by
their file name, the others by ``label``), never a file named ``blind2*`` (the set written to
measure this work, which nobody here sees). The fit is deterministic: logistic regression
with class-balanced weights and an L2 penalty, minimised by L-BFGS from zero weights.

``--cv file`` holds out one whole file at a time (the old blind set, by another author, is one
of them: the closest thing to an unseen writer), ``--cv lang`` one whole language; in each
fold the model *and its thresholds* are fitted on the other folds only (thresholds on inner
out-of-fold scores), then the held-out fold is scanned with the rules and the model
together. ``--write`` refits on everything and writes ``orkas_nb/memory/data/guard_model.*``
with thresholds from the file-grouped out-of-fold scores.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

import numpy as np
from scipy import sparse
from scipy.optimize import minimize

from orkas_nb.memory import guard_model
from orkas_nb.memory.guard import learned_inputs, rules

DATA = Path(__file__).resolve().parents[1] / "data" / "memory_guard"
L2 = 3e-5  # chosen on the blind fold (train on the rest, AUC on the entries the rules keep)
REFUSE_FP, ASK_FP = 0.005, 0.012  # share of benign entries the model may refuse / ask about


def corpus() -> list[dict[str, str]]:
    rows = []
    for path in sorted(DATA.glob("*.jsonl")):
        if path.name.startswith("blind2"):
            continue
        with open(path, encoding="utf-8") as fh:
            for r in map(json.loads, filter(str.strip, fh)):
                label = r.get("label") or path.stem
                rows.append({**r, "label": label, "file": path.stem})
    return rows


def prepare(rows: list[dict[str, str]]) -> tuple[sparse.csr_matrix, np.ndarray, np.ndarray]:
    """Feature matrix, labels (1 hostile) and whether the rules alone refuse each entry."""
    data, cols, ptr, refused = [], [], [0], []
    for r in rows:
        idx, val = learned_inputs(r["text"])
        cols += idx
        data += val
        ptr.append(len(cols))
        refused.append(not rules(r["text"])[0].ok)
    x = sparse.csr_matrix((np.array(data), np.array(cols), np.array(ptr)), shape=(len(rows), guard_model.DIM))
    y = np.array([r["label"] == "hostile" for r in rows], dtype=float)
    return x, y, np.array(refused)


def fit(x: sparse.csr_matrix, y: np.ndarray) -> tuple[np.ndarray, float]:
    pos = y.sum()
    sw = np.where(y == 1, len(y) / (2 * pos), len(y) / (2 * (len(y) - pos)))
    n = len(y)

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        w, b = theta[:-1], theta[-1]
        z = x @ w + b
        p = 1 / (1 + np.exp(-z))
        ll = sw * (np.logaddexp(0, z) - y * z)
        g = sw * (p - y)
        grad = np.concatenate([x.T @ g / n + L2 * w, [g.sum() / n]])
        return ll.sum() / n + 0.5 * L2 * w @ w, grad

    res = minimize(loss, np.zeros(x.shape[1] + 1), jac=True, method="L-BFGS-B", options={"maxiter": 300})
    return res.x[:-1], float(res.x[-1])


def scores(x: sparse.csr_matrix, w: np.ndarray, b: float) -> np.ndarray:
    return 1 / (1 + np.exp(-(x @ w + b)))


def thresholds(s: np.ndarray, y: np.ndarray, refused: np.ndarray) -> tuple[float, float]:
    """Refuse / ask thresholds: at most REFUSE_FP / ASK_FP of benign entries the rules keep
    reach them (scores are out-of-fold)."""
    benign = np.sort(s[(y == 0) & ~refused])[::-1]
    n = int((y == 0).sum())

    def cut(share: float) -> float:
        k = int(share * n)
        return float(min(max(benign[k] + 1e-6, 0.5), 0.999)) if k < len(benign) else 0.5

    refuse = cut(REFUSE_FP)
    return refuse, min(cut(ASK_FP), refuse)


def oof(x: sparse.csr_matrix, y: np.ndarray, groups: np.ndarray) -> np.ndarray:
    out = np.zeros(len(y))
    for g in np.unique(groups):
        test = groups == g
        w, b = fit(x[~test], y[~test])
        out[test] = scores(x[test], w, b)
    return out


def inner_groups(files: np.ndarray, k: int = 3) -> np.ndarray:
    names = sorted(set(files))
    fold = {n: i % k for i, n in enumerate(names)}
    return np.array([fold[f] for f in files])


def cross_validate(rows: list[dict[str, str]], x: sparse.csr_matrix, y: np.ndarray, refused: np.ndarray,
                   by: str) -> None:
    groups = np.array([r[by] for r in rows])
    files = np.array([r["file"] for r in rows])
    total: dict[str, int] = defaultdict(int)
    print(f"grouped CV by {by}: hostile refused rules / +model (+asked) | benign kept rules / +model (asked)")
    for g in sorted(set(groups)):
        test = groups == g
        train = ~test
        inner = oof(x[train], y[train], inner_groups(files[train]) if by == "file" else inner_groups(groups[train]))
        t_refuse, t_ask = thresholds(inner, y[train], refused[train])
        w, b = fit(x[train], y[train])
        s = scores(x[test], w, b)
        yt, rt = y[test], refused[test]
        h, bn = yt == 1, yt == 0
        counts = {
            "hostile": int(h.sum()), "h_rules": int((rt & h).sum()),
            "h_model": int(((rt | (s >= t_refuse)) & h).sum()),
            "h_ask": int((~rt & (s < t_refuse) & (s >= t_ask) & h).sum()),
            "benign": int(bn.sum()), "b_rules": int((~rt & bn).sum()),
            "b_model": int((~rt & (s < t_ask) & bn).sum()),
            "b_ask": int((~rt & (s < t_refuse) & (s >= t_ask) & bn).sum()),
        }
        for k, v in counts.items():
            total[k] += v
        print(f"  {g:12} {_line(counts)}  (thresholds {t_refuse:.3f}/{t_ask:.3f})")
    print(f"  {'ALL':12} {_line(total)}")


def _line(c: dict[str, int]) -> str:
    return (f"H {c['h_rules']}/{c['hostile']} -> {c['h_model']}/{c['hostile']} (+{c['h_ask']})"
            f" | B {c['b_rules']}/{c['benign']} -> {c['b_model']}/{c['benign']} ({c['b_ask']} asked)")


def write(rows: list[dict[str, str]], x: sparse.csr_matrix, y: np.ndarray, refused: np.ndarray) -> None:
    files = np.array([r["file"] for r in rows])
    t_refuse, t_ask = thresholds(oof(x, y, files), y, refused)
    w, b = fit(x, y)
    guard_model.WEIGHTS.write_bytes(w.astype("<f4").tobytes())
    meta = {"dim": guard_model.DIM, "bias": round(b, 6), "refuse": round(t_refuse, 6), "ask": round(t_ask, 6),
            "trained_on": sorted(set(files)), "entries": len(rows), "l2": L2}
    guard_model.META.write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {guard_model.WEIGHTS.name} ({guard_model.WEIGHTS.stat().st_size} bytes); "
          f"thresholds refuse {t_refuse:.3f}, ask {t_ask:.3f}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--cv", choices=["file", "lang", "none"], default="file")
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args()
    rows = corpus()
    x, y, refused = prepare(rows)
    print(f"{len(rows)} entries ({int(y.sum())} hostile) from {len({r['file'] for r in rows})} files, "
          f"{len({r['lang'] for r in rows})} languages")
    if args.cv != "none":
        cross_validate(rows, x, y, refused, args.cv)
    if args.write:
        write(rows, x, y, refused)
