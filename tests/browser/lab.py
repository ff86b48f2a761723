"""A JupyterLab server and a Debian chromium for the browser tests (SPEC §14.1).

One server and one browser per test session (2-core CI); each test gets a fresh page. The
server runs on loopback with a token, its own config/runtime/settings folders (the news pop-up
is silenced through ``overrides.json``) and is stopped by PID.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CHROMIUM = os.environ.get("ORKAS_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
OVERRIDES = {
    "@jupyterlab/apputils-extension:notification": {"checkForUpdates": False, "fetchNews": "false"},
    "@jupyterlab/notebook-extension:tracker": {"windowingMode": "none"},
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class LabServer:
    root: Path
    port: int
    token: str
    proc: subprocess.Popen[bytes]
    log_path: Path
    home: Path

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str) -> str:
        sep = "&" if "?" in path else "?"
        return f"{self.base}/{path.lstrip('/')}{sep}token={self.token}"

    def api(self, path: str, method: str = "GET") -> Any:
        req = urllib.request.Request(f"{self.base}/api/{path}", method=method,
                                     headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(req, timeout=10) as r:
            body = r.read()
        return json.loads(body) if body else None

    def wait_kernel_ready(self, timeout: float = 60.0) -> dict[str, Any]:
        """Until a kernel is idle with a browser connected (before that, keys are dropped)."""
        deadline = time.monotonic() + timeout
        kernels: list[dict[str, Any]] = []
        while time.monotonic() < deadline:
            try:
                kernels = self.api("kernels")
            except urllib.error.HTTPError as exc:
                # jupyter_server answers 500 while a kernel is half-started (its last_activity
                # is still None: a TraitError in list_kernels); ask again.
                if exc.code < 500:
                    raise
                time.sleep(0.25)
                continue
            ready = [k for k in kernels if k["execution_state"] == "idle" and k["connections"] > 0]
            if ready:
                return ready[0]
            time.sleep(0.25)
        raise TimeoutError(f"no idle connected kernel after {timeout} s: {kernels}")

    def disable_extension(self, name: str, disabled: bool = True) -> None:
        """Disable a labextension for the pages loaded from now on (the server reads this file
        on every page load), as ``jupyter labextension disable`` would."""
        path = self.home / "config" / "labconfig" / "page_config.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"disabledExtensions": {name: disabled}}))

    def shutdown_kernels(self) -> None:
        for k in self.api("kernels"):
            try:
                self.api(f"kernels/{k['id']}", method="DELETE")
            except Exception:  # noqa: BLE001, S110 - already gone
                pass

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)


def start_lab(root: Path, home: Path) -> LabServer:
    port, token = free_port(), secrets.token_hex(16)
    settings = home / "app-settings"
    settings.mkdir(parents=True, exist_ok=True)
    (settings / "overrides.json").write_text(json.dumps(OVERRIDES))
    env = {
        **os.environ,
        "JUPYTER_CONFIG_DIR": str(home / "config"),
        "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
        "JUPYTERLAB_SETTINGS_DIR": str(home / "user-settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"),
        "IPYTHONDIR": str(home / "ipython"),
        "PYTHONUNBUFFERED": "1",
        # Kernels inherit it: a loaded CI machine must not turn a slow answer into a fallback.
        "ORKAS_HANDSHAKE_TIMEOUT": "3",
    }
    log_path = home / "jupyterlab.log"
    cmd = [
        sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root",
        "--ip=127.0.0.1", f"--port={port}", "--port-retries=0",
        f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
        f"--LabApp.app_settings_dir={settings}", "--LabApp.expose_app_in_browser=True",
        "--LabApp.news_url=", "--ServerApp.disable_check_xsrf=False",
    ]
    log = log_path.open("wb")
    proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=log, stderr=subprocess.STDOUT)
    server = LabServer(root=root, port=port, token=token, proc=proc, log_path=log_path, home=home)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"jupyter lab exited: {log_path.read_text(errors='replace')[-3000:]}")
        try:
            server.api("status")
            return server
        except Exception:  # noqa: BLE001 - not up yet
            time.sleep(0.3)
    server.stop()
    raise TimeoutError(f"jupyter lab did not start: {log_path.read_text(errors='replace')[-3000:]}")


def have_browser_stack() -> str | None:
    """Why the browser tests cannot run here, or None."""
    if not Path(CHROMIUM).exists():
        return f"{CHROMIUM} not found (apt-get install chromium)"
    try:
        import playwright  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install playwright; never `playwright install`)"
    if shutil.which("jupyter-lab") is None and not _has_module("jupyterlab"):
        return "jupyterlab is not installed"
    return None


def _has_module(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None
