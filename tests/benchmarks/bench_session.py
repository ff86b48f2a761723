"""Session benchmark: load + repair of a 10,000-message (~20 MB) session, and append latency.

Run: ``python tests/benchmarks/bench_session.py [--messages 10000] [--appends 2000]``

Baselines measured in the same run: ``json.loads`` of every line (the floor for loading) and a
bare ``os.write`` of the same bytes (the floor for appending). Targets (issue 2): load + repair
<= 0.5 s; append p99 <= 2 ms without fsync.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from orkas_nb.core.messages import (  # noqa: E402
    AssistantMessage,
    TextBlock,
    ToolCallBlock,
    ToolResultMessage,
    user_message,
)
from orkas_nb.harness.session import JsonlSession, encode_line  # noqa: E402


def build(n: int) -> list:
    text = ("The quarterly numbers moved as expected; " * 60)[:2200]
    out = []
    i = 0
    while len(out) < n:
        out.append(user_message(f"question {i}: {text}"))
        call = ToolCallBlock(id=f"c{i}", name="read_file", arguments={"path": f"data/{i}.csv"})
        out.append(AssistantMessage(content=[TextBlock(text=text[:400]), call], provider="p", model="m"))
        out.append(ToolResultMessage(tool_call_id=f"c{i}", name="read_file", content=[TextBlock(text=text)]))
        out.append(AssistantMessage(content=[TextBlock(text=text)], provider="p", model="m"))
        i += 1
    out = out[:n]
    # Leave the last turn interrupted so repair has work to do.
    out.append(AssistantMessage(content=[ToolCallBlock(id="open", name="read_file", arguments={})]))
    return out


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--messages", type=int, default=10_000)
    ap.add_argument("--appends", type=int, default=2_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.jsonl"
        data = b"".join(encode_line(m) for m in build(args.messages))
        size_mb = len(data) / 1e6

        floor, load = [], []
        for _ in range(args.repeat):
            path.write_bytes(data)
            t = time.perf_counter()
            [json.loads(line) for line in data.splitlines()]
            floor.append(time.perf_counter() - t)
            t = time.perf_counter()
            s = JsonlSession(path, readonly=True)  # parse + validate + repair, no persist
            n = len(s.messages)
            load.append(time.perf_counter() - t)
        print(f"load + repair of {n} messages ({size_mb:.1f} MB): "
              f"median {statistics.median(load) * 1000:.0f} ms "
              f"(json.loads floor {statistics.median(floor) * 1000:.0f} ms, "
              f"ratio {statistics.median(load) / statistics.median(floor):.2f}x)  target <= 500 ms")

        sample = build(400)
        for durable in (False, True):
            p = Path(tmp) / f"append-{durable}.jsonl"
            bare = Path(tmp) / f"bare-{durable}.jsonl"
            s = JsonlSession(p, durable=durable)
            fd = os.open(bare, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            times, floor_times = [], []
            for i in range(args.appends):
                m = sample[i % len(sample)].model_copy(update={"id": f"m{i}"})
                t = time.perf_counter()
                s.append(m)
                times.append(time.perf_counter() - t)
                line = m.model_dump_json().encode() + b"\n"
                t = time.perf_counter()
                os.write(fd, line)
                if durable:
                    os.fsync(fd)
                floor_times.append(time.perf_counter() - t)
            s.close()
            os.close(fd)
            label = "with fsync" if durable else "without fsync"
            print(f"append {label}: p50 {pct(times, .5) * 1e3:.3f} ms, p99 {pct(times, .99) * 1e3:.3f} ms "
                  f"(bare write floor p50 {pct(floor_times, .5) * 1e3:.3f} ms, "
                  f"p99 {pct(floor_times, .99) * 1e3:.3f} ms)"
                  + ("  target p99 <= 2 ms" if not durable else ""))


if __name__ == "__main__":
    main()
