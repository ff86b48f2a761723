"""No import circle between orkas_nb's modules (issue 14), lazy imports included.

The graph has one node per module (a package is its ``__init__``) and an edge for every import
that can run: module level, inside functions, and through a package's lazy-export map
(``_LAZY``). A lazy map is a function-level import spelled as data (``__getattr__`` imports
whichever module the name maps to), so the package has an edge to every module in its map, and
``from orkas_nb.memory import KnowledgeBase`` an edge to ``orkas_nb.memory.kb`` as well.
Imports under ``if TYPE_CHECKING:`` never run and are left out. Importing ``a.b.c`` also runs
the packages ``a.b`` and ``a`` unless the importer sits inside them (then they are already
running), so those packages are edges too.

A circle is a strongly connected component of more than one module; each is printed as one
path round it, with the line of each import on it.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Iterator
from pathlib import Path

from tests.test_layers import PACKAGE, _names

ROOT = PACKAGE.parent


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _running_imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement, at any depth, except those only a type checker runs."""
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))


def lazy_exports(tree: ast.Module, package: str) -> tuple[int, dict[str, str]]:
    """A package's ``_LAZY`` map as (its line, name -> module). Three spellings are in use: a
    tuple ``(module, attribute)``, a module relative to the package (``".kb"``) or a bare
    submodule name (``"registry"``)."""
    for node in tree.body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name) and node.targets[0].id == "_LAZY"):
            found: dict[str, str] = {}
            for name, target in ast.literal_eval(node.value).items():
                module = target[0] if isinstance(target, tuple) else target
                if module.startswith("."):
                    module = package + module
                elif not module.startswith("orkas_nb"):
                    module = f"{package}.{module}"
                found[name] = module
            return node.lineno, found
    return 0, {}


def import_graph(sources: dict[str, str], packages: set[str]) -> dict[str, dict[str, int]]:
    """module -> {module it imports: line of the first such import}, for ``sources`` given as
    module name -> source (``packages``: which of those names are packages)."""
    trees = {name: ast.parse(src) for name, src in sources.items()}
    lazy: dict[str, dict[str, str]] = {}
    graph: dict[str, dict[str, int]] = {}
    for name in packages:
        line, lazy[name] = lazy_exports(trees[name], name)
        graph[name] = {module: line for module in lazy[name].values()}
    for importer, tree in trees.items():
        # a package's relative imports are relative to itself, a module's to its package
        base = (importer if importer in packages else importer.rpartition(".")[0]).split(".")
        edges = graph.setdefault(importer, {})
        for node in _running_imports(tree):
            for name in _names(node, base):
                targets = set()
                parts = name.split(".")
                for i in range(len(parts), 0, -1):
                    prefix = ".".join(parts[:i])
                    if prefix in sources:
                        targets.add(prefix)
                        if i < len(parts) and parts[i] in lazy.get(prefix, {}):
                            targets.add(lazy[prefix][parts[i]])
                        # the packages above it run too, unless they hold the importer
                        targets |= {".".join(parts[:j]) for j in range(1, i)
                                    if not (importer + ".").startswith(".".join(parts[:j]) + ".")}
                        break
                for target in targets:
                    edges[target] = min(edges.get(target, node.lineno), node.lineno)
        edges.pop(importer, None)  # a module importing itself finds itself in sys.modules
    return graph


def components(graph: dict[str, dict[str, int]]) -> list[set[str]]:
    """The strongly connected components of more than one module (a module importing itself is
    no edge), in the order of their smallest names. Every edge between two modules of one
    component lies on a circle."""

    def reach(start: str, edges: dict[str, set[str]]) -> set[str]:
        seen, todo = {start}, [start]
        while todo:
            for nxt in edges.get(todo.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    forward = {a: set(b) for a, b in graph.items()}
    backward: dict[str, set[str]] = {}
    for a, targets in forward.items():
        for b in targets:
            backward.setdefault(b, set()).add(a)
    found, done = [], set()
    for node in sorted(forward):
        if node in done:
            continue
        component = reach(node, forward) & reach(node, backward)
        done |= component
        if len(component) > 1:
            found.append(component)
    return found


def circles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """One closed path ``[a, b, ..., a]`` per component, from its smallest name."""
    edges = {a: set(b) for a, b in graph.items()}
    return [_path_round(min(c), c, edges) for c in components(graph)]


def _path_round(start: str, component: set[str], edges: dict[str, set[str]]) -> list[str]:
    """A shortest path from ``start`` back to itself inside ``component`` (breadth first)."""
    previous: dict[str, str] = {}
    todo = [start]
    while todo:
        node = todo.pop(0)
        for nxt in sorted(edges[node] & component):
            if nxt == start:
                path = [node]
                while path[-1] != start:
                    path.append(previous[path[-1]])
                return [*reversed(path), start]
            if nxt not in previous:
                previous[nxt] = node
                todo.append(nxt)
    raise AssertionError(f"{start} is not on a circle")


def package_graph() -> dict[str, dict[str, int]]:
    paths = sorted(PACKAGE.rglob("*.py"))
    sources = {module_name(p): p.read_text(encoding="utf-8") for p in paths}
    packages = {module_name(p) for p in paths if p.name == "__init__.py"}
    return import_graph(sources, packages)


def describe(circle: list[str], graph: dict[str, dict[str, int]]) -> str:
    steps = " -> ".join(f"{a} (line {graph[a][b]})" for a, b in itertools.pairwise(circle))
    return f"{steps} -> {circle[-1]}"


# Circles that run through a package whose owners are reworking it (issue 14): each is named by
# one import on it, which is the one to break. A circle none of these is on fails the test, and
# so does an entry no circle runs through any more: delete it when its circle is gone.
KNOWN_CIRCLES: set[tuple[str, str]] = set()


def _closes(edge: tuple[str, str], component: set[str], graph: dict[str, dict[str, int]]) -> bool:
    a, b = edge
    return a in component and b in component and b in graph[a]


def test_no_import_circle() -> None:
    graph = package_graph()
    found = components(graph)
    unknown = [describe(_path_round(min(c), c, {a: set(b) for a, b in graph.items()}), graph)
               for c in found if not any(_closes(edge, c, graph) for edge in KNOWN_CIRCLES)]
    assert unknown == [], "import circles:\n" + "\n".join(unknown)
    gone = sorted(e for e in KNOWN_CIRCLES if not any(_closes(e, c, graph) for c in found))
    assert gone == [], f"no circle runs through {gone} any more: take them out of KNOWN_CIRCLES"


# --- the checker itself, on made-up packages -------------------------------------------------


def _graph(files: dict[str, str]) -> dict[str, dict[str, int]]:
    packages = {name for name, src in files.items() if src.startswith("#pkg")}
    return import_graph(files, packages)


def test_a_circle_through_a_function_level_import_is_found() -> None:
    graph = _graph({
        "orkas_nb": "#pkg\n", "orkas_nb.h": "#pkg\n",
        "orkas_nb.h.runner": "from .compaction import compact\n",
        "orkas_nb.h.compaction": "def f():\n    from . import turn\n",
        "orkas_nb.h.turn": "from orkas_nb.h.runner import Runner\n",
        "orkas_nb.h.leaf": "from .runner import Runner\n",
    })
    assert circles(graph) == [["orkas_nb.h.compaction", "orkas_nb.h.turn", "orkas_nb.h.runner",
                               "orkas_nb.h.compaction"]]
    assert describe(circles(graph)[0], graph).startswith("orkas_nb.h.compaction (line 2) -> ")


def test_type_checking_imports_are_not_edges_but_their_else_branch_is() -> None:
    files = {
        "orkas_nb": "#pkg\n", "orkas_nb.a": "from . import b\n",
        "orkas_nb.b": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import a\n",
    }
    assert circles(_graph(files)) == []
    files["orkas_nb.b"] += "else:\n    from .a import x\n"
    assert circles(_graph(files)) == [["orkas_nb.a", "orkas_nb.b", "orkas_nb.a"]]


def test_a_lazy_export_leads_to_its_module_and_a_package_import_to_the_package() -> None:
    files = {
        "orkas_nb": "#pkg\n",
        "orkas_nb.m": "#pkg\n_LAZY = {'KB': '.kb', 'Other': 'other'}\n",
        "orkas_nb.m.kb": "from ..t import helper\n",
        "orkas_nb.m.other": "",
        "orkas_nb.t": "#pkg\n",
        "orkas_nb.t.helper": "def f():\n    from orkas_nb.m import KB\n",
    }
    graph = _graph(files)
    # helper -> the package m (its __init__ runs) and, through the map, m.kb; not m.other
    assert set(graph["orkas_nb.t.helper"]) == {"orkas_nb.m", "orkas_nb.m.kb"}
    assert graph["orkas_nb.m"] == {"orkas_nb.m.kb": 2, "orkas_nb.m.other": 2}  # the map's line
    assert set(graph["orkas_nb.m.kb"]) == {"orkas_nb.t", "orkas_nb.t.helper"}
    assert circles(graph) == [["orkas_nb.m", "orkas_nb.m.kb", "orkas_nb.t.helper", "orkas_nb.m"]]
    # a module's own package is running already: importing a sibling is no edge to it
    assert _graph({"orkas_nb": "#pkg\n", "orkas_nb.p": "#pkg\nfrom . import q\n",
                   "orkas_nb.p.q": "from . import r\n", "orkas_nb.p.r": ""})["orkas_nb.p.q"] \
        == {"orkas_nb.p.r": 1}


def test_tuple_and_absolute_lazy_maps_resolve() -> None:
    tree = ast.parse("_LAZY = {'Agent': ('orkas_nb.agent', 'Agent'), 'x': 'registry'}\n")
    assert lazy_exports(tree, "orkas_nb.providers") == (1, {
        "Agent": "orkas_nb.agent", "x": "orkas_nb.providers.registry"})
