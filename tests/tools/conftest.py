"""Fixtures for the workspace-tools tests: a workspace with a fake home full of canaries, an
outside folder, a loopback server standing in for the Jupyter server, and a tool caller."""

from __future__ import annotations

import http.server
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from orkas_nb.harness.cancellation import AbortSignal
from orkas_nb.harness.tools import ToolContext, ToolOutput
from orkas_nb.tools import default_tools
from orkas_nb.tools.approval import ApprovalRequest, Decision
from orkas_nb.tools.sandbox import isolation_status

CANARIES = {
    "ssh": "CANARY-SSH-7f3a",
    "aws": "CANARY-AWS-91bc",
    "outside": "CANARY-OUTSIDE-c0de",
    "env": "CANARY-ENV-5e5e",
    "state": "CANARY-STATE-0rk4",
    "kernel_env": "CANARY-KERNELKEY-4242",
    "jupyter": "CANARY-JUPYTER-8888",
}

HAS_BWRAP = isolation_status("auto").isolated
MODES = [
    pytest.param("isolated", marks=pytest.mark.skipif(not HAS_BWRAP, reason="bubblewrap unavailable")),
    "degraded",
]
HAS_SLIRP = HAS_BWRAP and isolation_status("auto", network=True).detail.find("slirp4netns:") >= 0
# The sandbox with the network allowed (through slirp4netns, loopback closed).
NET_MODE = pytest.param("isolated-net", marks=pytest.mark.skipif(
    not HAS_SLIRP, reason="bubblewrap or slirp4netns unavailable"))


class CanaryServer:
    """A loopback HTTP server that counts requests (the kernel's Jupyter server stands here)."""

    def __init__(self) -> None:
        hits = self.hits = []  # type: list[str]

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                hits.append(self.path)
                body = CANARIES["jupyter"].encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_POST = do_GET

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@dataclass
class Recorder:
    """An approver that records what it was asked and gives a fixed answer."""

    answer: Decision = Decision.DENY
    asked: list[ApprovalRequest] = field(default_factory=list)

    def __call__(self, request: ApprovalRequest) -> Decision:
        self.asked.append(request)
        return self.answer


@dataclass
class World:
    root: Path
    ws: Path
    home: Path
    outside: Path
    server: CanaryServer

    def snapshot(self) -> dict[str, bytes]:
        """Every file outside the workspace that a test could harm, with its content."""
        out: dict[str, bytes] = {}
        for base in (self.home, self.outside, self.root):
            for p in sorted(base.rglob("*")) if base != self.root else sorted(base.iterdir()):
                if p.is_file() and not p.is_symlink() and self.ws not in p.parents:
                    out[str(p)] = p.read_bytes()
        state = self.ws / ".orkas"
        for p in sorted(state.rglob("*")):
            if p.is_file() and "jobs" not in p.parts:
                out[str(p)] = p.read_bytes()
        return out


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    root = tmp_path
    ws = root / "ws"
    home = root / "home"
    outside = root / "outside"
    for d in (ws, home / ".ssh", home / ".aws", outside, ws / "sub", ws / "config",
              ws / ".orkas" / "sessions", ws / ".git" / "hooks"):
        d.mkdir(parents=True, exist_ok=True)
    (home / ".ssh" / "id_rsa").write_text(CANARIES["ssh"] + "\n")
    (home / ".aws" / "credentials").write_text(f"[default]\nkey={CANARIES['aws']}\n")
    (outside / "canary.txt").write_text(CANARIES["outside"] + "\n")
    (ws / "a.txt").write_text("hello\nworld\n")
    (ws / ".env").write_text(f"API_KEY={CANARIES['env']}\n")
    (ws / "config" / ".env.production").write_text(f"DB={CANARIES['env']}\n")
    (ws / ".orkas" / "sessions" / "main.jsonl").write_text(CANARIES["state"] + "\n")
    (ws / "link_out").symlink_to(outside, target_is_directory=True)
    (ws / "link_ssh").symlink_to(home / ".ssh" / "id_rsa")
    os.link(outside / "canary.txt", ws / "hard_link.txt")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("OPENAI_API_KEY", CANARIES["kernel_env"])
    server = CanaryServer()
    yield World(root=root, ws=ws, home=home, outside=outside, server=server)
    server.close()


class Caller:
    """Calls tools the way the dispatcher does (validate, then execute) and keeps the text."""

    def __init__(self, tools: list[Any], ws: Path, services: dict[str, Any] | None = None) -> None:
        self.tools = {t.name: t for t in tools}
        self.ctx = ToolContext(workspace=ws, abort=AbortSignal(), services=services or {})

    async def __call__(self, name: str, **arguments: Any) -> tuple[bool, str, ToolOutput | None]:
        """(ok, text, output): ok is False for a refusal or failure, with the text the model sees."""
        tool = self.tools[name]
        try:
            args = tool.validate(arguments)
            out = await tool.execute(args, self.ctx)
        except Exception as exc:  # the dispatcher turns these into error observations
            return False, f"Error: {exc}", None
        return not out.is_error, out.text, out


@pytest.fixture
def make_caller(world: World):
    def make(mode: str = "degraded", approver: Any = None, **settings: Any) -> Caller:
        settings.setdefault("isolation", "off" if mode == "degraded" else "bubblewrap")
        if mode == "isolated-net":
            settings.setdefault("network", True)
        tools = default_tools(world.ws, approver=approver, settings=settings)
        return Caller(tools, world.ws)

    return make
