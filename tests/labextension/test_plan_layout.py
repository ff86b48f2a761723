"""The labextension's plan layout, run by node on the compiled module (``labextension/lib``):
the seed's dependencies (wait_for absent = the previous step, [] = none) and the layered
placement the view draws from. The DOM side is tests/browser/test_plan_view.py."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LIB = REPO / "labextension" / "lib"
SRC = REPO / "labextension" / "src"


def _need_node_and_lib() -> str:
    node = shutil.which("node")
    why = ("node is not installed" if node is None else
           None if (LIB / "layout.js").exists() else
           "the labextension is not built (pip install -e ., or npm run build in labextension/)")
    if why is not None:
        if os.environ.get("CI") or os.environ.get("ORKAS_CI"):
            pytest.fail(why)
        pytest.skip(why)
    return str(node)


def _layout(tmp_path: Path, steps: list[dict[str, object]]) -> dict[str, object]:
    node = _need_node_and_lib()
    module = tmp_path / "layout.mjs"  # the compiled ES module, imported as one
    module.write_text((LIB / "layout.js").read_text(encoding="utf-8"), encoding="utf-8")
    script = tmp_path / "run.mjs"
    script.write_text(
        "import { dependencies, layoutPlan } from './layout.mjs';\n"
        f"const steps = {json.dumps(steps)};\n"
        "const l = layoutPlan(steps);\n"
        "console.log(JSON.stringify({deps: Object.fromEntries(dependencies(steps)),\n"
        "  nodes: Object.fromEntries([...l.nodes].map(([i, b]) => [i, [b.x, b.y]])),\n"
        "  width: l.width, height: l.height}));\n", encoding="utf-8")
    out = subprocess.run([node, str(script)], capture_output=True, text=True, timeout=60, check=True)
    return json.loads(out.stdout)


def _step(index: int, wait_for: list[int] | None = None, **extra: object) -> dict[str, object]:
    step: dict[str, object] = {"index": index, "title": f"s{index}", "status": "pending", **extra}
    if wait_for is not None:
        step["wait_for"] = wait_for
    return step


def test_absent_wait_for_is_the_previous_step_and_empty_is_none(tmp_path: Path) -> None:
    got = _layout(tmp_path, [_step(1), _step(2), _step(3, []), _step(4, [2, 3]), _step(6)])
    assert got["deps"] == {"1": [], "2": [1], "3": [], "4": [2, 3], "6": [4]}


def test_a_step_is_drawn_right_of_what_it_waits_for(tmp_path: Path) -> None:
    # the seed's diamond: two research steps, a summary waiting for both, then a last step
    got = _layout(tmp_path, [_step(1, []), _step(2, []), _step(3, [1, 2]), _step(4)])
    x = {int(k): v[0] for k, v in got["nodes"].items()}
    y = {int(k): v[1] for k, v in got["nodes"].items()}
    assert x[1] == x[2] < x[3] < x[4]
    assert y[1] != y[2]
    assert got["width"] > x[4] and got["height"] > max(y.values())


def test_the_views_status_words_are_the_seeds(tmp_path: Path) -> None:
    """The TypeScript status union and status words name exactly the kernel's statuses."""
    from typing import get_args

    from orkas_nb.notebook.views.plan_picture import StepStatus

    protocol = (SRC / "protocol.ts").read_text(encoding="utf-8")
    union = re.search(r"status: ((?:'[a-z_]+'(?: \| )?)+);\n  output_summary", protocol)
    assert union is not None
    assert set(re.findall(r"'([a-z_]+)'", union.group(1))) == set(get_args(StepStatus))
    plan = (SRC / "plan.ts").read_text(encoding="utf-8")
    words = re.search(r"STATUS_WORDS: Record<string, string> = \{(.*?)\};", plan, re.S)
    assert words is not None
    assert set(re.findall(r"^\s*([a-z_]+):", words.group(1), re.M)) == set(get_args(StepStatus))
