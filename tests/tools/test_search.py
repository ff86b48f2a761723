"""search_files and grep_files: globs, ignored folders, symlinks not followed, caps."""

from __future__ import annotations

from .conftest import CANARIES


def _tree(ws) -> None:
    (ws / "src" / "pkg").mkdir(parents=True)
    (ws / "src" / "pkg" / "core.py").write_text("def run():\n    return 'ok'\n\n\ndef stop():\n    pass\n")
    (ws / "src" / "main.py").write_text("from pkg.core import run\nrun()\n")
    (ws / "data").mkdir()
    (ws / "data" / "sales.csv").write_text("month,amount\nMarch,10\n")
    for ignored in ("node_modules/lib", ".git/objects", ".venv/lib", "__pycache__"):
        (ws / ignored).mkdir(parents=True, exist_ok=True)
        (ws / ignored / "core.py").write_text("def run(): pass\n")
    (ws / "myenv").mkdir()
    (ws / "myenv" / "pyvenv.cfg").write_text("home = /usr\n")
    (ws / "myenv" / "core.py").write_text("def run(): pass\n")


async def test_search_by_name_and_glob(world, make_caller) -> None:
    _tree(world.ws)
    call = make_caller()
    ok, text, _ = await call("search_files", pattern="*.py")
    assert ok and text.splitlines() == ["src/main.py  (31 bytes)", "src/pkg/core.py  (50 bytes)"]
    ok, text, _ = await call("search_files", pattern="src/**/core.py")
    assert text.splitlines() == ["src/pkg/core.py  (50 bytes)"]
    ok, text, _ = await call("search_files", pattern="*.py", path="src/pkg")
    assert text.splitlines() == ["src/pkg/core.py  (50 bytes)"]
    ok, text, _ = await call("search_files", pattern="core.py", include_ignored=True)
    assert "node_modules/lib/core.py" in text and "myenv/core.py" in text
    assert ".orkas" not in text  # never, even with ignored folders included
    ok, text, _ = await call("search_files", pattern="*.txt")
    assert "link_out" not in text  # the symlinked folder is not followed
    ok, text, _ = await call("search_files", pattern="*", max_results=2)
    assert "more not shown" in text
    ok, text, _ = await call("search_files", pattern="*.nothing")
    assert ok and "no file matches" in text
    ok, text, _ = await call("search_files", pattern="*", path="a.txt")
    assert not ok and "not a folder" in text


async def test_grep_with_context_and_caps(world, make_caller) -> None:
    _tree(world.ws)
    call = make_caller()
    ok, text, _ = await call("grep_files", pattern=r"def \w+", glob="*.py")
    assert ok and text.splitlines()[:2] == ["src/pkg/core.py:1: def run():", "src/pkg/core.py:5: def stop():"]
    ok, text, _ = await call("grep_files", pattern="return", context=1)
    assert text.splitlines()[:3] == ["src/pkg/core.py-1- def run():", "src/pkg/core.py:2:     return 'ok'",
                                 "src/pkg/core.py-3- "]
    ok, text, _ = await call("grep_files", pattern="MARCH", ignore_case=True, path="data/sales.csv")
    assert text.splitlines()[0] == "data/sales.csv:2: March,10"
    ok, text, _ = await call("grep_files", pattern=".", max_matches=3)
    assert "stopped at 3 matching lines" in text
    ok, text, _ = await call("grep_files", pattern="(unclosed")
    assert not ok and "invalid regular expression" in text
    ok, text, _ = await call("grep_files", pattern="x", context=99)
    assert not ok and "context" in text


async def test_grep_skips_secrets_links_and_state(world, make_caller) -> None:
    ok, text, _ = await make_caller()("grep_files", pattern="CANARY")
    assert ok and not any(c in text for c in CANARIES.values())
    assert "skipped 2 secret files" in text and "skipped 1 hard-linked files" in text


async def test_grep_regex_timeout(world, make_caller) -> None:
    (world.ws / "evil.txt").write_text("a" * 40 + "!")
    ok, text, _ = await make_caller()("grep_files", pattern=r"(a|aa)+$b")
    # Catastrophic backtracking: the timeout stops it, the worker thread is not lost.
    assert not ok and "took too long on evil.txt" in text
