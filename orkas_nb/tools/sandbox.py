"""OS isolation for bash (bubblewrap on Linux) and the environment each command gets.

With bubblewrap a command sees: the system folders read-only, each tool folder on the kernel's
``PATH`` and the Python prefix read-only as themselves (never their parents: see ``_binds.py``),
the workspace and allowed folders read-write, an empty private home and ``/tmp``, no network
(unless allowed), its own process namespace with a fresh ``/proc``, no capabilities. The
workspace's ``.orkas`` state, secret files (until consent), git hooks/config and shell start-up
files are masked or made read-only inside it, and every credential location (``credentials.py``)
that any bind exposes is masked last, at its real path. Facts checked on Debian's bubblewrap 0.8
(SPEC §8).

Without bubblewrap (not installed, not Linux, or user namespaces refused) the executor runs in
*degraded mode*: :func:`isolation_status` says so and why, and the risk grader asks for approval
for anything it cannot confine.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from typing import NamedTuple

from ._binds import credential_masks, toolchain_dirs
from .credentials import CREDENTIAL_NAMES, credential_paths, inside
from .paths import PROTECTED_GIT, PROTECTED_NAMES, STATE_DIR, PathPolicy, fold, is_secret_name

SYSTEM_RO = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt",
             "/nix", "/snap")
# Readable by root under /etc but secret: masked with an empty file.
MASKED_SYSTEM_FILES = ("/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-",
                       "/etc/sudoers", "/etc/ssh/ssh_host_rsa_key", "/etc/ssh/ssh_host_ecdsa_key",
                       "/etc/ssh/ssh_host_ed25519_key", "/etc/machine-id")
BASE_ENV = ("PATH", "LANG", "LANGUAGE", "TERM", "TZ", "USER", "LOGNAME", "SHELL", "VIRTUAL_ENV",
            "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "PYENV_ROOT", "PYENV_VERSION", "JAVA_HOME",
            "CARGO_HOME", "RUSTUP_HOME", "GOPATH", "GOROOT", "NVM_DIR", "PYTHONPATH")
SECRET_ENV = re.compile(
    r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE|^AWS_|^AZURE_|^GOOGLE_|"
    r"^GCP_|^OPENAI|^ANTHROPIC|^HF_|^JPY_|^JUPYTER|^GH_|^GITHUB_|^SSH_|^GPG_|^ORKAS_", re.IGNORECASE)
FORBIDDEN_ENV = re.compile(r"^(LD_|DYLD_|BASH_ENV$|ENV$|BASH_FUNC_|PROMPT_COMMAND$|SHELLOPTS$|"
                           r"BASHOPTS$|PS4$|IFS$|GIT_|PYTHONSTARTUP$|PERL5OPT$|NODE_OPTIONS$)")
SECRET_SCAN_LIMIT = 20_000


@dataclass(frozen=True)
class IsolationStatus:
    """Whether bash commands run isolated, and if not, why (``%agent config`` shows it)."""

    mode: str  # "bubblewrap" or "none"
    detail: str

    @property
    def isolated(self) -> bool:
        return self.mode == "bubblewrap"


@lru_cache(maxsize=1)
def _probe() -> IsolationStatus:
    if not sys.platform.startswith("linux"):
        return IsolationStatus("none", f"no OS isolation on {sys.platform}; risky commands need approval")
    exe = shutil.which("bwrap")
    if exe is None:
        return IsolationStatus(
            "none", "bubblewrap is not installed (Debian/Ubuntu: apt-get install bubblewrap); "
            "commands run unconfined and anything leaving the workspace needs approval")
    try:
        done = subprocess.run(
            [exe, "--ro-bind", "/", "/", "--unshare-net", "--unshare-pid", "--die-with-parent",
             "--cap-drop", "ALL", "--", "/bin/true"], capture_output=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return IsolationStatus("none", f"bubblewrap could not start: {exc}")
    if done.returncode != 0:
        err = done.stderr.decode(errors="replace").strip()[:200]
        return IsolationStatus("none", f"bubblewrap is installed but refused to run here ({err}); "
                               "user namespaces may be disabled")
    return IsolationStatus("bubblewrap", f"bubblewrap ({exe}): system read-only, workspace "
                           "writable, home and credentials hidden")


def isolation_status(setting: str = "auto", network: bool = False) -> IsolationStatus:
    """The isolation bash will use under ``setting`` ("auto", "bubblewrap" or "off")."""
    status = _status(setting)
    if network and status.isolated:
        from . import _netns

        if _netns.available():
            return IsolationStatus(status.mode, status.detail + "; network ON through "
                                   "slirp4netns: the internet is reachable, this machine's "
                                   "loopback services (the Jupyter server) are not")
        return IsolationStatus(status.mode, status.detail + "; network ON: commands can reach the "
                               "internet and local services, the Jupyter server included "
                               "(install slirp4netns to keep loopback closed)")
    return status


def _status(setting: str) -> IsolationStatus:
    if setting == "off":
        return IsolationStatus("none", "isolation turned off in the settings; risky commands "
                               "and paths outside the workspace need approval")
    status = _probe()
    if setting == "bubblewrap" and not status.isolated:
        from ..core.errors import ConfigError

        raise ConfigError(f"isolation 'bubblewrap' was asked for but is unavailable: {status.detail}")
    return status


def build_env(
    base: Mapping[str, str], home: Path, extra_names: Iterable[str] = (),
    values: Mapping[str, str] | None = None, per_call: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The environment of one command: an allow-list copied from ``base``, never ``os.environ``
    itself; secrets are dropped even when their name was allowed."""
    env: dict[str, str] = {}
    names = set(BASE_ENV) | set(extra_names)
    for name, value in base.items():
        if (name in names or name.startswith("LC_")) and not SECRET_ENV.search(name):
            env[name] = value
    env.update({"HOME": str(home), "PAGER": "cat", "GIT_PAGER": "cat", "MPLBACKEND": "Agg",
                "TMPDIR": "/tmp", "PYTHONDONTWRITEBYTECODE": "1"})
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    env.setdefault("LANG", "C.UTF-8")
    for source in (values or {}), (per_call or {}):
        for name, value in source.items():
            check_env_name(name)
            env[name] = value
    return env


def check_env_name(name: str) -> None:
    from ..core.errors import ToolError

    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise ToolError(f"{name!r} is not a valid environment variable name")
    if FORBIDDEN_ENV.match(name):
        raise ToolError(f"setting {name} is not allowed: it changes what programs load or run")


@dataclass
class _DirScan:
    mtime_ns: int
    subdirs: list[str]
    secrets: list[Path]
    linked: list[Path]
    credential_dirs: list[Path]


class Masked(NamedTuple):
    """What :func:`scan_masked` finds under a bound folder."""

    secrets: list[Path]
    linked: list[Path]
    credential_dirs: list[Path]


_scan_cache: dict[Path, _DirScan] = {}


def scan_masked(root: Path) -> Masked:
    """Secret files, hard-linked files and credential folders (``.ssh``... by name) under
    ``root``, to mask inside the sandbox.

    Secrets stay masked until the user consents. A file with several hard links may be another
    name for a file outside the workspace (the bind of the workspace would expose that inode),
    so it is masked always. The scan skips the same folders as search and is bounded. A folder
    whose modification time has not changed is not listed again: a new name in it (a new file,
    a new hard link) changes that time, so the cache cannot hide one.
    """
    from .search import IGNORED_DIRS

    secrets: list[Path] = []
    linked: list[Path] = []
    creds: list[Path] = []
    pending = [root]
    seen = 0
    while pending and seen <= SECRET_SCAN_LIMIT:
        folder = pending.pop()
        try:
            mtime = os.stat(folder, follow_symlinks=False).st_mtime_ns
        except OSError:
            continue
        cached = _scan_cache.get(folder)
        # A folder changed in the last two seconds is listed again: some disks keep coarse times.
        if cached is None or cached.mtime_ns != mtime or time.time_ns() - mtime < 2_000_000_000:
            cached = _scan_folder(folder, mtime, IGNORED_DIRS)
            _scan_cache[folder] = cached
        seen += len(cached.subdirs) + len(cached.secrets) + len(cached.linked) + 1
        secrets += cached.secrets
        linked += cached.linked
        creds += cached.credential_dirs
        pending.extend(folder / d for d in cached.subdirs)
    return Masked(secrets, linked, creds)


def _scan_folder(folder: Path, mtime: int, ignored: frozenset[str]) -> _DirScan:
    scan = _DirScan(mtime, [], [], [], [])
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return scan
    for entry in entries:
        try:
            if entry.is_dir(follow_symlinks=False):
                if fold(entry.name) in CREDENTIAL_NAMES and entry.name != STATE_DIR:
                    scan.credential_dirs.append(Path(entry.path))
                elif entry.name not in ignored:
                    scan.subdirs.append(entry.name)
            elif entry.is_file(follow_symlinks=False):
                if is_secret_name(entry.name):
                    scan.secrets.append(Path(entry.path))
                elif entry.stat(follow_symlinks=False).st_nlink > 1:
                    scan.linked.append(Path(entry.path))
        except OSError:
            continue
    return scan


def bwrap_argv(
    policy: PathPolicy, cwd: Path, toolchain_env: Mapping[str, str], *, network: bool,
    readonly_extra: Iterable[str] = (), consented_secrets: bool = False,
    die_with_parent: bool = True,
) -> list[str]:
    """The bubblewrap command line that confines one shell command (see the module docs).

    ``toolchain_env`` is the environment the tool binds are read from (``PATH``, Python and tool
    homes): the kernel's, never one the model set for a call (that would let it bind any folder
    by naming it in ``PATH``).
    """
    argv = ["bwrap", "--die-with-parent"] if die_with_parent else ["bwrap"]
    argv += ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--cap-drop", "ALL"]
    if not network:
        argv.append("--unshare-net")
    sources: list[Path] = []
    for d in SYSTEM_RO:
        if os.path.isdir(d):
            if os.path.islink(d):
                argv += ["--symlink", os.readlink(d), d]
            else:
                argv += ["--ro-bind", d, d]
                sources.append(Path(d).resolve())
    for f in MASKED_SYSTEM_FILES:
        if os.path.exists(f):
            argv += ["--ro-bind", "/dev/null", f]
    # A fresh /proc in the command's own PID namespace: the kernel's /proc/<pid>/root, environ
    # and fd are not there to read.
    argv += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", "/run",
             "--tmpfs", "/var", "--tmpfs", "/home", "--dir", "/var/tmp"]
    home = policy.home
    argv += ["--tmpfs", str(home)] if str(home) not in ("/tmp", "/") else []
    if Path("/root") != home:
        argv += ["--tmpfs", "/root"]
    extras = policy.check_readonly_extras(readonly_extra)
    # The user's settings may move a tool home (env={"CARGO_HOME": ...}): its credentials too.
    creds = tuple(dict.fromkeys(policy.credential_dirs + credential_paths(None, toolchain_env)))
    tools = toolchain_dirs(toolchain_env, home, policy.roots, creds, SYSTEM_RO)
    state = policy.workspace / STATE_DIR
    # A skill folder in the workspace's .orkas goes over the state's tmpfs, read-only.
    in_state = [e for e in extras if inside(e, state)]
    for extra in [*tools, *(e for e in extras if e not in in_state)]:
        if not any(inside(extra, s) for s in SYSTEM_RO):
            argv += ["--ro-bind-try", str(extra), str(extra)]
            sources.append(extra)
    for root in policy.roots:
        argv += ["--bind", str(root), str(root)]
        sources.append(root)
    state.mkdir(exist_ok=True)
    argv += ["--tmpfs", str(state)]
    for extra in in_state:
        argv += ["--ro-bind-try", str(extra), str(extra)]
        sources.append(extra)
    named: list[Path] = []
    for root in policy.roots:
        for rel in (*PROTECTED_NAMES, *PROTECTED_GIT):
            # At its real path: a symlink planted in the workspace would make bwrap fail (and
            # the file it points to is what the user's shell or git would run).
            p = (root / rel).resolve()
            if p.exists() and any(inside(p, r) for r in policy.roots) and (
                    rel in PROTECTED_GIT or p.is_file()):
                argv += ["--ro-bind", str(p), str(p)]
    for folder in policy.roots:
        found = scan_masked(folder)
        for p in found.linked + ([] if consented_secrets else found.secrets):
            argv += ["--ro-bind", "/dev/null", str(p)]
        named += found.credential_dirs
    for folder in extras:
        # Only credential folders by name: an extra is often an environment full of hard links
        # and certificate bundles (conda) that its programs need.
        named += scan_masked(folder).credential_dirs
    # Last, so that no bind above can bring a credential back, whichever folder held it.
    argv += credential_masks(sources, creds, [*policy.roots, *extras], named)
    argv += ["--chdir", str(cwd)]
    return argv
