"""The SPEC's layer table (§2), checked on every import statement, lazy ones included.

Each package may import only what its row allows: a package name allows all of it, a
``package.module`` name only that module (``providers.base`` is the provider *protocol*; the
registry, the clients and the cassettes are for the composition root and the notebook).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "orkas_nb"

_PROTOCOL = {"core", "providers.base"}
_CAPABILITY = {*_PROTOCOL, "harness", "documents"}
_BELOW_NOTEBOOK = {"core", "providers", "testing", "documents", "harness",
                   "tools", "memory", "team", "connectors"}

# package -> what it may import from orkas_nb (besides itself). SPEC §2, plus two leaves the
# table does not name: ``testing`` (ScriptedModel, a provider) and ``documents`` (text out of
# PDF/Office files, shared by the tools and the knowledge base, which may not import each other).
ALLOWED: dict[str, set[str]] = {
    "core": set(),  # stdlib and pydantic only: see THIRD_PARTY
    "providers": {"core"},
    "testing": {"core", "providers"},
    "documents": {"core"},
    "harness": set(_PROTOCOL),  # core, providers (protocol only)
    "tools": set(_CAPABILITY),  # core, harness
    "memory": set(_CAPABILITY),
    "team": set(_CAPABILITY),
    "connectors": set(_CAPABILITY),
    "agent": set(_BELOW_NOTEBOOK),  # everything except notebook
    "notebook": {*_BELOW_NOTEBOOK, "agent"},  # everything; nothing imports it
}

# ``orkas_nb`` itself re-exports the Agent and the notebook's extension hooks: it is the top.
TOP = "<orkas_nb top level>"

# Third-party packages a layer may import at all (None: any); core is stdlib and pydantic.
THIRD_PARTY: dict[str, set[str] | None] = {"core": {"pydantic", "pydantic_core", "typing_extensions"}}


def _names(node: ast.AST, package: list[str]) -> list[str]:
    """The dotted names an import statement reaches (``from a import b`` reaches ``a.b``)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    if node.level:
        base = ".".join(package[: len(package) - (node.level - 1)])
        head = f"{base}.{node.module}" if node.module else base
    else:
        head = node.module or ""
    return [f"{head}.{a.name}" for a in node.names]


def imported_modules(source: str, module: str) -> list[tuple[int, str]]:
    """(line, name) for every import in ``module``'s source: ``pkg.mod`` inside orkas_nb (or
    ``pkg`` alone), the top-level name outside it; relative imports resolved."""
    package = module.split(".")[:-1]  # for a/b.py and a/b/__init__.py (module "a.b.__init__") alike
    found = []
    for node in ast.walk(ast.parse(source)):
        for name in _names(node, package):
            parts = name.split(".")
            if parts[0] != "orkas_nb":
                found.append((node.lineno, "!" + parts[0]))  # "!": outside orkas_nb
            elif len(parts) > 1 and parts[1] in ALLOWED:
                found.append((node.lineno, ".".join(parts[1:3])))
            elif len(parts) > 1 and parts[1] not in ("__version__", "_version"):  # a constant
                found.append((node.lineno, TOP))  # the facade: ``from orkas_nb import Agent``
    return sorted(set(found))


def imported_subpackages(source: str, module: str) -> list[tuple[int, str]]:
    """(line, orkas_nb subpackage) for every import in ``module``'s source, relative ones resolved."""
    return sorted({(line, name.split(".")[0]) for line, name in imported_modules(source, module)
                   if not name.startswith("!")})


def violations_of(layer: str, found: list[tuple[int, str]]) -> list[tuple[int, str]]:
    allowed, third_party = ALLOWED[layer], THIRD_PARTY.get(layer)
    bad = []
    for line, name in found:
        if name.startswith("!"):
            top = name[1:]
            if third_party is not None and top not in sys.stdlib_module_names | third_party:
                bad.append((line, top))
        elif name.split(".")[0] != layer and name not in allowed and name.split(".")[0] not in allowed:
            bad.append((line, name if name == TOP else f"orkas_nb.{name}"))
    return bad


def test_every_package_is_in_the_table() -> None:
    packages = {p.parent.name for p in PACKAGE.glob("*/__init__.py")}
    assert packages <= set(ALLOWED), f"add {sorted(packages - set(ALLOWED))} to the layer table"


def test_no_module_imports_what_its_layer_may_not() -> None:
    violations = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).parts
        if len(parts) < 2:
            continue  # orkas_nb/__init__.py and __main__.py sit above every layer
        module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        found = imported_modules(path.read_text(encoding="utf-8"), module)
        for line, name in violations_of(parts[0], found):
            violations.append(f"{path.relative_to(PACKAGE.parent)}:{line} imports {name}")
    assert violations == []


def test_the_checker_resolves_relative_lazy_and_package_imports() -> None:
    src = "from ..agent import Agent\ndef f():\n    import orkas_nb.notebook.magics\nfrom . import session\n"
    assert imported_subpackages(src, "orkas_nb.harness.runner") == [
        (1, "agent"), (3, "notebook"), (4, "harness")
    ]
    assert imported_subpackages("from .. import tools\n", "orkas_nb.harness.__init__") == [(1, "tools")]


def test_the_table_is_read_per_module_and_per_package() -> None:
    src = ("from ..providers.base import ModelRequest\nfrom ..providers import registry\n"
           "def f():\n    from ..providers.registry import resolve_model\n"
           "from ..tools.approval import Decision\nfrom ..harness.tool_protocol import tool\n")
    found = imported_modules(src, "orkas_nb.memory.judge")
    assert violations_of("memory", found) == [
        (2, "orkas_nb.providers.registry"), (4, "orkas_nb.providers.registry"),
        (5, "orkas_nb.tools.approval"),
    ]
    assert violations_of("agent", found) == []
    facade = imported_modules("from .. import Agent\n", "orkas_nb.tools.files")
    assert violations_of("tools", facade) == [(1, TOP)]
    assert violations_of("harness", imported_modules("from ..providers import LLMProvider\n",
                                                     "orkas_nb.harness.runner")) == [
        (1, "orkas_nb.providers.LLMProvider")  # the protocol comes from providers.base by name
    ]


def test_core_imports_only_the_standard_library_and_pydantic() -> None:
    src = "import json\nfrom pydantic import BaseModel\nimport httpx\ndef f():\n    import numpy\n"
    found = imported_modules(src, "orkas_nb.core.messages")
    assert violations_of("core", found) == [(3, "httpx"), (5, "numpy")]
    assert violations_of("tools", found) == []
