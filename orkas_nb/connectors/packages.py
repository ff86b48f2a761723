"""External packages: git repositories installed as they are, for their skills and their CLIs
(seed 003 §4).

The managed folder (:func:`packages_dir`: ``$ORKAS_PACKAGES_DIR``, else
``$XDG_DATA_HOME/orkas_nb/packages``, else ``~/.local/share/orkas_nb/packages``) is outside
every workspace and every ``.orkas``, and outside the config folder (a credential store the
sandbox masks)::

    src/<name>/      the clone, never rewritten (updates are a fetch and a reset)
    envs/<name>/     the package's own dependency environment, when it has one
    bin/             relay scripts, appended to the bash tool's PATH
    registry.json    what is installed: kept outside the package folders, so an update's pull
                     never conflicts with it

Install order: check the source (:mod:`.package_git`) → clone into a staging folder → refuse a
tree holding a symlink → detect skills and entry points (:mod:`.relay`) → move into place →
write the relays and the registry. A refused or failed install leaves nothing behind.
Dependencies are installed only with the user's approval, asked once per manifest and
remembered in the registry.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, Field

from ..core.errors import ConfigError
from .package_git import PackageRefused, check_source, clone, fetch_update
from .relay import Detected, EntryPoint, deps_plan, detect, install_env, write_relays

__all__ = ["InstalledPackage", "PackageRefused", "Packages", "install_deps_answer", "packages_dir"]

PACKAGE_NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")
# Answers a dependency install question (the text): True installs, False declines (remembered),
# None leaves it pending (nobody could be asked).
AskDeps = Callable[[str, str], Any]


def install_deps_answer(_name: str, _question: str) -> bool:
    """The answer of a user who asked for the install by name (`deps NAME`, `--deps yes`)."""
    return True


def packages_dir() -> Path:
    """The managed folder of external packages; see the module docs."""
    explicit = os.environ.get("ORKAS_PACKAGES_DIR")
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_DATA_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".local" / "share"
    return base / "orkas_nb" / "packages"


class InstalledPackage(BaseModel):
    """One registry entry."""

    name: str
    url: str
    commit: str
    installed_at: float
    updated_at: float
    kinds: list[str] = Field(default_factory=list)
    skill_roots: list[tuple[str, list[str] | None]] = Field(default_factory=list)
    entry_points: list[EntryPoint] = Field(default_factory=list)
    relays: list[str] = Field(default_factory=list)
    python_path: str | None = None
    problems: list[str] = Field(default_factory=list)
    # The dependency manifest's hash and the user's answer for it (remembered: asked once).
    deps_digest: str | None = None
    deps: Literal["none", "installed", "declined", "pending"] = "none"


def default_name(url: str) -> str:
    tail = urlsplit(url).path if "://" in url else url.rsplit(":", 1)[-1]
    name = tail.rstrip("/").rsplit("/", 1)[-1].removesuffix(".git").lower()
    name = re.sub(r"[^a-z0-9._-]+", "-", name).strip("-.")
    if not PACKAGE_NAME.fullmatch(name or "-"):
        raise ConfigError(f"no package name can be made from {url!r}; pass one with --name")
    return name


class Packages:
    """The registry and the operations on it (``%agent packages ...``)."""

    def __init__(self, root: str | Path | None = None) -> None:
        self.root = Path(root) if root is not None else packages_dir()

    @property
    def registry_path(self) -> Path:
        return self.root / "registry.json"

    @property
    def bin_dir(self) -> Path:
        return self.root / "bin"

    def source(self, name: str) -> Path:
        return self.root / "src" / name

    def env(self, name: str) -> Path:
        return self.root / "envs" / name

    # -- the registry -------------------------------------------------------------------------

    def list(self) -> list[InstalledPackage]:
        try:
            raw = json.loads(self.registry_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return []
        except (OSError, ValueError) as exc:
            raise ConfigError(f"the package registry {self.registry_path} cannot be read ({exc}); "
                              "fix or delete it") from None
        return [InstalledPackage.model_validate(p) for p in raw.get("packages", [])]

    def get(self, name: str) -> InstalledPackage:
        for p in self.list():
            if p.name == name:
                return p
        known = ", ".join(p.name for p in self.list()) or "none"
        raise ConfigError(f"no package named {name!r} is installed (installed: {known})")

    def _save(self, packages: list[InstalledPackage]) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        tmp = self.registry_path.with_suffix(".tmp")
        data = {"version": 1, "packages": [p.model_dump(mode="json") for p in packages]}
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.registry_path)

    def _put(self, record: InstalledPackage) -> None:
        self._save([p for p in self.list() if p.name != record.name] + [record])

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.root.mkdir(parents=True, exist_ok=True)
        with open(self.root / ".lock", "w") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            yield

    # -- install, update, remove -----------------------------------------------------------------

    def install(self, url: str, name: str | None = None, *,
                ask_deps: AskDeps | None = None) -> InstalledPackage:
        """Install the repository at ``url`` (see the module docs). ``ask_deps(name, question)``
        answers the dependency question; without it, dependencies wait ("pending")."""
        check_source(url)
        name = name or default_name(url)
        if not PACKAGE_NAME.fullmatch(name):
            raise ConfigError(f"{name!r} is not a package name: use a-z, 0-9, '.', '_' and '-'")
        with self._locked():
            if any(p.name == name for p in self.list()):
                raise ConfigError(f"package {name!r} is already installed; update it with "
                                  f"'%agent packages update {name}' or remove it first")
            staging = self.root / "staging" / f"{name}-{os.getpid()}-{time.time_ns()}"
            staging.parent.mkdir(parents=True, exist_ok=True)
            commit = clone(url, staging)
            try:
                found = detect(staging)
                if not found.kinds:
                    raise PackageRefused(
                        f"{url} holds neither a skill (SKILL.md) nor a command (an executable in "
                        "bin/ or [project.scripts] in pyproject.toml); nothing was installed")
                dest = self.source(name)
                shutil.rmtree(dest, ignore_errors=True)
                dest.parent.mkdir(parents=True, exist_ok=True)
                os.replace(staging, dest)
            except BaseException:
                shutil.rmtree(staging, ignore_errors=True)
                raise
            now = time.time()
            record = InstalledPackage(name=name, url=url, commit=commit, installed_at=now,
                                      updated_at=now)
            return self._settle(record, detect(dest), ask_deps)

    def update(self, name: str, *, ask_deps: AskDeps | None = None) -> InstalledPackage:
        """Fetch the newest commit; a new version with a symlink is refused (the old stays)."""
        with self._locked():
            record = self.get(name)
            commit = fetch_update(record.url, self.source(name))
            record = record.model_copy(update={"commit": commit, "updated_at": time.time()})
            return self._settle(record, detect(self.source(name)), ask_deps)

    def remove(self, name: str) -> InstalledPackage:
        with self._locked():
            record = self.get(name)
            for relay in record.relays:
                with contextlib.suppress(FileNotFoundError):
                    (self.bin_dir / relay).unlink()
            shutil.rmtree(self.source(name), ignore_errors=True)
            shutil.rmtree(self.env(name), ignore_errors=True)
            self._save([p for p in self.list() if p.name != name])
            return record

    def install_deps(self, name: str) -> InstalledPackage:
        """Install a package's dependencies now (the user asked for it by name)."""
        with self._locked():
            record = self.get(name)
            return self._settle(record, detect(self.source(name)), install_deps_answer)

    def _settle(self, record: InstalledPackage, found: Detected,
                ask_deps: AskDeps | None) -> InstalledPackage:
        folder, env = self.source(record.name), self.env(record.name)
        taken = {r: p.name for p in self.list() for r in p.relays}
        old = set(record.relays)
        relays = write_relays(self.bin_dir, record.name, folder, env, found, taken)
        for stale in old - set(relays):
            with contextlib.suppress(FileNotFoundError):
                (self.bin_dir / stale).unlink()
        record = record.model_copy(update={
            "kinds": found.kinds, "skill_roots": found.skill_roots, "relays": relays,
            "entry_points": found.entry_points, "python_path": found.python_path,
            "problems": found.problems})
        record = self._dependencies(record, ask_deps)
        self._put(record)
        return record

    def _dependencies(self, record: InstalledPackage,
                      ask: AskDeps | None) -> InstalledPackage:
        plan = deps_plan(self.source(record.name), self.env(record.name))
        if plan is None:
            return record.model_copy(update={"deps": "none", "deps_digest": None})
        remembered = record.deps_digest == plan.digest
        if remembered and record.deps == "declined" and ask is not install_deps_answer:
            return record
        if remembered and record.deps == "installed" and (self.env(record.name) / "bin").is_dir():
            return record
        if not (remembered and record.deps == "installed"):
            if ask is None:
                return record.model_copy(update={"deps": "pending", "deps_digest": plan.digest})
            question = (f"package {record.name!r} declares dependencies ({plan.manifest}); "
                        f"install them into its own environment by running: {plan.text()}")
            answer = ask(record.name, question)
            if answer is None:  # no one could be asked: ask again next time
                return record.model_copy(update={"deps": "pending", "deps_digest": plan.digest})
            if answer is not True:
                return record.model_copy(update={"deps": "declined", "deps_digest": plan.digest})
        shutil.rmtree(self.env(record.name), ignore_errors=True)
        install_env(plan)
        return record.model_copy(update={"deps": "installed", "deps_digest": plan.digest})

    # -- what the agent assembly reads -----------------------------------------------------------

    def skill_roots(self) -> list[tuple[Path, list[str] | None, str]]:
        """(folder, only these sub-folders or None, package name) of every installed package's
        skills; an unreadable registry gives none (the magic reports it)."""
        try:
            packages = self.list()
        except ConfigError:
            return []
        return [(Path(folder), names, p.name) for p in packages for folder, names in p.skill_roots]

    def has_commands(self) -> bool:
        try:
            return any(p.relays for p in self.list())
        except ConfigError:
            return False
