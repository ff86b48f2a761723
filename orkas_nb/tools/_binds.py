"""What the sandbox binds beyond the system and the workspace, and the credential masks laid
over everything it binds.

Toolchains: each ``PATH`` entry and Python prefix is bound as itself, plus what its programs
provably need: a virtualenv's ``lib/`` and ``pyvenv.cfg`` and the interpreter its ``home`` names,
a conda environment's prefix, the file a symlinked program really is (its folder too when that is
a virtualenv's ``bin``, as pipx makes them), and the tool homes the kernel's environment names
(``PYENV_ROOT`` for pyenv's shims, ...). Never a parent of an entry (it may
hold other projects), never a folder that is or holds the home folder or a workspace root,
never a folder the sandbox hides on purpose (``/tmp``, ``/home``...), never one inside a
credential location, and nothing read from inside a workspace root (the model writes there: a
venv in the workspace is bound with it, its symlinks and ``pyvenv.cfg`` are not followed).

Masks: every credential location (:mod:`.credentials`) that exists and would be visible through
any bind is covered at its real path (symlinks resolved): an empty tmpfs over a folder,
``/dev/null`` over a file. They come after every bind, so no later bind can bring one back; a
location that does not exist cannot be masked (nor read).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterable, Mapping
from pathlib import Path

from .credentials import HOME_CREDENTIALS, inside
from .paths import HIDDEN_DIRS as HIDDEN
# Tool homes the environment names (the bash environment passes them on: see BASE_ENV).
TOOL_HOME_ENV = ("VIRTUAL_ENV", "CONDA_PREFIX", "PYENV_ROOT", "CARGO_HOME", "RUSTUP_HOME",
                 "NVM_DIR", "GOROOT", "JAVA_HOME")
PROGRAM_SCAN_LIMIT = 2000


class _Plan:
    def __init__(self, system: tuple[str, ...], homes: Iterable[Path], roots: Iterable[Path],
                 credentials: Iterable[Path]) -> None:
        self.system = tuple(Path(s) for s in system)
        self.roots = tuple(roots)
        self.holders = [*homes, *self.roots]  # a bind that holds one of these exposes user data
        self.credentials = tuple(credentials)
        self.home = next(iter(homes))
        self.wanted: list[Path] = []

    def _refused(self, p: Path) -> bool:
        if any(inside(p, s) for s in self.system):
            return True  # bound read-only already
        if any(inside(h, p) for h in HIDDEN) or any(inside(h, p) for h in self.holders):
            return True  # "/", a hidden folder, or one holding the home folder or a workspace
        if any(inside(p, r) for r in self.roots):
            # Bound with its root already, and written by the model: its links and pyvenv.cfg
            # must not decide what else is bound.
            return True
        return any(inside(p, c) for c in self.credentials)

    def add(self, raw: str | Path) -> Path | None:
        try:
            p = Path(raw).resolve()
        except (OSError, RuntimeError):
            return None
        if not p.exists() or self._refused(p):
            return None
        if p not in self.wanted:
            self.wanted.append(p)
        return p

    def add_prefix(self, raw: str | Path) -> None:
        """An installation prefix: as itself, or only its program folders when it holds user
        data (a Python installed with ``--prefix=$HOME``)."""
        if self.add(raw) is not None:
            return
        try:
            p = Path(raw).resolve()
        except (OSError, RuntimeError):
            return
        if p.is_dir() and any(inside(h, p) for h in self.holders) and p not in HIDDEN:
            for sub in ("bin", "lib", "lib64", "include"):
                self.add(p / sub)

    def add_entry(self, raw: str, follow_links: bool = True,
                  env: Mapping[str, str] | None = None) -> None:
        """A PATH entry: itself, its venv or conda environment, where its linked programs live,
        and the home of the tool manager whose programs it holds."""
        p = self.add(raw)
        if p is None:
            return
        if (p / "rustup").is_file():  # rustup's proxies (cargo, rustc) run its toolchains
            self.add_prefix((env or {}).get("RUSTUP_HOME") or self.home / ".rustup")
        if p.name == "shims" and (p.parent / "libexec" / "pyenv").is_file():
            self.add_prefix(p.parent)  # pyenv's shims exec $PYENV_ROOT/libexec/pyenv
        cfg = p.parent / "pyvenv.cfg"
        if cfg.is_file():
            for part in (cfg, p.parent / "lib", p.parent / "lib64"):
                self.add(part)
            base = _venv_home(cfg)
            if base is not None:
                self.add(base)
                if base.name == "bin":
                    self.add_prefix(base.parent)
        if (p.parent / "conda-meta").is_dir():
            self.add_prefix(p.parent)
        if follow_links:
            for target in _linked_programs(p):
                # A linked program is bound as itself; its folder only when that is a virtualenv's
                # or conda environment's bin (pipx), whose interpreter and lib/ it needs; and the
                # folder of its own installation it lives in (npm -> ../lib/node_modules/...).
                env_root = target.parent.parent
                if (env_root / "pyvenv.cfg").is_file() or (env_root / "conda-meta").is_dir():
                    self.add_entry(str(target.parent), follow_links=False)
                elif p.name == "bin" and inside(target, p.parent):
                    self.add(p.parent / target.relative_to(p.parent).parts[0])
                else:
                    self.add(target)

_cache: dict[tuple, tuple[float, list[Path]]] = {}
CACHE_S = 2.0


def toolchain_dirs(env: Mapping[str, str], home: Path, roots: Iterable[Path],
                   credentials: Iterable[Path], system: tuple[str, ...]) -> list[Path]:
    """Read-only folders (and files) commands need beyond the system; see the module docs.

    Kept for two seconds (nothing the model can write decides them; the credential masks, which
    can change with any file, are computed on every call)."""
    roots, credentials = tuple(roots), tuple(credentials)
    key = (env.get("PATH"), *(env.get(v) for v in TOOL_HOME_ENV), env.get("RUSTUP_HOME"), home,
           roots, credentials, system)
    hit = _cache.get(key)
    if hit is not None and time.monotonic() - hit[0] < CACHE_S:
        return list(hit[1])
    found = _plan(env, home, roots, credentials, system)
    if len(_cache) > 64:
        _cache.clear()
    _cache[key] = (time.monotonic(), found)
    return list(found)


def _plan(env: Mapping[str, str], home: Path, roots: tuple[Path, ...],
          credentials: tuple[Path, ...], system: tuple[str, ...]) -> list[Path]:
    homes = [home, Path(os.path.expanduser("~")).resolve()]
    plan = _Plan(system, homes, roots, credentials)
    for entry in env.get("PATH", "").split(os.pathsep):
        if entry and os.path.isabs(entry):  # a relative entry is the workspace: bound already
            plan.add_entry(entry, env=env)
    for prefix in {sys.prefix, sys.base_prefix, sys.exec_prefix}:
        plan.add_prefix(prefix)
    for var in TOOL_HOME_ENV:
        value = env.get(var)
        if value and os.path.isabs(value):
            plan.add_prefix(value)
    return plan.wanted


def _venv_home(cfg: Path) -> Path | None:
    try:
        for line in cfg.read_text(errors="replace").splitlines()[:50]:
            key, _, value = line.partition("=")
            if key.strip() == "home" and os.path.isabs(value.strip()):
                return Path(value.strip())
    except OSError:
        pass
    return None


def _linked_programs(folder: Path) -> list[Path]:
    """Where the symlinked programs in ``folder`` really are (pipx, ~/.local/bin)."""
    out: list[Path] = []
    try:
        with os.scandir(folder) as it:
            for n, entry in enumerate(it):
                if n >= PROGRAM_SCAN_LIMIT:
                    break
                if entry.is_symlink():
                    try:
                        target = Path(entry.path).resolve()
                    except (OSError, RuntimeError):
                        continue
                    if target.parent != folder and target not in out:
                        out.append(target)
    except OSError:
        pass
    return out

def credential_masks(sources: Iterable[Path], credentials: Iterable[Path],
                     copies_in: Iterable[Path], named: Iterable[Path]) -> list[str]:
    """bwrap arguments masking every credential that ``sources`` (the bound folders) expose.

    ``credentials`` are the user's credential locations; ``copies_in`` are bound folders in which
    a home-like layout (``.ssh``, ``.config/gh``...) is looked for too; ``named`` are folders
    found by name (a ``.ssh`` anywhere in the workspace).
    """
    bound = [str(s) for s in sources]
    # (location, folder its real path must stay in): a copy found in a workspace is masked only
    # inside it, so a symlink the model plants there (.ssh -> /usr) cannot mask the system away.
    found: list[tuple[str, str | None]] = [(str(c), None) for c in credentials]
    found += [(os.path.join(c, rel), c) for c in map(str, copies_in) for rel in HOME_CREDENTIALS]
    found += [(str(n), str(n)) for n in named]
    real: dict[Path, None] = {}
    for p, within in found:
        if not os.path.lexists(p):
            continue
        r = os.path.realpath(p)
        if within is not None and not inside(r, within):
            continue
        if os.path.exists(r) and any(inside(r, b) for b in bound):
            real[Path(r)] = None
    argv: list[str] = []
    masked_dirs: list[Path] = []
    for r in sorted(real, key=lambda q: len(q.parts)):
        if any(inside(r, d) for d in masked_dirs):
            continue  # already under an empty folder
        if r.is_dir():
            argv += ["--tmpfs", str(r)]
            masked_dirs.append(r)
        else:
            argv += ["--ro-bind", "/dev/null", str(r)]
    return argv
