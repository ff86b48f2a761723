"""Real MCP servers for the connector tests, started by fixtures and stopped by PID.

- ``mcp-server-time`` and ``mcp-server-git`` (PyPI, the test extra): on PATH.
- The reference "everything" server (npm): in ``$ORKAS_TEST_NPM_DIR`` (``.ci/run`` installs it
  there), else installed by npm into ``~/.cache/orkas_nb/test-npm`` on first use. Without node
  or npm the tests that need it skip, saying so (in CI a skip fails: tests/conftest.py).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from tests.fakes.fixtures import model_server  # noqa: F401

EVERYTHING = "@modelcontextprotocol/server-everything"
EVERYTHING_VERSION = "2026.8.31"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's config folder (and so the key, vault and consent) for this test only."""
    cfg = tmp_path / "user-config"
    monkeypatch.setenv("ORKAS_CONFIG_DIR", str(cfg))
    monkeypatch.delenv("ORKAS_SECRETS_DIR", raising=False)
    monkeypatch.setenv("ORKAS_KEYRING", "0")  # the key file, whatever this machine has
    yield cfg
    from orkas_nb.connectors import runtime

    pids = [s.pid for s in runtime.manager().running() if s.pid]
    runtime.shutdown()
    for pid in pids:
        assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    w = tmp_path / "ws"
    w.mkdir()
    return w


def _npm_dir() -> Path:
    explicit = os.environ.get("ORKAS_TEST_NPM_DIR")
    return Path(explicit) if explicit else Path.home() / ".cache" / "orkas_nb" / "test-npm"


@pytest.fixture(scope="session")
def everything_js() -> Path:
    """The everything server's entry point (installed with npm if it is not there yet)."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("node and npm are not installed: the npm 'everything' MCP server cannot run")
    prefix = _npm_dir()
    entry = prefix / "node_modules" / EVERYTHING / "dist" / "index.js"
    if not entry.exists():
        prefix.mkdir(parents=True, exist_ok=True)
        subprocess.run([npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund",
                        f"{EVERYTHING}@{EVERYTHING_VERSION}"], check=True, capture_output=True,
                       timeout=600)
    assert entry.exists(), f"npm did not install {EVERYTHING} under {prefix}"
    return entry


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def everything_http(everything_js: Path, tmp_path: Path) -> Iterator[str]:
    """The everything server over streamable HTTP on loopback; its URL. Stopped by PID."""
    port = _free_port()
    log = open(tmp_path / "everything-http.log", "w")
    proc = subprocess.Popen(["node", str(everything_js), "streamableHttp"], stdout=log,
                            stderr=subprocess.STDOUT, env={**_plain_env(), "PORT": str(port)})
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                assert proc.poll() is None, (tmp_path / "everything-http.log").read_text()
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
        assert not psutil.pid_exists(proc.pid) or psutil.Process(proc.pid).status() == psutil.STATUS_ZOMBIE


def _plain_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG")}


@pytest.fixture
def approve_all():
    """An approver that answers "for this run" and keeps what it was asked."""
    asked: list = []

    def approver(request):  # type: ignore[no-untyped-def]
        asked.append(request)
        return "run"

    approver.asked = asked  # type: ignore[attr-defined]
    return approver


PYTHON = sys.executable
