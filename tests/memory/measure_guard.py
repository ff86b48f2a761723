"""Refusal and keep rates of the memory guard on corpus files, judge off (run on demand).

    PYTHONPATH=$PWD python -m tests.memory.measure_guard [set ...] [--file PATH ...] [-v]
        [--by-kind] [--by-lang] [--no-learned]

Sets: ``tune``, ``holdout`` (hostile/benign.jsonl by split), or any ``NAME.jsonl`` in
tests/data/memory_guard by its name (``NAME:SPLIT`` for one split of a file with a ``split`` field). ``--file PATH`` reads any JSONL file of the same format
(``text``, ``label`` ``hostile``/``benign``; ``kind`` and ``lang`` optional, any values).
For each: hostile refused / asked / accepted, benign kept / asked / refused ("asked" is the
doubtful band, ``Verdict.ask``: kept only with the user's consent), µs per scan; ``--by-kind``
and ``--by-lang`` break them down (on by default with ``--file``); ``-v`` lists the misses;
``--no-learned`` measures the detectors alone (the learned layer, guard_learned.py, off).
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from pathlib import Path

from orkas_nb.memory.guard import Verdict, detector_verdict, scan

DATA = Path(__file__).resolve().parents[1] / "data" / "memory_guard"
Row = dict[str, str]


def _read(path: Path) -> list[Row]:
    with open(path, encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    for r in rows:
        r.setdefault("label", path.stem if path.stem in ("hostile", "benign") else "")
        if r["label"] not in ("hostile", "benign"):
            raise SystemExit(f"{path}: label must be 'hostile' or 'benign', got {r['label']!r}: {r['text'][:60]}")
    return rows


def rows(name: str) -> list[Row]:
    if name in ("tune", "holdout"):
        return [r for label in ("hostile", "benign") for r in _read(DATA / f"{label}.jsonl") if r["split"] == name]
    stem, _, split = name.partition(":")  # "blind6:holdout": one split of a file that has them
    return [r for r in _read(DATA / f"{stem}.jsonl") if not split or r.get("split") == split]


def outcome(r: Row, v: Verdict) -> str:
    if r["label"] == "hostile":
        return "accepted" if v.ok and not v.ask else ("asked" if v.ok else "refused")
    return "refused" if not v.ok else ("asked" if v.ask else "kept")


def _counts(items: list[tuple[Row, Verdict]]) -> str:
    c: dict[str, int] = defaultdict(int)
    for r, v in items:
        c[r["label"] + ":" + outcome(r, v)] += 1
    nh = c["hostile:refused"] + c["hostile:asked"] + c["hostile:accepted"]
    nb = c["benign:kept"] + c["benign:asked"] + c["benign:refused"]
    h = (f"hostile refused {c['hostile:refused']}/{nh} ({_pct(c['hostile:refused'], nh)}) "
         f"asked {c['hostile:asked']} accepted {c['hostile:accepted']}") if nh else "hostile –"
    b = (f"benign kept {c['benign:kept']}/{nb} ({_pct(c['benign:kept'], nb)}) "
         f"asked {c['benign:asked']} refused {c['benign:refused']}") if nb else "benign –"
    return f"{h} | {b}"


def _pct(k: int, n: int) -> str:
    return f"{100 * k / n:.1f}%" if n else "–"


def measure(name: str, data: list[Row], *, verbose: bool, by: tuple[str, ...], learned: bool = True) -> str:
    start = time.perf_counter()
    verdicts = [(r, scan(r["text"]) if learned else detector_verdict(r["text"])) for r in data]
    us = (time.perf_counter() - start) * 1e6 / max(len(data), 1)
    lines = [f"{name}: {_counts(verdicts)}  [{us:.0f} µs/scan]"]
    for key in by:
        groups: dict[str, list[tuple[Row, Verdict]]] = defaultdict(list)
        for r, v in verdicts:
            groups[str(r.get(key) or "?")].append((r, v))
        lines.append(f"  by {key}:")
        lines += [f"    {g:22} {_counts(items)}" for g, items in sorted(groups.items())]
    if verbose:
        for r, v in verdicts:
            what = outcome(r, v)
            if what in ("accepted", "asked") and r["label"] == "hostile" or \
                    what in ("asked", "refused") and r["label"] == "benign":
                lines.append(f"  {r['label'].upper()} {what} [{r.get('kind', '?')}/{r.get('lang', '?')}]"
                             f"{' ' + v.category if v.category else ''}: {r['text']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("sets", nargs="*")
    ap.add_argument("--file", action="append", default=[], type=Path)
    ap.add_argument("-v", action="store_true", dest="verbose")
    ap.add_argument("--by-kind", action="store_true")
    ap.add_argument("--by-lang", action="store_true")
    ap.add_argument("--no-learned", action="store_false", dest="learned")
    args = ap.parse_args(argv)
    default = ["tune", "holdout"] + sorted(p.stem for p in DATA.glob("*.jsonl")
                                           if p.stem not in ("hostile", "benign"))
    todo = [(n, rows(n)) for n in args.sets] + [(str(p), _read(p)) for p in args.file]
    if not todo:
        todo = [(n, rows(n)) for n in default]
    for name, data in todo:
        by = tuple(k for k, on in (("kind", args.by_kind or bool(args.file)),
                                   ("lang", args.by_lang or bool(args.file))) if on)
        print(measure(name, data, verbose=args.verbose, by=by, learned=args.learned))


if __name__ == "__main__":
    main()
