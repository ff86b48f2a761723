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

from orkas_nb.harness.approval import ApprovalRequest, Decision
from orkas_nb.harness.cancellation import AbortSignal
from orkas_nb.harness.tool_protocol import ToolContext, ToolOutput
from orkas_nb.tools import default_tools
from orkas_nb.tools.sandbox import isolation_status

CANARIES = {
    "ssh": "CANARY-SSH-7f3a",
    "aws": "CANARY-AWS-91bc",
    "outside": "CANARY-OUTSIDE-c0de",
    "env": "CANARY-ENV-5e5e",
    "state": "CANARY-STATE-0rk4",
    "kernel_env": "CANARY-KERNELKEY-4242",
    "jupyter": "CANARY-JUPYTER-8888",
    "cargo": "CANARY-CARGO-c4r9",
    "project": "CANARY-OTHER-PROJECT-77aa",
    "team": "CANARY-TEAM-7e4m",
    "gh": "CANARY-GH-TOKEN-6b6b",
    "docker": "CANARY-DOCKER-d0c4",
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

    @property
    def extras(self) -> list[str]:
        """Read-only extras a user might share that hold credential folders (.config holds gh,
        dotfiles holds the real ~/.docker, the XDG config folder holds gh again)."""
        return [str(self.home / ".config"), str(self.home / "dotfiles"), str(self.root / "xdg")]

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
    _toolchains_and_dotfiles(root, home, ws)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(root / "xdg"))
    path = [home / ".cargo" / "bin", root / "tools" / "bin", root / "team" / "tools" / "bin",
            home / "projects" / ".venv" / "bin", ws / ".venv" / "bin"]
    monkeypatch.setenv("PATH", os.pathsep.join([*map(str, path), os.environ.get("PATH", "")]))
    monkeypatch.setenv("OPENAI_API_KEY", CANARIES["kernel_env"])
    server = CanaryServer()
    yield World(root=root, ws=ws, home=home, outside=outside, server=server)
    server.close()


def _toolchains_and_dotfiles(root: Path, home: Path, ws: Path) -> None:
    """What a developer's machine has: tool folders on PATH (rustup's ~/.cargo/bin, a project's
    venv, a tool folder next to the workspace, a team's tools) beside user data and credentials,
    and dotfiles kept in a folder with the real credential folder linked from home."""
    for d in (home / ".cargo" / "bin", home / "projects" / ".venv" / "bin",
              home / "projects" / ".venv" / "lib", home / "projects" / "other",
              root / "tools" / "bin", root / "team" / "tools" / "bin", home / ".config" / "gh",
              home / ".config" / "tool", home / "dotfiles" / "docker", root / "xdg" / "gh"):
        d.mkdir(parents=True, exist_ok=True)
    (home / ".cargo" / "credentials.toml").write_text(
        f'[registry]\ntoken = "{CANARIES["cargo"]}"\n')
    (home / "projects" / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (home / "projects" / "other" / "notes.txt").write_text(CANARIES["project"] + "\n")
    (root / "team" / "secret.txt").write_text(CANARIES["team"] + "\n")
    (home / ".config" / "gh" / "hosts.yml").write_text(f"oauth_token: {CANARIES['gh']}\n")
    (root / "xdg" / "gh" / "hosts.yml").write_text(f"oauth_token: {CANARIES['gh']}\n")
    (home / ".config" / "tool" / "settings.ini").write_text("colour = blue\n")
    (home / "dotfiles" / "docker" / "config.json").write_text(
        f'{{"auths": {{"r": {{"auth": "{CANARIES["docker"]}"}}}}}}\n')
    (home / ".docker").symlink_to(home / "dotfiles" / "docker", target_is_directory=True)
    for tool in (home / ".cargo" / "bin" / "cargo-fmt", root / "tools" / "bin" / "lint"):
        tool.write_text("#!/bin/sh\necho tool-ran\n")
        tool.chmod(0o755)
    # The workspace's own venv is on PATH too, and the model can write in it: what it plants
    # there (a pyvenv.cfg naming a folder, a "program" linked to a file) must not be bound.
    (ws / ".venv" / "bin").mkdir(parents=True)
    (ws / ".venv" / "pyvenv.cfg").write_text(f"home = {root / 'team'}\n")
    (ws / ".venv" / "bin" / "tool").symlink_to(root / "outside" / "canary.txt")
    (ws / "link_cargo").symlink_to(home / ".cargo" / "credentials.toml")
    (ws / "link_docker").symlink_to(home / "dotfiles" / "docker", target_is_directory=True)


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
