"""What an external package offers, the relay scripts that put its CLI on bash's PATH, and its
own dependency environment.

Detection (the package folder is read, never changed):

- **skills**: every ``SKILL.md`` at the top of the package (the package is one skill), in a
  top-level folder, or in ``skills/<name>/``;
- **CLI**: executable regular files in ``bin/`` (git keeps the mode), and the
  ``[project.scripts]`` of a ``pyproject.toml`` (``name = "module:function"``).

Relays: one small ``sh`` script per entry point in the managed ``bin/`` folder, which the agent
assembly appends (never prepends: a package cannot shadow ``git`` or ``python3``) to the bash
tool's ``PATH``. A relay puts the package's own environment first (``<managed>/envs/<name>``,
when its dependencies were installed) and execs the entry point; the sandbox binds the managed
folder read-only.

Dependencies (``requirements.txt``, or a ``pyproject.toml`` listing ``dependencies``) are
installed into that environment only after the user approved the exact commands, and the
approval is remembered with a hash of the manifest: an update with the same manifest installs
without asking, a changed one asks again.
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import stat
import subprocess
import sys
from pathlib import Path

from pydantic import BaseModel, Field

from ..core.errors import ConfigError

__all__ = ["DepsPlan", "Detected", "EntryPoint", "deps_plan", "detect", "install_env",
           "write_relays"]

ENTRY_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,63}")
_SKIP = frozenset({".git", "node_modules", "__pycache__", ".venv", "venv"})
INSTALL_TIMEOUT_S = 900.0


class EntryPoint(BaseModel):
    """One command a package offers: a script of its ``bin/`` or a Python ``module:function``."""

    name: str
    script: str | None = None  # relative to the package folder
    target: str | None = None  # "module:function" (pyproject [project.scripts])


class Detected(BaseModel):
    """What a package folder holds: skill roots (folder, and the only sub-folders to read when
    the folder holds more than skills) and entry points."""

    skill_roots: list[tuple[str, list[str] | None]] = Field(default_factory=list)
    entry_points: list[EntryPoint] = Field(default_factory=list)
    python_path: str | None = None  # where a pyproject's modules are (".", "src")
    problems: list[str] = Field(default_factory=list)

    @property
    def kinds(self) -> list[str]:
        return [k for k, has in (("skill", self.skill_roots), ("cli", self.entry_points)) if has]


def _has_skill(folder: Path) -> bool:
    return (folder / "SKILL.md").is_file() or (folder / "skill.md").is_file()


def _pyproject(folder: Path) -> dict:  # type: ignore[type-arg]
    import tomllib

    try:
        return tomllib.loads((folder / "pyproject.toml").read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        raise ConfigError(f"the package's pyproject.toml cannot be read: {exc}") from None


def detect(folder: Path) -> Detected:
    """See the module docs. Never follows a link (a package holds none: see package_git)."""
    found = Detected()
    if _has_skill(folder):
        found.skill_roots.append((str(folder.parent), [folder.name]))
    top = [p for p in sorted(folder.iterdir()) if p.is_dir() and p.name not in _SKIP
           and not p.name.startswith(".")]
    named = [p.name for p in top if _has_skill(p)]
    if named:
        found.skill_roots.append((str(folder), named))
    skills_dir = folder / "skills"
    if skills_dir.is_dir() and "skills" not in named and any(
            _has_skill(p) for p in skills_dir.iterdir() if p.is_dir()):
        found.skill_roots.append((str(skills_dir), None))
    bin_dir = folder / "bin"
    if bin_dir.is_dir():
        for p in sorted(bin_dir.iterdir()):
            st = p.lstat()
            if stat.S_ISREG(st.st_mode) and st.st_mode & 0o111:
                if ENTRY_NAME.fullmatch(p.name):
                    found.entry_points.append(EntryPoint(name=p.name, script=f"bin/{p.name}"))
                else:
                    found.problems.append(f"bin/{p.name}: not a plain command name; skipped")
    project = _pyproject(folder).get("project", {})
    scripts = project.get("scripts", {}) if isinstance(project, dict) else {}
    for name, target in (scripts.items() if isinstance(scripts, dict) else []):
        if not ENTRY_NAME.fullmatch(str(name)) or not re.fullmatch(
                r"[A-Za-z_][\w.]*:[A-Za-z_][\w.]*", str(target)):
            found.problems.append(f"[project.scripts] {name!r} = {target!r}: not understood; skipped")
        elif name not in {e.name for e in found.entry_points}:
            found.entry_points.append(EntryPoint(name=name, target=target))
    if any(e.target for e in found.entry_points):
        found.python_path = "src" if (folder / "src").is_dir() else "."
    return found


# -- relays ---------------------------------------------------------------------------------


def _relay_text(package: str, folder: Path, env: Path, entry: EntryPoint,
                python_path: str | None) -> str:
    q = shlex.quote
    head = (f"#!/bin/sh\n# orkas_nb relay for {entry.name} of package {package}; regenerated on "
            f"every install and update, do not edit.\nENV={q(str(env))}\n"
            'if [ -x "$ENV/bin/python" ]; then PATH="$ENV/bin:$PATH"; VIRTUAL_ENV="$ENV"; '
            "export PATH VIRTUAL_ENV; fi\n")
    if entry.script:
        return head + f'exec {q(str(folder / entry.script))} "$@"\n'
    module, _, func = (entry.target or "").partition(":")
    src = str(folder / (python_path or "."))
    code = (f"import sys; sys.path.insert(0, {src!r}); sys.argv[0] = {entry.name!r}; "
            f"from {module} import {func.split('.')[0]} as _f; sys.exit(_f())")
    installed = q(str(env / "bin" / entry.name))
    return (head + f"if [ -x {installed} ]; then exec {installed} \"$@\"; fi\n"
            f'exec python3 -c {q(code)} "$@"\n')


def write_relays(bin_dir: Path, package: str, folder: Path, env: Path, detected: Detected,
                 taken: dict[str, str]) -> list[str]:
    """Write the relays of ``package`` (``taken``: relay name → the package that owns it; a name
    another package owns is refused). The names written."""
    clash = [e.name for e in detected.entry_points if taken.get(e.name, package) != package]
    if clash:
        raise ConfigError(f"package {package!r} offers commands that another package already "
                          f"provides: {', '.join(f'{n} ({taken[n]})' for n in clash)}; remove "
                          "that package first")
    bin_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for entry in detected.entry_points:
        path = bin_dir / entry.name
        tmp = path.with_name(f".{entry.name}.tmp")
        tmp.write_text(_relay_text(package, folder, env, entry, detected.python_path))
        os.chmod(tmp, 0o755)
        os.replace(tmp, path)
        written.append(entry.name)
    return written


# -- the package's own dependency environment -----------------------------------------------------


class DepsPlan(BaseModel):
    """What installing a package's dependencies would run, and the manifest's hash."""

    manifest: str
    digest: str
    commands: list[list[str]]

    def text(self) -> str:
        return " && ".join(shlex.join(c) for c in self.commands)


def deps_plan(folder: Path, env: Path) -> DepsPlan | None:
    """The commands that would install ``folder``'s dependencies into ``env``; None when the
    package declares none."""
    python = str(env / "bin" / "python")
    base = [[sys.executable, "-m", "venv", "--without-pip", str(env)]]
    pip = [sys.executable, "-m", "pip", "--python", python, "install", "--no-input",
           "--disable-pip-version-check"]
    req = folder / "requirements.txt"
    if req.is_file():
        data = req.read_bytes()
        return DepsPlan(manifest="requirements.txt", digest=hashlib.sha256(data).hexdigest(),
                        commands=[*base, [*pip, "-r", str(req)]])
    project = _pyproject(folder).get("project", {})
    deps = project.get("dependencies") if isinstance(project, dict) else None
    if deps:
        data = (folder / "pyproject.toml").read_bytes()
        return DepsPlan(manifest="pyproject.toml", digest=hashlib.sha256(data).hexdigest(),
                        commands=[*base, [*pip, str(folder)]])
    return None


def install_env(plan: DepsPlan) -> None:
    """Run ``plan`` (approved by the caller) with an environment free of the kernel's secrets."""
    for argv in plan.commands:
        try:
            done = subprocess.run(argv, env=scrubbed_env(), capture_output=True, text=True, check=False,
                                  timeout=INSTALL_TIMEOUT_S, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise ConfigError(f"installing the dependencies took over {INSTALL_TIMEOUT_S:.0f} s") from None
        if done.returncode != 0:
            tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
            raise ConfigError("installing the dependencies failed: " + " | ".join(tail))


# Names that hold the kernel's keys and tokens: an installer (and the setup scripts it runs)
# never sees them. pip's own settings (a private index) are kept.
_SECRET = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE|^AWS_|"
                     r"^AZURE_|^GOOGLE_|^OPENAI|^ANTHROPIC|^HF_|^JPY_|^JUPYTER|^GH_|^GITHUB_|"
                     r"^ORKAS_", re.IGNORECASE)


def scrubbed_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k.startswith("PIP_") or not _SECRET.search(k)}
