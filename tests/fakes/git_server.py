"""A real git server on loopback for the package tests: ``git daemon`` on 127.0.0.1 (a free
port), serving bare repositories made from folders; stopped by its PID.

    server = GitDaemon(tmp_path / "served").start()
    url = server.publish("hello-cli", {"bin/hello": ("#!/bin/sh\\necho hi\\n", 0o755)})
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Mapping
from pathlib import Path

# path -> text, (text, mode), or ("->", target) for a symlink
Files = Mapping[str, "str | tuple[str, int]"]
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid",
           "GIT_CONFIG_NOSYSTEM": "1", "HOME": "/nonexistent"}


def _git(*args: str, cwd: Path | None = None) -> str:
    env = {**os.environ, **GIT_ENV}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True,
                          text=True).stdout


def write_tree(folder: Path, files: Files) -> None:
    for rel, spec in files.items():
        p = folder / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(spec, tuple) and spec[0] == "->":
            if p.is_symlink() or p.exists():
                p.unlink()
            p.symlink_to(spec[1])
            continue
        text, mode = (spec, 0o644) if isinstance(spec, str) else spec
        p.write_text(text)
        os.chmod(p, mode)


class GitDaemon:
    def __init__(self, base: Path) -> None:
        self.base = base
        self.base.mkdir(parents=True, exist_ok=True)
        self.proc: subprocess.Popen[bytes] | None = None
        self.port = 0

    def start(self) -> GitDaemon:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.proc = subprocess.Popen(
            ["git", "daemon", "--reuseaddr", "--export-all", "--listen=127.0.0.1",
             f"--port={self.port}", f"--base-path={self.base}", str(self.base)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError("git daemon did not start")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)  # its own session: the daemon's children too
            self.proc.wait(5)

    def publish(self, name: str, files: Files, work: Path | None = None) -> str:
        """Commit ``files`` to the repository ``name`` (made on first use); its git:// URL."""
        work = work or self.base.parent / "work" / name
        if not (work / ".git").exists():
            work.mkdir(parents=True, exist_ok=True)
            _git("init", "-q", "-b", "main", cwd=work)
        write_tree(work, files)
        _git("add", "-A", cwd=work)
        _git("commit", "-q", "-m", "publish", "--allow-empty", cwd=work)
        bare = self.base / f"{name}.git"
        if not bare.exists():
            _git("clone", "-q", "--bare", str(work), str(bare))
        else:
            _git("push", "-q", "--force", str(bare), "main", cwd=work)
        return f"git://127.0.0.1:{self.port}/{name}.git"

    def remove(self, name: str, rel: str) -> None:
        work = self.base.parent / "work" / name
        _git("rm", "-q", rel, cwd=work)
