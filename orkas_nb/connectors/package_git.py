"""Getting an external package's repository: which sources are allowed, and a git that runs
nothing the repository brings.

Allowed sources (seed 003 §4: "the clone source is limited to a list of allowed protocols"):

- ``https://`` and ``ssh://`` (and the scp-like ``user@host:path``) to any host;
- ``git://`` and ``http://`` to a loopback host only (a local mirror, the tests' ``git
  daemon``): unauthenticated and unencrypted, anyone on the path could swap the code;
- never ``file://``, a local path, ``ext::``/``fd::`` or any other transport helper.

The URL is checked before git starts, and git is held to the same one protocol by
``GIT_ALLOW_PROTOCOL`` and ``protocol.allow=never`` (so a redirect or a submodule cannot switch
to another). The clone is shallow, without submodules, without the template's hooks
(``--template=``, ``core.hooksPath=/dev/null``), and checked out only after its tree was read:
a tree holding a symlink (mode 120000) is refused before anything lands on disk.
"""

from __future__ import annotations

import ipaddress
import os
import re
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

from ..core.errors import ConfigError

__all__ = ["PackageRefused", "check_source", "clone", "fetch_update", "symlinks_in", "tree_symlinks"]

GIT_TIMEOUT_S = 300.0
_SCP_LIKE = re.compile(r"^(?P<user>[A-Za-z0-9._-]+@)?(?P<host>[A-Za-z0-9.-]+):(?P<path>[^/\\].*)$")
# What git may keep of the caller's environment: ssh settings the user chose; every other
# GIT_* (GIT_DIR, GIT_CONFIG_*, GIT_EXEC_PATH...) would change what git does or runs.
_GIT_ENV_KEPT = ("GIT_SSH", "GIT_SSH_COMMAND", "GIT_SSH_VARIANT")


class PackageRefused(ConfigError):
    """A package source or content that is never installed; nothing was kept."""


def _loopback(host: str | None) -> bool:
    if not host:
        return False
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_source(url: str) -> str:
    """The git protocol ``url`` uses, or :class:`PackageRefused` saying why it is not allowed."""
    url = url.strip()
    if not url or url.startswith("-") or any(c in url for c in "\x00\n\r"):
        raise PackageRefused(f"{url!r} is not a repository address")
    if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*::", url):
        raise PackageRefused(f"{url.split('::')[0]}:: transports run programs; only https, ssh "
                             "(and git/http on this machine) are allowed")
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if not scheme or "://" not in url:
        m = _SCP_LIKE.match(url)
        if m and "/" not in m.group("host"):
            return "ssh"
        raise PackageRefused(f"{url!r} is a local path; packages are cloned from https or ssh "
                             "addresses only (file:// and local folders are refused)")
    if scheme in ("https", "ssh", "git+ssh", "ssh+git"):
        if not parts.hostname:
            raise PackageRefused(f"{url!r} names no host")
        return "ssh" if "ssh" in scheme else "https"
    if scheme in ("git", "http"):
        if _loopback(parts.hostname):
            return scheme
        raise PackageRefused(f"{scheme}:// is unauthenticated and unencrypted; it is allowed only "
                             f"for a server on this machine (127.0.0.1), not {parts.hostname!r}: "
                             "use https:// or ssh")
    raise PackageRefused(f"the {scheme}:// protocol is not allowed for packages; use https or ssh")


def _git_env(protocol: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_") or k in _GIT_ENV_KEPT}
    env.update({"GIT_ALLOW_PROTOCOL": protocol, "GIT_TERMINAL_PROMPT": "0",
                "GIT_CONFIG_NOSYSTEM": "1", "GCM_INTERACTIVE": "never"})
    return env


def _git(args: list[str], protocol: str, cwd: Path | None = None) -> str:
    argv = ["git", "-c", "protocol.allow=never", "-c", f"protocol.{protocol}.allow=always",
            "-c", "core.hooksPath=/dev/null", "-c", "submodule.recurse=false",
            "-c", "core.symlinks=false", "-c", "transfer.fsckObjects=true", *args]
    try:
        done = subprocess.run(argv, cwd=cwd, env=_git_env(protocol), capture_output=True,
                              check=False, text=True, timeout=GIT_TIMEOUT_S,
                              stdin=subprocess.DEVNULL)
    except FileNotFoundError:
        raise ConfigError("git is not installed; packages are git repositories") from None
    except subprocess.TimeoutExpired:
        raise ConfigError(f"git {args[0]} did not finish in {GIT_TIMEOUT_S:.0f} s") from None
    if done.returncode != 0:
        err = done.stderr.strip().splitlines()
        raise ConfigError(f"git {args[0]} failed: {err[-1] if err else 'exit ' + str(done.returncode)}")
    return done.stdout


def tree_symlinks(repo: Path, rev: str, protocol: str) -> list[str]:
    """Paths of ``rev``'s tree that are symlinks (mode 120000), read from git, not the disk."""
    out = _git(["ls-tree", "-r", "-z", "--full-tree", rev], protocol, cwd=repo)
    found = []
    for entry in out.split("\0"):
        meta, _, path = entry.partition("\t")
        if meta.split(" ")[:1] == ["120000"]:
            found.append(path)
    return found


def symlinks_in(folder: Path) -> list[str]:
    """Every symlink under ``folder`` on disk (``.git`` included), relative; never followed."""
    found = []
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
        for name in [*dirnames, *filenames]:
            p = os.path.join(dirpath, name)
            if os.path.islink(p):
                found.append(os.path.relpath(p, folder))
    return sorted(found)


def _refuse_links(links: list[str], what: str) -> None:
    if links:
        shown = ", ".join(links[:5]) + (f" and {len(links) - 5} more" if len(links) > 5 else "")
        raise PackageRefused(f"{what} contains symbolic links ({shown}); a package with a symlink "
                             "could expose files outside the sandbox, so it is refused")


def clone(url: str, dest: Path) -> str:
    """Clone ``url`` into ``dest`` (which must not exist) as described in the module docs; the
    commit checked out. On any refusal or failure ``dest`` is removed."""
    import shutil

    protocol = check_source(url)
    try:
        _git(["clone", "--depth", "1", "--no-checkout", "--no-recurse-submodules", "--template=",
              "--single-branch", "--", url, str(dest)], protocol)
        _refuse_links(tree_symlinks(dest, "HEAD", protocol), "the repository")
        _git(["checkout", "-q", "-f", "HEAD", "--", "."], protocol, cwd=dest)
        _refuse_links(symlinks_in(dest), "the checked-out package")
        return _git(["rev-parse", "HEAD"], protocol, cwd=dest).strip()
    except BaseException:
        shutil.rmtree(dest, ignore_errors=True)
        raise


def fetch_update(url: str, repo: Path) -> str:
    """Bring ``repo`` to the newest commit of its branch; a new tree with a symlink is refused
    before it is checked out (the installed version stays). The commit now checked out."""
    protocol = check_source(url)
    _git(["fetch", "--depth", "1", "--no-recurse-submodules", "-q", "origin"], protocol, cwd=repo)
    _refuse_links(tree_symlinks(repo, "FETCH_HEAD", protocol), "the update")
    _git(["reset", "-q", "--hard", "FETCH_HEAD"], protocol, cwd=repo)
    _git(["clean", "-q", "-fdx"], protocol, cwd=repo)
    _refuse_links(symlinks_in(repo), "the updated package")
    return _git(["rev-parse", "HEAD"], protocol, cwd=repo).strip()
