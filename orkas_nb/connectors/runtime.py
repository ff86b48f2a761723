"""The one place MCP servers start: a manager per process, its servers living with it.

The manager runs the SDK's clients on an event loop of its own, in a daemon thread, so a server
outlives the cell (or the ``asyncio.run``) that first needed it and any loop can call it
(:meth:`Manager.call` from a coroutine, :meth:`Manager.start` from plain code). Each server is
one task that enters the SDK's ``Client`` and holds it until stopped, so the SDK's task groups
open and close in the same task.

- A local server gets an allow-listed environment (the SDK's ``HOME``/``PATH``/``USER``…, the
  locale, then its own ``env``), never the kernel's API keys; its stderr goes to
  ``.orkas/mcp/<name>.log``.
- A call that outlives its timeout fails with a clear error; a server found dead is restarted
  once, and a second death leaves it failed (its calls say so).
- :meth:`Manager.shutdown` (also at interpreter exit: a kernel's shutdown) stops every server.
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import os
import threading
from collections.abc import Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from ..core.errors import OrkasError
from .config import STATE_DIR, ServerConfig

log = logging.getLogger("orkas_nb.connectors")
T = TypeVar("T")
START_TIMEOUT = 30.0
CALL_TIMEOUT = 60.0
# Beyond the SDK's own allow-list (HOME, LOGNAME, PATH, SHELL, TERM, USER): the locale, which
# decides how a server decodes text, and nothing that could carry a credential.
_PASSED = ("LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR")


class ServerUnavailable(OrkasError):
    """A server that failed to start, died, or timed out; the message is for the model."""


@dataclass
class Server:
    """One running (or failed) server."""

    config: ServerConfig
    workspace: Path
    tools: list[Any] = field(default_factory=list)
    pid: int | None = None
    error: str | None = None
    restarts: int = 0
    client: Any = None
    task: asyncio.Task[None] | None = None
    stop: asyncio.Event | None = None

    @property
    def log_path(self) -> Path:
        return self.workspace / STATE_DIR / "mcp" / f"{self.config.name}.log"

    @property
    def alive(self) -> bool:
        if self.client is None or self.task is None or self.task.done():
            return False
        return self.pid is None or _running(self.pid)


def _running(pid: int) -> bool:
    try:
        import psutil

        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except Exception:  # noqa: BLE001 - gone
        return False


def _environment(config: ServerConfig) -> dict[str, str]:
    env = {k: os.environ[k] for k in _PASSED if k in os.environ}
    env.update(config.revealed("env"))
    return env


def _transport(config: ServerConfig, errlog: Any) -> Any:
    if config.local:
        from mcp.client.stdio import StdioServerParameters, stdio_client

        params = StdioServerParameters(command=config.command or "", args=config.args,
                                       env=_environment(config), cwd=config.cwd)
        return stdio_client(params, errlog=errlog)
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    http = create_mcp_http_client(headers=config.revealed("headers"))
    return streamable_http_client(config.url or "", http_client=http)


def _children() -> set[int]:
    try:
        import psutil

        return {p.pid for p in psutil.Process().children()}
    except Exception:  # noqa: BLE001 - psutil missing or /proc unreadable: no pid to report
        return set()


class Manager:
    """Starts, calls and stops servers; one per process (:func:`manager`)."""

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="orkas-mcp",
                                        daemon=True)
        self._thread.start()
        self._servers: dict[tuple[str, str], Server] = {}
        self._lock: asyncio.Lock | None = None
        self._closed = False

    # -- from any thread ----------------------------------------------------------------------

    def _submit(self, coro: Coroutine[Any, Any, T]) -> asyncio.Future[T]:
        return asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, self._loop))

    def run(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        """Run ``coro`` on the manager's loop and wait for it (plain, blocking code)."""
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(timeout)

    def start(self, workspace: Path, config: ServerConfig) -> Server:
        """The running server for this config (started if needed); raises ServerUnavailable."""
        return self.run(self._ensure(Path(workspace), config), START_TIMEOUT + 5)

    async def call(self, server: Server, tool: str, arguments: dict[str, Any],
                   timeout: float | None = None) -> Any:
        """Call ``tool`` from any loop; restarts a dead server once."""
        return await self._submit(self._call(server, tool, arguments, timeout))

    def stop(self, workspace: Path, name: str) -> None:
        self.run(self._stop_named(Path(workspace), name), 15)

    def running(self) -> list[Server]:
        return [s for s in self._servers.values() if s.alive]

    def shutdown(self) -> None:
        """Stop every server (interpreter exit, a kernel's shutdown)."""
        if self._closed:
            return
        self._closed = True
        try:
            self.run(self._stop_all(), 20)
        except Exception:  # noqa: BLE001 - at exit: stop what can be stopped
            pass
        self._loop.call_soon_threadsafe(self._loop.stop)

    # -- on the manager's loop ----------------------------------------------------------------

    def _key(self, workspace: Path, name: str) -> tuple[str, str]:
        return (str(workspace), name)

    async def _ensure(self, workspace: Path, config: ServerConfig) -> Server:
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:  # one start at a time: the new child is the one just spawned
            key = self._key(workspace, config.name)
            found = self._servers.get(key)
            if found is not None and found.alive and found.config == config:
                return found
            if found is not None:
                await self._halt(found)
            server = Server(config=config, workspace=workspace)
            self._servers[key] = server
            await self._launch(server)
            return server

    async def _launch(self, server: Server) -> None:
        server.log_path.parent.mkdir(parents=True, exist_ok=True)
        ready: asyncio.Future[None] = self._loop.create_future()
        server.stop = asyncio.Event()
        before = _children()
        server.task = self._loop.create_task(self._hold(server, ready))
        try:
            await asyncio.wait_for(asyncio.shield(ready), START_TIMEOUT)
        except asyncio.TimeoutError:
            server.error = f"did not answer within {START_TIMEOUT:.0f} s"
        except Exception as exc:  # noqa: BLE001 - any start failure is one clear line
            server.error = _describe(exc)
        if server.error is not None:
            await self._halt(server)
            raise ServerUnavailable(f"MCP server {server.config.name!r} could not start: "
                                    f"{server.error} (log: {server.log_path})")
        new = sorted(_children() - before)
        server.pid = new[0] if new else None

    async def _hold(self, server: Server, ready: asyncio.Future[None]) -> None:
        from mcp import Client

        try:
            with open(server.log_path, "a", encoding="utf-8") as errlog:
                transport = _transport(server.config, errlog)
                async with Client(transport, cache=None) as client:
                    tools, cursor = [], None
                    while True:
                        page = await client.list_tools(cursor=cursor)
                        tools += page.tools
                        cursor = page.next_cursor
                        if not cursor:
                            break
                    server.tools, server.client = tools, client
                    ready.set_result(None)
                    assert server.stop is not None
                    await server.stop.wait()
        except BaseException as exc:  # noqa: BLE001 - the server's end, whatever it was
            if not ready.done():
                ready.set_exception(exc if isinstance(exc, Exception) else RuntimeError(str(exc)))
            elif not (server.stop and server.stop.is_set()):
                server.error = f"stopped unexpectedly ({_describe(exc)})"
            if isinstance(exc, asyncio.CancelledError):
                raise
        finally:
            server.client = None

    async def _halt(self, server: Server) -> None:
        if server.stop is not None:
            server.stop.set()
        if server.task is not None and not server.task.done():
            try:
                await asyncio.wait_for(asyncio.shield(server.task), 10)
            except (asyncio.TimeoutError, Exception):  # noqa: BLE001
                server.task.cancel()
        server.client = None
        _reap(server.pid)

    async def _call(self, server: Server, tool: str, arguments: dict[str, Any],
                    timeout: float | None) -> Any:
        limit = timeout or server.config.timeout or CALL_TIMEOUT
        name = server.config.name
        if not server.alive:
            await self._revive(server)
        try:
            return await asyncio.wait_for(server.client.call_tool(tool, arguments), limit)
        except asyncio.TimeoutError:
            raise ServerUnavailable(f"MCP server {name!r} did not answer {tool!r} within "
                                    f"{limit:.0f} s; the call was abandoned") from None
        except Exception as exc:  # noqa: BLE001
            if server.alive:
                raise ServerUnavailable(f"MCP server {name!r} failed on {tool!r}: "
                                        f"{_describe(exc)}") from None
        await self._revive(server)  # it died during the call: once more on a fresh start
        try:
            return await asyncio.wait_for(server.client.call_tool(tool, arguments), limit)
        except Exception as exc:  # noqa: BLE001
            raise ServerUnavailable(f"MCP server {name!r} failed on {tool!r} after a restart: "
                                    f"{_describe(exc)}") from None

    async def _revive(self, server: Server) -> None:
        name = server.config.name
        if server.restarts >= 1:
            raise ServerUnavailable(f"MCP server {name!r} is not running ({server.error or 'it exited'}"
                                    f"; already restarted once; log: {server.log_path})")
        server.restarts += 1
        log.warning("MCP server %r died; restarting it once", name)
        await self._halt(server)
        server.error = None
        try:
            await self._launch(server)
        except ServerUnavailable as exc:
            raise ServerUnavailable(f"{exc} after it died") from None

    async def _stop_named(self, workspace: Path, name: str) -> None:
        server = self._servers.pop(self._key(workspace, name), None)
        if server is not None:
            await self._halt(server)

    async def _stop_all(self) -> None:
        servers, self._servers = list(self._servers.values()), {}
        await asyncio.gather(*(self._halt(s) for s in servers), return_exceptions=True)


def _reap(pid: int | None) -> None:
    """The SDK stops its child; a grandchild it left (an ``npx`` wrapper's server) goes too."""
    if pid is None:
        return
    try:
        import psutil

        proc = psutil.Process(pid)
        for p in [*proc.children(recursive=True), proc]:
            p.terminate()
        psutil.wait_procs([proc], timeout=3)
    except Exception:  # noqa: BLE001 - already gone
        pass


def _describe(exc: BaseException) -> str:
    if isinstance(exc, BaseExceptionGroup):
        inner = exc.exceptions[0] if exc.exceptions else exc
        return _describe(inner)
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


_manager: Manager | None = None
_manager_lock = threading.Lock()


def manager() -> Manager:
    """The process's manager, made on first use and shut down at exit."""
    global _manager
    with _manager_lock:
        if _manager is None or _manager._closed:
            _manager = Manager()
            atexit.register(_manager.shutdown)
        return _manager


def shutdown() -> None:
    """Stop every server of this process (the notebook's unload, a script's end)."""
    if _manager is not None:
        _manager.shutdown()


__all__ = ["Manager", "Server", "ServerUnavailable", "manager", "shutdown"]
