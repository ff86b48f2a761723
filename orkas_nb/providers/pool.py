"""HTTP clients shared by every provider in the process: one per (endpoint settings, event loop).

Why shared: building an ``httpx.AsyncClient`` loads the CA bundle into a fresh SSL context
(~25 ms of CPU), and a client per provider keeps its own connections, so an agent per
conversation paid a TLS handshake and that CPU each time. Here the SSL context is built once per
process (per ``SSL_CERT_FILE`` / ``SSL_CERT_DIR``), and the providers of one endpoint share one
client and so one connection pool. Credentials are per-request headers (see
:class:`~orkas_nb.providers.transport.HttpProvider`), so two API keys share a pool too.

Why per loop: a client's connections belong to the event loop that opened them, and
``asyncio.run`` (``Agent.run_sync``), worker threads and kernels each run their own loop. A
client made on a loop is only ever handed out on that loop.

Lifetime, since asyncio has no loop-close hook:

- a loop shut down the documented way (``asyncio.run``, ``asyncio.Runner``, or
  ``loop.shutdown_asyncgens()`` before ``loop.close()``) closes its clients on the way out: each
  loop's clients are watched by a suspended async generator, which ``shutdown_asyncgens`` closes;
- clients of loops still open at interpreter exit (a kernel's loop, a script's own loop) are
  closed by an ``atexit`` hook, on their loop;
- a loop closed without ``shutdown_asyncgens`` cannot run a close any more; its clients are
  dropped the next time the pool makes a client, and the OS reclaims their sockets;
- after ``os.fork`` the child forgets the parent's clients without closing them (their sockets
  are the parent's) and starts an empty pool.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import ssl
import threading
import weakref
from collections.abc import AsyncIterator
from typing import Any, NamedTuple
from urllib.parse import urlsplit

import httpx

__all__ = ["DEFAULT_TIMEOUT", "POOL", "ClientKey", "ClientPool", "aclose_clients", "client_key",
           "make_client", "ssl_context"]

DEFAULT_TIMEOUT = httpx.Timeout(connect=10.0, read=120.0, write=30.0, pool=10.0)
# No cap on open connections: the agents of a team share one client, and a stream waiting
# for a free connection would fail after the pool timeout where its own client never waited.
LIMITS = httpx.Limits(max_connections=None, max_keepalive_connections=20)

# What httpx reads from the environment when it builds a client (trust_env): proxies and the CA
# bundle. Part of the key, so a changed environment gets a client that honours it.
_ENV = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "http_proxy", "https_proxy",
        "all_proxy", "no_proxy", "SSL_CERT_FILE", "SSL_CERT_DIR")

_SSL_LOCK = threading.Lock()
_SSL: dict[tuple[str | None, str | None], ssl.SSLContext] = {}


def ssl_context() -> ssl.SSLContext:
    """The process's SSL context for verified HTTPS (httpx's defaults: certifi, or
    ``SSL_CERT_FILE`` / ``SSL_CERT_DIR`` when set), built once per value of those variables."""
    where = (os.environ.get("SSL_CERT_FILE"), os.environ.get("SSL_CERT_DIR"))
    ctx = _SSL.get(where)
    if ctx is None:
        with _SSL_LOCK:
            ctx = _SSL.get(where)
            if ctx is None:
                ctx = _SSL[where] = httpx.create_ssl_context()
    return ctx


def make_client(
    *, timeout: httpx.Timeout | float | None = None, transport: httpx.AsyncBaseTransport | None = None
) -> httpx.AsyncClient:
    """A provider client. Retries are ours (SPEC §6), so httpx's own are off."""
    return httpx.AsyncClient(
        timeout=timeout if timeout is not None else DEFAULT_TIMEOUT,
        transport=transport,
        verify=ssl_context(),
        limits=LIMITS,
        follow_redirects=False,
    )


class ClientKey(NamedTuple):
    """What makes two providers' clients interchangeable: the server's origin, the timeouts,
    and the environment httpx reads when it builds a client. Headers and credentials are sent
    per request, so they are not part of it."""

    origin: str
    timeout: tuple[tuple[str, float | None], ...]
    env: tuple[str | None, ...]


def client_key(base_url: str, timeout: httpx.Timeout | float | None = None) -> ClientKey:
    parts = urlsplit(base_url)
    limits = httpx.Timeout(timeout) if timeout is not None else DEFAULT_TIMEOUT
    return ClientKey(f"{parts.scheme}://{parts.netloc}".lower(), tuple(sorted(limits.as_dict().items())),
                     tuple(os.environ.get(name) for name in _ENV))


def _client_for(key: ClientKey) -> httpx.AsyncClient:
    return make_client(timeout=httpx.Timeout(**dict(key.timeout)))


def _drive(awaitable: Any) -> None:
    """Run an awaitable that never suspends (a close with nothing left to await) to its end."""
    try:
        awaitable.send(None)
    except StopIteration:
        return
    awaitable.close()  # it wanted to wait: a loop would have to run it; give up on it


class _LoopClients:
    """The clients of one event loop and the watcher that closes them when the loop shuts down."""

    __slots__ = ("_watch", "clients", "closed")

    def __init__(self) -> None:
        self.clients: dict[ClientKey, httpx.AsyncClient] = {}
        self.closed = False
        self._watch: Any = None

    def watch(self) -> None:
        """Start the watcher (on the running loop): ``shutdown_asyncgens`` will close it."""
        gen = self._until_shutdown()
        _drive(gen.asend(None))  # runs to its ``yield``; the loop's firstiter hook now tracks it
        self._watch = gen

    async def _until_shutdown(self) -> AsyncIterator[None]:
        try:
            yield
        finally:
            self._watch = None
            await self._close_clients()

    async def _close_clients(self) -> None:
        if self.closed:
            return
        self.closed = True
        clients = list(self.clients.values())
        self.clients.clear()
        for client in clients:
            with contextlib.suppress(Exception):  # a connection already dead closes as well as it can
                await client.aclose()

    async def aclose(self) -> None:
        await self._close_clients()
        self._stop_watch()

    def forget(self) -> list[httpx.AsyncClient]:
        """Let go without the loop (it is closed, or it is a forked parent's): nothing awaited."""
        self.closed = True
        clients = list(self.clients.values())
        self.clients.clear()
        self._stop_watch()
        return clients

    def _stop_watch(self) -> None:
        gen, self._watch = self._watch, None
        if gen is not None:  # closed already, so its ``finally`` awaits nothing
            _drive(gen.aclose())


class ClientPool:
    """One ``httpx.AsyncClient`` per (:class:`ClientKey`, running event loop); see the module."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopClients] = (
            weakref.WeakKeyDictionary())
        self._orphans: list[httpx.AsyncClient] = []  # a forked parent's: never closed by the child
        self.created = 0
        self.epoch = 0  # bumped by a fork: what a provider remembers from before is void

    def client(self, key: ClientKey) -> httpx.AsyncClient:
        """The running loop's client for ``key``, made on first use."""
        loop = asyncio.get_running_loop()
        entry = self._loops.get(loop)
        if entry is not None and not entry.closed:
            client = entry.clients.get(key)
            if client is not None and not client.is_closed:
                return client
        with self._lock:
            entry = self._loops.get(loop)
            if entry is None or entry.closed:
                self._drop_closed_loops()
                entry = self._loops[loop] = _LoopClients()
                entry.watch()
            client = entry.clients.get(key)
            if client is None or client.is_closed:
                client = entry.clients[key] = _client_for(key)
                self.created += 1
            return client

    def clients(self, loop: asyncio.AbstractEventLoop | None = None) -> list[httpx.AsyncClient]:
        """The open clients of ``loop`` (default: the running one)."""
        entry = self._loops.get(loop or asyncio.get_running_loop())
        return list(entry.clients.values()) if entry is not None else []

    async def aclose_loop(self) -> None:
        """Close the running loop's clients now (the next request makes new ones)."""
        entry = self._loops.get(asyncio.get_running_loop())
        if entry is not None:
            await entry.aclose()

    def _drop_closed_loops(self) -> None:
        for loop, entry in list(self._loops.items()):
            if loop.is_closed():
                entry.forget()
                self._loops.pop(loop, None)

    def close_all(self, timeout: float = 2.0) -> None:
        """Close every loop's clients, each on its own loop (interpreter exit)."""
        with self._lock:
            items = list(self._loops.items())
            self._loops.clear()
        for loop, entry in items:
            if entry.closed:
                continue
            try:
                if loop.is_closed():
                    entry.forget()
                elif loop.is_running():  # another thread's loop: ask it to close them
                    asyncio.run_coroutine_threadsafe(entry.aclose(), loop).result(timeout)
                else:
                    loop.run_until_complete(entry.aclose())
            except Exception:  # noqa: BLE001 - at exit a loop that cannot close them just loses them
                entry.forget()

    def after_fork(self) -> None:
        """In a forked child: forget the parent's clients (their sockets are the parent's)."""
        self._lock = threading.Lock()  # another thread may have held it at the fork
        for entry in list(self._loops.values()):
            self._orphans.extend(entry.forget())
        self._loops = weakref.WeakKeyDictionary()
        self.created = 0
        self.epoch += 1

    def __len__(self) -> int:
        return sum(len(e.clients) for e in self._loops.values() if not e.closed)


POOL = ClientPool()
atexit.register(POOL.close_all)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=POOL.after_fork)


async def aclose_clients() -> None:
    """Close the pooled clients of the running loop (tests; a long-lived loop that wants its
    connections gone). Providers made later open new ones."""
    await POOL.aclose_loop()
