"""Which views the front end can draw: a handshake, because the kernel cannot list extensions.

The kernel publishes a *probe*: a ``comm_msg`` on IOPub addressed to a comm id no front end
knows. Every Jupyter front end drops a message for an unknown comm without a word (no error in
the console, nothing in the cell), while the labextension watches IOPub for that id prefix and
answers by opening a comm to :data:`~.protocol.HANDSHAKE_TARGET` with a
:class:`~.protocol.FrontendHello`. No answer within ``timeout`` means "no custom views": the
caller falls back to the built-in widgets.

The answer is cached per client session (the ``session`` field of the request's header), so
only the first run in a browser tab (or in a VS Code window) pays the wait; a browser that
connects later to the same kernel has another client session and is asked afresh.

The wait is ``await``-ed from the cell (the ``%%agent`` cell is a top-level await, SPEC §14.1),
so the kernel keeps handling shell messages, the comm open among them, while it waits.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import time
from typing import TYPE_CHECKING, Any

from comm import get_comm_manager
from IPython import get_ipython
from pydantic import ValidationError

from .protocol import HANDSHAKE_TARGET, PROBE_PREFIX, FrontendHello

if TYPE_CHECKING:
    from ipykernel.kernelbase import Kernel

log = logging.getLogger(__name__)

# Short, because a front end without the extension (VS Code, nbclient) pays it once per
# connection, with the run's first events held back meanwhile; the extension answers in tens of
# milliseconds, and a late answer still switches the next run. ORKAS_HANDSHAKE_TIMEOUT overrides.
DEFAULT_TIMEOUT_S = 0.5


def default_timeout() -> float:
    try:
        return float(os.environ.get("ORKAS_HANDSHAKE_TIMEOUT", DEFAULT_TIMEOUT_S))
    except ValueError:
        log.warning("orkas_nb: ORKAS_HANDSHAKE_TIMEOUT is not a number; using %s s", DEFAULT_TIMEOUT_S)
        return DEFAULT_TIMEOUT_S


class _Registry:
    """Per-kernel state: the registered comm target, pending probes and cached answers."""

    def __init__(self) -> None:
        self.registered_on: Kernel | None = None
        self.pending: dict[str, asyncio.Future[FrontendHello]] = {}
        self.answers: dict[str, FrontendHello | None] = {}
        self.round_trips: list[float] = []  # seconds from probe to answer, for diagnostics
        self.sessions: dict[str, str] = {}  # probe nonce -> client session that was asked

    def on_open(self, comm: Any, msg: dict[str, Any]) -> None:
        data = (msg.get("content") or {}).get("data") or {}
        try:
            hello = FrontendHello.model_validate(data)
        except ValidationError as exc:
            log.warning("orkas_nb: ignoring a malformed front-end hello: %s", exc)
            return
        future = self.pending.get(hello.nonce)
        if future is not None and not future.done():
            future.get_loop().call_soon_threadsafe(_set_result, future, hello)
        elif hello.nonce in self.sessions:
            # A late answer (a loaded machine): this run fell back, the next one will not.
            self.answers[self.sessions[hello.nonce]] = hello


def _set_result(future: asyncio.Future[FrontendHello], hello: FrontendHello) -> None:
    if not future.done():
        future.set_result(hello)


_registry = _Registry()


def _kernel() -> Kernel | None:
    shell = get_ipython()
    return getattr(shell, "kernel", None) if shell is not None else None


def client_session(kernel: Kernel) -> str:
    """The id of the front-end connection that sent the running request ('' when unknown)."""
    try:
        return str(kernel.get_parent()["header"].get("session", ""))
    except Exception:  # noqa: BLE001 - no parent outside a request
        return ""


def _ensure_target(kernel: Kernel) -> None:
    if _registry.registered_on is kernel:
        return
    get_comm_manager().register_target(HANDSHAKE_TARGET, _registry.on_open)
    _registry.registered_on = kernel


def _publish_probe(kernel: Kernel, nonce: str) -> None:
    content = {"comm_id": PROBE_PREFIX + nonce, "data": {"probe": nonce}}
    kernel.session.send(
        kernel.iopub_socket, "comm_msg", content, parent=kernel.get_parent(),
        ident=f"comm-{PROBE_PREFIX}{nonce}".encode("ascii"),
    )


async def _wait_while_free(future: asyncio.Future[FrontendHello], timeout: float,
                           step: float = 0.05) -> FrontendHello:
    """``future``'s result within ``timeout`` seconds of time the event loop was free.

    A blocking call in the same run (an MCP server starting, a big import) can hold the loop
    for seconds after the probe went out; the front end's answer then waits, unread, in the
    kernel's queue. That time is not the front end's: each slice counts for at most twice its
    length, so the answer is read once the loop is free again instead of being timed out."""
    loop = asyncio.get_running_loop()
    left = timeout
    while True:
        piece = max(0.0, min(step, left))
        began = loop.time()
        await asyncio.wait({future}, timeout=piece)
        if future.done():
            return future.result()
        left -= min(loop.time() - began, 2 * piece)
        if left <= 0:
            raise asyncio.TimeoutError


def cached_answer(kernel: Kernel | None = None) -> FrontendHello | None | bool:
    """The cached answer for the current client session, or ``False`` when not asked yet."""
    kernel = kernel if kernel is not None else _kernel()
    if kernel is None:
        return None
    return _registry.answers.get(client_session(kernel), False)


async def probe_frontend(timeout: float | None = None, *, refresh: bool = False) -> FrontendHello | None:
    """Ask the front end whether it draws orkas views; ``None`` means use the built-in widgets."""
    timeout = default_timeout() if timeout is None else timeout
    kernel = _kernel()
    if kernel is None or getattr(kernel, "session", None) is None:
        return None
    session = client_session(kernel)
    if not refresh and session in _registry.answers:
        return _registry.answers[session]
    _ensure_target(kernel)
    nonce = secrets.token_hex(8)
    future: asyncio.Future[FrontendHello] = asyncio.get_running_loop().create_future()
    _registry.pending[nonce] = future
    _registry.sessions[nonce] = session
    try:
        sent = time.perf_counter()
        _publish_probe(kernel, nonce)
        answer: FrontendHello | None = await _wait_while_free(future, timeout)
        _registry.round_trips.append(time.perf_counter() - sent)
    except asyncio.TimeoutError:
        answer = None
    finally:
        _registry.pending.pop(nonce, None)
    _registry.answers[session] = answer
    return answer


def round_trips() -> list[float]:
    """How long each answered probe took (seconds), oldest first."""
    return list(_registry.round_trips)


def forget() -> None:
    """Drop cached answers (tests; or after the user installs the extension mid-session)."""
    _registry.answers.clear()


__all__ = [
    "DEFAULT_TIMEOUT_S",
    "cached_answer",
    "client_session",
    "default_timeout",
    "forget",
    "probe_frontend",
    "round_trips",
]
