"""Nothing imports upward (SPEC §2): checked on every import statement, lazy ones included."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "orkas_nb"

LEVEL = {
    "core": 0,
    "providers": 1,
    "testing": 1,  # a provider (ScriptedModel): core and providers only
    "harness": 2,
    "tools": 3,
    "memory": 3,
    "team": 3,
    "connectors": 3,
    "agent": 4,
    "notebook": 5,
}


def imported_subpackages(source: str, module: str) -> list[tuple[int, str]]:
    """(line, orkas_nb subpackage) for every import in ``module``'s source, relative ones resolved."""
    package = module.split(".")[:-1]  # for a/b.py and a/b/__init__.py (module "a.b.__init__") alike
    found = []
    for node in ast.walk(ast.parse(source)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                head = ".".join(base + ([node.module] if node.module else []))
                names = [head] if node.module else [f"{head}.{a.name}" for a in node.names]
            else:
                names = [node.module or ""]
        for name in names:
            parts = name.split(".")
            if parts[0] == "orkas_nb" and len(parts) > 1 and parts[1] in LEVEL:
                found.append((node.lineno, parts[1]))
    return sorted(found)


def test_no_module_imports_a_higher_layer() -> None:
    violations = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).parts
        if len(parts) < 2 or parts[0] not in LEVEL:
            continue  # orkas_nb/__init__.py and __main__.py sit above every layer
        module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        for line, target in imported_subpackages(path.read_text(encoding="utf-8"), module):
            if LEVEL[target] > LEVEL[parts[0]]:
                violations.append(f"{path.relative_to(PACKAGE.parent)}:{line} imports orkas_nb.{target}")
    assert violations == []


def test_the_checker_resolves_relative_lazy_and_package_imports() -> None:
    src = "from ..agent import Agent\ndef f():\n    import orkas_nb.notebook.magics\nfrom . import session\n"
    assert imported_subpackages(src, "orkas_nb.harness.runner") == [
        (1, "agent"), (3, "notebook"), (4, "harness")
    ]
    assert imported_subpackages("from .. import tools\n", "orkas_nb.harness.__init__") == [(1, "tools")]
