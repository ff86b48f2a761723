"""docs/architecture.md names files, classes, functions and methods: each must exist.

The page follows one ``%%agent`` cell through the code; a rename that leaves it behind fails
here instead of misleading the next reader.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "orkas_nb"
DOC = REPO / "docs" / "architecture.md"

_CITED_IN_FILE = re.compile(r"`([\w/]+\.py): ([\w.]+)`")
_FILE = re.compile(r"`([\w/]+\.py)\b")
_DOTTED = re.compile(r"`([A-Za-z_]\w*)\.([A-Za-z_]\w*)`")
_NAME = re.compile(r"`([A-Z]\w+|[a-z_]+_[a-z_]+)`")


def _definitions(tree: ast.AST) -> dict[str, set[str]]:
    """Top-level and class-level names: {name: its members} (functions have none)."""
    found: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            found[node.name] = {n.name for n in node.body
                                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.setdefault(node.name, set())
        elif isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    found.setdefault(t.id, set())
    return found


def _index() -> dict[Path, dict[str, set[str]]]:
    return {p: _definitions(ast.parse(p.read_text(encoding="utf-8"))) for p in PACKAGE.rglob("*.py")}


def _path(rel: str) -> Path:
    """A cited path: inside the package (``harness/runner.py``) or the repository (``tests/…``)."""
    return REPO / rel if rel.startswith(("tests/", "docs/")) else PACKAGE / rel


def test_every_cited_file_and_name_exists() -> None:
    text = DOC.read_text(encoding="utf-8")
    index = _index()
    everywhere: dict[str, set[str]] = {}
    for defs in index.values():
        for name, members in defs.items():
            everywhere.setdefault(name, set()).update(members)
    missing = [f"file {rel}" for rel in set(_FILE.findall(text)) if not _path(rel).is_file()]
    for rel, name in _CITED_IN_FILE.findall(text):
        defs = index.get(_path(rel), {})
        head, _, member = name.partition(".")
        if head not in defs or (member and member not in defs[head]):
            missing.append(f"{name} in {rel}")
    for owner, member in _DOTTED.findall(text):
        if owner in everywhere and member not in everywhere[owner]:
            missing.append(f"{owner}.{member}")
    for name in set(_NAME.findall(text)):
        if name not in everywhere:
            missing.append(name)
    assert missing == [], missing


def test_the_check_catches_a_stale_name(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    stale = tmp_path / "architecture.md"
    stale.write_text("`harness/runner.py: Runner` then `harness/runner.py: NoSuchThing`, "
                     "`Runner.no_such_method`, `gone/file.py` and `NoSuchClass`\n", encoding="utf-8")
    monkeypatch.setattr(sys.modules[__name__], "DOC", stale)
    try:
        test_every_cited_file_and_name_exists()
    except AssertionError as exc:
        message = str(exc)
    else:
        raise AssertionError("a stale page passed")
    for stale_name in ("NoSuchThing", "Runner.no_such_method", "gone/file.py", "NoSuchClass"):
        assert stale_name in message
