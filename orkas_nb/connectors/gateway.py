"""The reverse gateway: an external agent that orkas_nb gave work calls back into this
workspace — its skills, its knowledge base, its connectors — over MCP (seed 003 §4).

The channel is local and opens no network port: a Unix socket in a private folder (mode 0700,
socket 0600) made for the gateway and removed with it. Each run gets a **one-time credential**
(32 random bytes; only its SHA-256 is kept), given to the external program in its environment
and in an ``mcpServers`` file beside the socket. A connection's first line authenticates::

    → {"orkas_gateway": 1, "token": "…"}
    ← {"ok": true}                 then MCP (JSON-RPC, one message a line, as over stdio)
    ← {"ok": false, "error": "wrong credential"}    and the connection closes

A missing, wrong or expired credential (its run ended, or it outlived its time limit) is
refused; ending a run destroys its credential and closes its connections. Any MCP client that
speaks stdio reaches the socket through :mod:`.gateway_bridge` (stdlib only), which the
``mcpServers`` file names. What the gateway serves is given by the composition root as
:class:`GatewayTool` handlers (this layer may not import the skills or the knowledge base);
confirmation of calls with external effects happens inside those handlers, through the same
per-(agent, connector) path as the agent's own connector calls.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import os
import secrets
import shutil
import socket
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["BRIDGE", "Credential", "Gateway", "GatewayReply", "GatewayTool"]

BRIDGE = Path(__file__).with_name("gateway_bridge.py")
AUTH_TIMEOUT_S = 5.0
MAX_LINE = 4 * 1024 * 1024
_ENDED_KEPT = 256  # credentials of ended runs remembered (to say "expired", not "wrong")


@dataclass(frozen=True)
class GatewayReply:
    """A tool's answer with more than text: images (media type, base64) and a JSON object."""

    text: str
    is_error: bool = False
    images: list[tuple[str, str]] = field(default_factory=list)
    structured: dict[str, Any] | None = None


@dataclass(frozen=True)
class GatewayTool:
    """One tool the gateway serves: ``handler(arguments)`` returns a :class:`GatewayReply`."""

    name: str
    description: str
    input_schema: dict[str, Any]
    handler: Callable[[dict[str, Any]], Awaitable[GatewayReply]]


@dataclass(frozen=True)
class Credential:
    """What one run's external program is given to reach the gateway."""

    token: str
    socket_path: Path
    config_path: Path
    expires_at: float

    def env(self) -> dict[str, str]:
        return {"ORKAS_GATEWAY_SOCKET": str(self.socket_path), "ORKAS_GATEWAY_TOKEN": self.token,
                "ORKAS_GATEWAY_MCP_CONFIG": str(self.config_path)}


@dataclass
class _Run:
    agent: str
    tools: dict[str, GatewayTool]
    expires_at: float
    writers: set[asyncio.StreamWriter] = field(default_factory=set)


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Gateway:
    """A Unix-socket MCP server for the runs of external agents; ``async with`` it."""

    def __init__(self, name: str = "orkas_nb") -> None:
        self.name = name
        self.folder: Path | None = None
        self._server: asyncio.AbstractServer | None = None
        self._runs: dict[str, _Run] = {}
        self._ended: dict[str, None] = {}

    @property
    def socket_path(self) -> Path:
        assert self.folder is not None, "the gateway is not started"
        return self.folder / "gateway.sock"

    async def start(self) -> Gateway:
        base = os.environ.get("XDG_RUNTIME_DIR") or tempfile.gettempdir()
        # A short path: a Unix socket's path is limited to ~107 bytes.
        self.folder = Path(tempfile.mkdtemp(prefix="orkas-gw-", dir=base if len(base) < 60 else "/tmp"))
        os.chmod(self.folder, 0o700)
        self._server = await asyncio.start_unix_server(self._serve, path=str(self.socket_path),
                                                       limit=MAX_LINE)
        os.chmod(self.socket_path, 0o600)
        return self

    async def close(self) -> None:
        for digest in list(self._runs):
            self._end(digest)
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._server.wait_closed(), 2)
            self._server = None
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)

    async def __aenter__(self) -> Gateway:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # -- credentials ------------------------------------------------------------------------

    def open_run(self, agent: str, tools: list[GatewayTool], ttl_s: float) -> Credential:
        """A new credential for one run of ``agent``, valid ``ttl_s`` seconds at most."""
        token = secrets.token_urlsafe(32)
        digest = _digest(token)
        expires = time.monotonic() + ttl_s
        self._runs[digest] = _Run(agent, {t.name: t for t in tools}, expires)
        config = self.socket_path.with_name(f"mcp-{digest[:16]}.json")
        fd = os.open(config, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump({"mcpServers": {self.name: {
                "command": sys.executable, "args": [str(BRIDGE)],
                "env": {"ORKAS_GATEWAY_SOCKET": str(self.socket_path),
                        "ORKAS_GATEWAY_TOKEN": token}}}}, f, indent=1)
        return Credential(token, self.socket_path, config, time.time() + ttl_s)

    def close_run(self, credential: Credential) -> None:
        """End a run: its credential is destroyed, its connections closed."""
        self._end(_digest(credential.token))
        with contextlib.suppress(FileNotFoundError):
            credential.config_path.unlink()

    def _end(self, digest: str) -> None:
        run = self._runs.pop(digest, None)
        self._ended[digest] = None
        while len(self._ended) > _ENDED_KEPT:
            self._ended.pop(next(iter(self._ended)))
        for w in list(run.writers if run else ()):
            w.close()

    def _check(self, token: Any) -> tuple[_Run | None, str]:
        if not isinstance(token, str) or not token:
            return None, "missing credential"
        digest = _digest(token)
        for known, run in list(self._runs.items()):
            if hmac.compare_digest(known, digest):
                if time.monotonic() > run.expires_at:
                    self._end(known)
                    return None, "expired credential"
                return run, ""
        return None, "expired credential" if digest in self._ended else "wrong credential"

    # -- a connection -----------------------------------------------------------------------

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            if not _same_user(writer):
                return await _refuse(writer, "another user's process")
            try:
                line = await asyncio.wait_for(reader.readline(), AUTH_TIMEOUT_S)
                hello = json.loads(line) if line.strip() else {}
            except (asyncio.TimeoutError, ValueError, asyncio.LimitOverrunError):
                hello = {}
            token = hello.get("token") if isinstance(hello, dict) else None
            run, why = self._check(token)
            if run is None:
                return await _refuse(writer, why)
            writer.write(b'{"ok": true}\n')
            await writer.drain()
            run.writers.add(writer)
            try:
                await self._mcp(run, reader, writer)
            finally:
                run.writers.discard(writer)
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    async def _mcp(self, run: _Run, reader: asyncio.StreamReader,
                   writer: asyncio.StreamWriter) -> None:
        import anyio
        import mcp.types as types
        from mcp.server.lowlevel import Server
        from mcp.shared.message import SessionMessage

        async def list_tools(ctx: Any, params: Any) -> Any:
            return types.ListToolsResult(tools=[
                types.Tool(name=t.name, description=t.description, input_schema=t.input_schema)
                for t in run.tools.values()])

        async def call_tool(ctx: Any, params: Any) -> Any:
            tool = run.tools.get(params.name)
            if tool is None:
                reply = GatewayReply(f"no tool {params.name!r}; tools: {', '.join(run.tools)}",
                                     True)
            else:
                try:
                    reply = await tool.handler(dict(params.arguments or {}))
                    if not isinstance(reply, GatewayReply):
                        raise TypeError(f"tool {params.name!r} answered {type(reply).__name__}, "
                                        "not a GatewayReply")
                except Exception as exc:  # noqa: BLE001 - the caller gets the error, we go on
                    reply = GatewayReply(f"{type(exc).__name__}: {exc}", True)
            content: list[Any] = [types.TextContent(type="text", text=reply.text)]
            content += [types.ImageContent(type="image", data=data, mime_type=mime)
                        for mime, data in reply.images]
            return types.CallToolResult(content=content, is_error=reply.is_error,
                                        structured_content=reply.structured)

        server: Any = Server(self.name, on_list_tools=list_tools, on_call_tool=call_tool)
        in_send, in_recv = anyio.create_memory_object_stream[Any](16)
        out_send, out_recv = anyio.create_memory_object_stream[Any](16)

        async def pump_in() -> None:
            async with in_send:
                while line := await reader.readline():
                    try:
                        msg = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
                    except Exception as exc:  # noqa: BLE001 - reported to the session
                        await in_send.send(exc)
                        continue
                    await in_send.send(SessionMessage(msg))

        async def pump_out() -> None:
            async with out_recv:
                async for item in out_recv:
                    data = item.message.model_dump_json(by_alias=True, exclude_unset=True)
                    writer.write(data.encode() + b"\n")
                    await writer.drain()

        async with anyio.create_task_group() as tg:
            tg.start_soon(pump_in)
            tg.start_soon(pump_out)
            await server.run(in_recv, out_send, server.create_initialization_options())
            tg.cancel_scope.cancel()


def _same_user(writer: asyncio.StreamWriter) -> bool:
    sock = writer.get_extra_info("socket")
    opt = getattr(socket, "SO_PEERCRED", None)
    if sock is None or opt is None:
        return True  # no peer credentials here: the folder's mode 0700 is the guard
    import struct

    raw = sock.getsockopt(socket.SOL_SOCKET, opt, struct.calcsize("3i"))
    _pid, uid, _gid = struct.unpack("3i", raw)
    return bool(uid == os.getuid())


async def _refuse(writer: asyncio.StreamWriter, why: str) -> None:
    writer.write(json.dumps({"ok": False, "error": why}).encode() + b"\n")
    with contextlib.suppress(ConnectionError):
        await writer.drain()
