"""The path policy: which files the agent's tools may touch.

Allowed: the workspace (the notebook's folder) and folders the user explicitly allows; read only:
the read-only folders the host grants (``ToolSettings.extra_readonly_paths``: the folders of the
skills an agent may use). Never: credential folders, system folders, orkas_nb's own state (the
workspace's ``.orkas``, the user's config folder) — save, read-only, the ``skills/`` folder in
them, when a read-only root there is granted. Secret files
(``.env`` and friends) only after the user's consent, which the tools ask through the approver.

Every path is resolved first (``~``, ``..``, symlinks, absolute paths), then checked; names are
compared after Unicode NFKC folding and case folding, so ``.ORKAS`` or a full-width ``．ssh``
are refused too (they would be the same folder on a case-insensitive disk). The check on the
resolved name is not the last word: :mod:`safe_io` opens the file without following links, so a
file swapped for a symlink after the check is refused too.
"""

from __future__ import annotations

import os
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..core.errors import ConfigError, ToolError
from .credentials import CREDENTIAL_NAMES, ORKAS_CONFIG_NAMES, SKILLS_DIR, STATE_DIR, credential_paths

SYSTEM_DIRS = (
    "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/boot", "/dev", "/proc",
    "/sys", "/usr", "/run", "/var/run", "/var/lib", "/var/log", "/var/spool", "/var/cache",
    "/var/db", "/System", "/Library", "/private/etc", "/private/var", "/Applications",
)

SECRET_NAMES = frozenset({
    ".env", ".netrc", "_netrc", ".pgpass", ".git-credentials", ".npmrc", ".pypirc",
    "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "credentials", "credentials.json",
    "secrets.toml", "secrets.json", "secrets.yaml", "secrets.yml", ".secrets",
    "service-account.json", ".htpasswd",
})
SECRET_SUFFIXES = (".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".env", ".kdbx")
NOT_SECRET_ENV = frozenset({".env.example", ".env.sample", ".env.template", ".env.dist"})

# Files that run code the next time the *user* (outside any sandbox) works in the folder.
PROTECTED_NAMES = frozenset({
    ".bashrc", ".bash_profile", ".bash_login", ".profile", ".zshrc", ".zprofile", ".zshenv",
    ".envrc",
})
PROTECTED_GIT = (".git/hooks", ".git/config")
# Folders the sandbox replaces with empty or private ones: binding one (or a folder holding one)
# would undo that, and /proc, /dev, /sys of the machine show its processes and devices.
HIDDEN_DIRS = tuple(Path(p) for p in ("/tmp", "/var", "/run", "/home", "/root", "/proc", "/dev", "/sys"))
MACHINE_DIRS = tuple(Path(p) for p in ("/proc", "/dev", "/sys"))


class PathRefused(ToolError):
    """A path the policy refuses; the message says why and what is allowed."""


def fold(name: str) -> str:
    """The comparable form of a file name: NFKC, then case-folded."""
    return unicodedata.normalize("NFKC", name).casefold()


def is_secret_name(name: str) -> bool:
    """Whether a file name looks like a secret store (``.env``, keys, token files)."""
    n = fold(name)
    if n in NOT_SECRET_ENV:
        return False
    if n in SECRET_NAMES or n.startswith(".env.") or n.startswith("id_rsa"):
        return True
    return n.endswith(SECRET_SUFFIXES)


def _in_config_skills(folded_path: str, folded_store: str) -> bool:
    """Whether a folded path is in the ``skills/`` folder of orkas_nb's config folder (a
    credential store otherwise: it holds provider settings)."""
    if folded_store.rsplit("/", 1)[-1] not in ORKAS_CONFIG_NAMES:
        return False
    skills = folded_store + "/" + SKILLS_DIR
    return folded_path == skills or folded_path.startswith(skills + "/")


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _folded_inside(path: Path, root: Path) -> bool:
    p, r = fold(str(path)), fold(str(root))
    return p == r or p.startswith(r.rstrip("/") + "/")


@dataclass(frozen=True)
class Resolved:
    """A checked path: where it really is, under which root, and whether it is a secret."""

    path: Path
    root: Path
    secret: bool
    read_only: bool = False

    @property
    def display(self) -> str:
        """How tools name the file to the model: relative to the workspace when inside it."""
        try:
            rel = self.path.relative_to(self.root)
        except ValueError:  # pragma: no cover - a Resolved is always under its root
            return str(self.path)
        return str(rel) if self.root == self.workspace_root else str(self.path)

    workspace_root: Path = Path("/")


class PathPolicy:
    """Resolves and checks paths for the workspace tools (and the sandbox's mounts)."""

    def __init__(
        self, workspace: str | Path, allowed: Iterable[str | Path] = (), home: Path | None = None,
        readonly: Iterable[str | Path] = (),
    ) -> None:
        self.home = (home or Path(os.path.expanduser("~"))).resolve()
        self.workspace = Path(workspace).expanduser().resolve()
        self.credential_dirs = credential_paths(self.home)
        self._folded_credentials = tuple((d, fold(str(d))) for d in self.credential_dirs)
        self._check_root(self.workspace, "the workspace")
        roots = [self.workspace]
        for a in allowed:
            p = Path(a).expanduser().resolve()
            self._check_root(p, "an allowed folder")
            if p not in roots:
                roots.append(p)
        self.roots = tuple(roots)
        # Read-only roots the file tools read, checked first; one the writable roots already
        # reach plainly is left to them (it stays writable there, as bash sees it).
        self.readonly_roots = tuple(
            p for p in self.check_readonly_extras(readonly)
            if not any(_inside(p, r) and self._forbidden(p.relative_to(r)) is None for r in roots))

    # -- configuration ------------------------------------------------------------------------

    def _check_root(self, root: Path, what: str) -> None:
        if not root.is_dir():
            raise ConfigError(f"{what} {str(root)!r} is not a folder")
        if root == Path(root.anchor):
            raise ConfigError(f"{what} cannot be the root of the file system ({root})")
        if root == self.home and what != "the workspace":
            raise ConfigError(
                f"{what} cannot be the whole home folder ({root}); allow a project folder in it"
            )
        reason = self._forbidden(root)
        if reason:
            raise ConfigError(f"{what} {str(root)!r} cannot be used: {reason}")

    def check_readonly_extras(self, extras: Iterable[str | Path]) -> tuple[Path, ...]:
        """Extra read-only folders for the sandbox, resolved: never a credential or state folder,
        never the home folder or a folder holding it (the sandbox masks credential folders
        inside the ones it accepts)."""
        out: list[Path] = []
        for e in extras:
            p = Path(e).expanduser().resolve()
            if p == self.home or p in self.home.parents:
                raise ConfigError(
                    f"{str(p)!r} cannot be made visible to commands: it is (or holds) the whole "
                    "home folder; allow the folders in it that commands need"
                )
            if any(_inside(h, p) for h in HIDDEN_DIRS) or any(_inside(p, m) for m in MACHINE_DIRS):
                raise ConfigError(
                    f"{str(p)!r} cannot be made visible to commands: the sandbox gives them their "
                    "own /tmp, /var, /run, /proc, /dev and /sys; allow a folder inside instead"
                )
            reason = self._forbidden(p, skills=True)
            if reason and "system folder" not in reason:  # system folders are read-only anyway
                raise ConfigError(f"{str(p)!r} cannot be made visible to commands: {reason}")
            out.append(p)
        return tuple(out)

    def credential_of(self, path: Path) -> Path | None:
        """The credential location a resolved path is in, or None."""
        p = fold(str(path))
        for d, folded in self._folded_credentials:
            if p == folded or p.startswith(folded + "/"):
                return d
        return None

    def _credential_reason(self, path: Path, skills: bool) -> str | None:
        p = fold(str(path))
        for d, folded in self._folded_credentials:
            if p == folded or p.startswith(folded + "/"):
                if skills and _in_config_skills(p, folded):
                    continue
                return f"it is in a credential store ({d}), which tools never touch"
        return None

    def _forbidden(self, path: Path, *, skills: bool = False) -> str | None:
        """Why a resolved path can never be touched, or None. ``skills``: the ``skills/``
        folder of orkas_nb's own state folders is let through (read-only roots only)."""
        reason = self._credential_reason(path, skills)
        if reason:
            return reason
        parts = path.parts
        for i, part in enumerate(parts):
            if fold(part) in CREDENTIAL_NAMES:
                if skills and fold(part) == STATE_DIR and i + 1 < len(parts) and (
                        fold(parts[i + 1]) == SKILLS_DIR):
                    continue
                if fold(part) == STATE_DIR:
                    return "it is in an agent state folder (.orkas), which tools never touch"
                return f"it is in a credential folder ({part}), which tools never touch"
        for s in SYSTEM_DIRS:
            if _folded_inside(path, Path(s)):
                return f"it is in a system folder ({s}), which tools never touch"
        return None

    # -- the check ----------------------------------------------------------------------------

    def resolve(self, raw: str, base: Path | None = None) -> Path:
        """Where ``raw`` really points (symlinks, ``~``, ``..`` resolved), without checking."""
        if "\x00" in raw:
            raise PathRefused("the path contains a NUL character")
        if not raw.strip():
            raise PathRefused("the path is empty")
        if len(raw) > 4096:
            raise PathRefused(f"the path is {len(raw):,} characters long; paths stop at 4096")
        expanded = os.path.expanduser(raw) if raw.startswith("~") else raw
        try:
            return ((base or self.workspace) / expanded).resolve()
        except RuntimeError:
            raise PathRefused(f"{raw[:200]!r} is a symlink loop; it points back to itself") from None
        except OSError as exc:
            raise PathRefused(f"{raw[:200]!r} cannot be resolved: {exc.strerror}") from None

    def writable_root_of(self, path: Path) -> Path | None:
        """The workspace or allowed folder ``path`` is in (read-only roots not counted)."""
        for root in self.roots:
            if _inside(path, root):
                return root
        return None

    def readonly_root_of(self, path: Path) -> Path | None:
        for root in self.readonly_roots:
            if _inside(path, root):
                return root
        return None

    def root_of(self, path: Path) -> Path | None:
        """The root ``path`` is in for reading: a read-only root first (one inside a writable
        root is there only where that root is refused), then the writable roots."""
        for root in (*self.readonly_roots, *self.roots):
            if _inside(path, root):
                return root
        return None

    def check(self, raw: str, *, write: bool = False, base: Path | None = None) -> Resolved:
        """Resolve ``raw`` and refuse it unless the tools may use it; see the module docs."""
        path = self.resolve(raw, base)
        root = self.root_of(path)
        if root is None:
            where = ", ".join(str(r) for r in self.roots)
            raise PathRefused(
                f"{raw!r} resolves to {path}, which is outside the workspace; tools can only use "
                f"files under {where} (the user can allow more folders)"
            )
        read_only = root in self.readonly_roots
        reason = self._forbidden(path.relative_to(root)) if path != root else None
        reason = reason or self._credential_reason(path, skills=read_only)
        if reason:
            raise PathRefused(f"{raw!r} is refused: {reason}")
        if write and read_only:
            raise PathRefused(f"{raw!r} is in {root}, a read-only folder (a skill's, or one the "
                              "user made visible); tools read it but never write it")
        if write:
            self._check_writable(raw, path, root)
        return Resolved(path=path, root=root, secret=is_secret_name(path.name),
                        read_only=read_only, workspace_root=self.workspace)

    def _check_writable(self, raw: str, path: Path, root: Path) -> None:
        rel = path.relative_to(root)
        if fold(path.name) in PROTECTED_NAMES:
            raise PathRefused(
                f"{raw!r} is a shell start-up file; tools do not write it because it would run "
                "code outside the sandbox the next time you open a shell"
            )
        folded = fold(str(rel))
        for g in PROTECTED_GIT:
            if folded == g or folded.startswith(g + "/"):
                raise PathRefused(
                    f"{raw!r} is git configuration or a git hook; tools do not write it because "
                    "git would run it outside the sandbox"
                )

