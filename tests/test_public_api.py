"""What the README tells users to use is importable from ``orkas_nb`` itself, lazily."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from pathlib import Path

import orkas_nb

REPO = Path(__file__).resolve().parents[1]


def test_every_lazy_name_is_the_object_defined_below() -> None:
    for name, (module, attr) in orkas_nb._LAZY.items():
        assert getattr(orkas_nb, name) is getattr(importlib.import_module(module), attr), name


def test_the_options_the_readme_names_need_no_deep_import() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for name in ("RunConfig", "RetryPolicy", "ContextOverflowError"):
        assert re.search(rf"`{name}\b", readme), f"the README no longer names {name}"
    for name in ("Agent", "tool", "RunConfig", "RetryPolicy", "RecordingProvider",
                 "ReplayProvider", "ContextOverflowError", "ScriptedModel", "RunResult"):
        assert name in orkas_nb.__all__ and getattr(orkas_nb, name) is not None, name


def test_import_orkas_nb_loads_none_of_them() -> None:
    code = ("import sys, orkas_nb\n"
            "print(sorted(m for m in sys.modules if m.startswith('orkas_nb.')\n"
            "             and m != 'orkas_nb._version'))")  # the leaf holding one constant
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, cwd=REPO, check=True)
    assert out.stdout.strip() == "[]", out.stdout
