"""search_files (by name or glob) and grep_files (regex over contents).

Both walk with ``os.fwalk`` (descriptor-relative, symlinks never followed, so a planted link
cannot lead the walk out of the workspace), skip ``.git``, ``.orkas``, virtualenvs,
``node_modules`` and caches by default, and cap their results with a note of what was left out.
Globs use gitignore semantics through ``pathspec`` (``*.py`` matches at any depth,
``src/**/*.py`` under src); regexes use ``regex`` with a timeout, so a pathological pattern
cannot hang a worker thread.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

from ..core.errors import ToolError
from ..documents import binary_description
from ..harness.tool_protocol import FunctionTool
from .paths import CREDENTIAL_NAMES, fold, is_secret_name
from .safe_io import open_parent
from .settings import Toolbox

IGNORED_DIRS = frozenset({
    ".git", ".hg", ".svn", ".orkas", "node_modules", "__pycache__", ".ipynb_checkpoints",
    ".venv", "venv", ".tox", ".nox", ".mypy_cache", ".pytest_cache", ".ruff_cache", "site-packages",
})
GREP_MAX_FILE_BYTES = 5 * 1024 * 1024
LINE_CHARS = 300


def walk(top: Path, include_ignored: bool = False) -> Iterator[tuple[str, str, int, os.stat_result]]:
    """(relative folder, file name, folder fd, stat) for every regular file under ``top``."""
    for dirpath, dirnames, filenames, dfd in os.fwalk(top, follow_symlinks=False):
        rel = os.path.relpath(dirpath, top)
        keep = []
        for d in sorted(dirnames):
            f = fold(d)
            if f in CREDENTIAL_NAMES:
                continue  # never, even when asked for ignored folders
            if not include_ignored and (f in IGNORED_DIRS or _venv_marker(dfd, d)):
                continue
            keep.append(d)
        dirnames[:] = keep
        for name in sorted(filenames):
            try:
                st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode):
                yield ("" if rel == "." else rel), name, dfd, st


def _venv_marker(dfd: int, name: str) -> bool:
    try:
        os.stat(f"{name}/pyvenv.cfg", dir_fd=dfd, follow_symlinks=False)
        return True
    except OSError:
        return False


def glob_spec(pattern: str):
    """A gitignore-style matcher for one glob (pathspec's newer name first, older as fallback)."""
    import pathspec

    try:
        return pathspec.PathSpec.from_lines("gitignore", [pattern])
    except LookupError:
        return pathspec.PathSpec.from_lines("gitwildmatch", [pattern])


def make_search_tools(box: Toolbox) -> list[FunctionTool]:
    policy = box.policy

    def _start(path: str) -> tuple[Path, str]:
        target = policy.check(path)
        if not target.path.is_dir():
            raise ToolError(f"{target.display!r} is not a folder")
        prefix = "" if target.display in (".", "") else target.display
        return target.path, prefix

    def search_files(
        pattern: str = "*", path: str = ".", max_results: int = 200, include_ignored: bool = False
    ) -> str:
        """Find files by name or glob (gitignore style: `*.csv`, `data/**/*.json`).

        Args:
            pattern: a glob; without a slash it matches the file name at any depth
            path: the folder to search, relative to the workspace
            max_results: at most this many paths are listed
            include_ignored: also look in .git, virtualenvs, node_modules and caches
        """
        top, prefix = _start(path)
        try:
            spec = glob_spec(pattern)
        except Exception as exc:
            raise ToolError(f"invalid glob {pattern!r}: {exc}") from None
        found: list[str] = []
        total = 0
        for rel, name, _fd, st in walk(top, include_ignored):
            relpath = f"{rel}/{name}" if rel else name
            if spec.match_file(relpath):
                total += 1
                if len(found) < max_results:
                    shown = f"{prefix}/{relpath}" if prefix else relpath
                    found.append(f"{shown}  ({st.st_size:,} bytes)")
        if not found:
            return f"no file matches {pattern!r} under {path}"
        more = f"\n[{total - len(found):,} more not shown; narrow the pattern]" if total > len(found) else ""
        return "\n".join(found) + more

    def grep_files(
        pattern: str, path: str = ".", glob: str | None = None, context: int = 0,
        ignore_case: bool = False, max_matches: int = 200,
    ) -> str:
        """Search file contents with a regular expression; prints `file:line: text`.

        Args:
            pattern: a regular expression (Python syntax)
            path: the folder (or file) to search, relative to the workspace
            glob: only files matching this glob (e.g. `*.py`)
            context: lines of context before and after each match
            ignore_case: match without regard to case
            max_matches: stop after this many matching lines
        """
        import regex

        if context < 0 or context > 20:
            raise ToolError("context must be between 0 and 20 lines")
        try:
            rx = regex.compile(pattern, regex.IGNORECASE if ignore_case else 0)
        except regex.error as exc:
            raise ToolError(f"invalid regular expression {pattern!r}: {exc}") from None
        spec = glob_spec(glob) if glob else None
        target = policy.check(path)
        if target.path.is_file():
            files = [(target.path.parent, target.path.name, target.display)]
            top = None
        else:
            top, prefix = _start(path)
            files = None
        out: list[str] = []
        matches = 0
        skipped: dict[str, int] = {}

        def candidates() -> Iterator[tuple[str, int, str, os.stat_result | None]]:
            if files is not None:
                for parent, name, shown in files:
                    with open_parent(parent / name) as fd:
                        yield name, fd, shown, None
                return
            assert top is not None
            for rel, name, dfd, st in walk(top):
                relpath = f"{rel}/{name}" if rel else name
                if spec is not None and not spec.match_file(relpath):
                    continue
                yield name, dfd, (f"{prefix}/{relpath}" if prefix else relpath), st

        for name, dfd, shown, _st in candidates():
            if is_secret_name(name):
                skipped["secret files (read them with read_file after consent)"] = skipped.get(
                    "secret files (read them with read_file after consent)", 0) + 1
                continue
            text = _read_text(name, dfd, skipped)
            if text is None:
                continue
            lines = text.split("\n")
            try:
                hits = [i for i, line in enumerate(lines) if rx.search(line, timeout=2.0)]
            except TimeoutError:
                raise ToolError(
                    f"the regular expression took too long on {shown}; simplify it"
                ) from None
            last_printed = -1
            for i in hits:
                if matches >= max_matches:
                    break
                matches += 1
                lo, hi = max(0, i - context), min(len(lines), i + context + 1)
                if context and last_printed >= 0 and lo > last_printed + 1:
                    out.append("--")
                for j in range(max(lo, last_printed + 1), hi):
                    sep = ":" if j == i or rx.search(lines[j], timeout=2.0) else "-"
                    out.append(f"{shown}{sep}{j + 1}{sep} {lines[j][:LINE_CHARS]}")
                last_printed = max(last_printed, hi - 1)
            if matches >= max_matches:
                out.append(f"[stopped at {max_matches} matching lines; narrow the search]")
                break
        notes = [f"[skipped {n} {why}]" for why, n in skipped.items()]
        if not out:
            return "\n".join([f"no match for {pattern!r}"] + notes)
        return "\n".join(out + notes)

    return [FunctionTool(search_files, read_only=True), FunctionTool(grep_files, read_only=True)]


def _read_text(name: str, dfd: int, skipped: dict[str, int]) -> str | None:
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dfd)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None
        if st.st_nlink > 1:
            skipped["hard-linked files"] = skipped.get("hard-linked files", 0) + 1
            return None
        if st.st_size > GREP_MAX_FILE_BYTES:
            skipped["files over 5 MB"] = skipped.get("files over 5 MB", 0) + 1
            return None
        data = os.read(fd, GREP_MAX_FILE_BYTES + 1)
    finally:
        os.close(fd)
    if binary_description(data[:8192]):
        return None
    return data.decode("utf-8", errors="replace")
