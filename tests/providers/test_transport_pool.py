"""The process-wide client pool, over real loopback HTTP: agents of one endpoint share a client and
its connections on a loop, never across loops; a loop's clients close with the loop; the
interpreter exits without warnings; a forked child starts an empty pool.

Connections are counted where they are real: on the server, which sees each accepted socket
(``verify_request``) and each socket the client closed (``shutdown_request``, called when the
handler thread finishes because the client hung up).
"""

from __future__ import annotations

import asyncio
import os
import ssl
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import httpx
import pytest

from orkas_nb import Agent
from orkas_nb.providers import pool as pool_mod
from orkas_nb.providers.pool import POOL, client_key, ssl_context
from orkas_nb.providers.registry import resolve_model
from tests.fakes.model_server import ModelServer, Reply

REPO = Path(__file__).resolve().parents[2]


class Sockets:
    """The server's view of connections: opened and closed by the client, in order."""

    def __init__(self, server: ModelServer) -> None:
        self.opened: list[object] = []
        self.closed: list[object] = []
        httpd = server._httpd
        accept, finish = httpd.verify_request, httpd.shutdown_request

        def verify(request, address):  # type: ignore[no-untyped-def]
            self.opened.append(address)
            return accept(request, address)

        def shutdown(request):  # type: ignore[no-untyped-def]
            self.closed.append(request)
            finish(request)

        httpd.verify_request = verify  # type: ignore[method-assign]
        httpd.shutdown_request = shutdown  # type: ignore[method-assign]

    def wait_closed(self, count: int, timeout: float = 30.0) -> bool:  # a hang guard only
        deadline = time.monotonic() + timeout
        while len(self.closed) < count and time.monotonic() < deadline:
            time.sleep(0.01)
        return len(self.closed) >= count


def agent(server: ModelServer, workspace: Path, key: str = "sk-a", **kw) -> Agent:
    return Agent("openai/gpt-4o-mini", base_url=server.openai_url, api_key=key, workspace=workspace,
                 default_tools=False, memory=False, **kw)


async def test_two_agents_on_one_loop_share_one_connection(model_server, tmp_path):
    sockets = Sockets(model_server)
    model_server.push(Reply(text="one"), Reply(text="two"), Reply(text="three"))
    created = POOL.created
    first, second = agent(model_server, tmp_path, "sk-first"), agent(model_server, tmp_path, "sk-second")
    assert (await first.arun("hi")).text == "one"
    assert (await second.arun("hi")).text == "two"
    assert (await first.arun("again")).text == "three"
    assert len(sockets.opened) == 1  # one TCP connection for both agents, kept alive
    assert POOL.created - created == 1
    # two keys share the pool: each request still carries its own agent's key
    assert [p.headers["authorization"] for p in model_server.posts()] == [
        "Bearer sk-first", "Bearer sk-second", "Bearer sk-first"]


async def test_concurrent_agents_on_one_loop_run_through_one_client(model_server, tmp_path):
    model_server.push(*[Reply(text="ok")] * 8)
    created = POOL.created
    agents = [agent(model_server, tmp_path, f"sk-{i}") for i in range(8)]
    results = await asyncio.gather(*(a.arun("hi") for a in agents))
    assert [r.text for r in results] == ["ok"] * 8
    assert POOL.created - created == 1


async def test_different_endpoints_and_timeouts_get_their_own_clients(tmp_path):
    with ModelServer() as one, ModelServer() as two:
        one.push(Reply(text="a"), Reply(text="c"))
        two.push(Reply(text="b"))
        created = POOL.created
        await agent(one, tmp_path).arun("hi")
        await agent(two, tmp_path).arun("hi")
        await agent(one, tmp_path, timeout=7.0).arun("hi")  # another timeout: another client
        assert POOL.created - created == 3
    assert client_key("http://H:1/v1", 5.0) == client_key("http://h:1/other", 5.0)
    assert client_key("http://h:1/v1", 5.0) != client_key("https://h:1/v1", 5.0)


async def test_making_an_agent_builds_no_client_and_no_ssl_context(model_server, tmp_path, monkeypatch):
    made: list[object] = []
    real_init = httpx.AsyncClient.__init__

    def counting_init(self, *a, **kw):  # type: ignore[no-untyped-def]
        made.append(self)
        real_init(self, *a, **kw)

    monkeypatch.setattr(httpx.AsyncClient, "__init__", counting_init)
    monkeypatch.setattr(ssl, "create_default_context", lambda *a, **kw: pytest.fail("an SSL context was built"))
    for _ in range(3):
        Agent("openai/gpt-4o-mini", base_url="https://models.invalid/v1", api_key="k", workspace=tmp_path)
    assert made == []


async def test_closing_an_agent_leaves_the_shared_client_to_the_others(model_server, tmp_path):
    sockets = Sockets(model_server)
    model_server.push(Reply(text="one"), Reply(text="two"))
    first = agent(model_server, tmp_path, retry=False)  # the HTTP provider itself, not the retry layer
    second = agent(model_server, tmp_path)
    await first.arun("hi")
    first.close()
    await first.provider.aclose()
    assert (await second.arun("hi")).text == "two"
    assert len(sockets.opened) == 1 and sockets.closed == []


def test_agents_on_two_threads_get_their_own_clients_and_both_work(model_server, tmp_path):
    model_server.push(Reply(text="x"), Reply(text="x"))
    provider, _ = resolve_model("openai/gpt-4o-mini", base_url=model_server.openai_url, api_key="k")
    both_running = threading.Barrier(2, timeout=10)
    seen: dict[str, object] = {}

    def worker(name: str) -> None:
        async def go() -> None:
            both_running.wait()  # both loops are alive at once
            result = await Agent(provider, workspace=tmp_path, default_tools=False, memory=False).arun("hi")
            seen[name] = (result.text, POOL.clients())
        asyncio.run(go())

    threads = [threading.Thread(target=worker, args=(n,)) for n in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=20)
    (text_a, clients_a), (text_b, clients_b) = seen["a"], seen["b"]  # type: ignore[misc]
    assert text_a == text_b == "x"
    assert len(clients_a) == len(clients_b) == 1 and clients_a[0] is not clients_b[0]
    assert clients_a[0].is_closed and clients_b[0].is_closed  # each closed with its loop


def test_run_sync_twice_and_each_loop_closes_its_connection(model_server, tmp_path):
    sockets = Sockets(model_server)
    model_server.push(Reply(text="one"), Reply(text="two"))
    a = agent(model_server, tmp_path)
    assert a.run_sync("hi").text == "one"
    assert sockets.wait_closed(1)  # asyncio.run's loop shut down: its client hung up
    second = a.run_sync("again")  # a new loop: a new client, not the dead loop's
    assert second.stop_reason == "end_turn" and second.text == "two"
    assert sockets.wait_closed(2) and len(sockets.opened) == 2


def test_a_manually_closed_loop_closes_its_clients_via_shutdown_asyncgens(model_server, tmp_path):
    model_server.push(Reply(text="one"), Reply(text="two"))
    a = agent(model_server, tmp_path)
    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(a.arun("hi"))
        clients = POOL.clients(loop)
        assert len(clients) == 1 and not clients[0].is_closed
        loop.run_until_complete(loop.shutdown_asyncgens())
        assert clients[0].is_closed and POOL.clients(loop) == []
    finally:
        loop.close()
    # a loop closed without shutdown_asyncgens cannot run a close: the next new loop drops them
    other = asyncio.new_event_loop()
    other.run_until_complete(a.arun("again"))
    other.close()
    assert len(POOL.clients(other)) == 1
    model_server.push(Reply(text="three"))
    assert asyncio.run(a.arun("more")).text == "three"
    assert POOL.clients(other) == []


async def test_aclose_clients_closes_this_loops_clients_and_the_next_request_reopens(model_server, tmp_path):
    sockets = Sockets(model_server)
    model_server.push(Reply(text="one"), Reply(text="two"))
    a = agent(model_server, tmp_path)
    await a.arun("hi")
    await pool_mod.aclose_clients()
    assert await asyncio.to_thread(sockets.wait_closed, 1)
    assert (await a.arun("again")).text == "two"
    assert len(sockets.opened) == 2


def test_one_ssl_context_per_process_and_ca_setting(monkeypatch, tmp_path):
    built: list[object] = []
    real = httpx.create_ssl_context

    def counting(*a, **kw):  # type: ignore[no-untyped-def]
        built.append(1)
        return real(*a, **kw)

    monkeypatch.setattr(pool_mod, "_SSL", {})
    monkeypatch.setattr(httpx, "create_ssl_context", counting)
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)

    async def clients() -> list[httpx.AsyncClient]:
        key = client_key("https://models.invalid/v1", 3.0)
        made = [POOL.client(key), POOL.client(client_key("https://other.invalid", 3.0))]
        await pool_mod.aclose_clients()
        return made

    asyncio.run(clients())
    asyncio.run(clients())
    assert len(built) == 1 and ssl_context() is ssl_context()
    import certifi

    monkeypatch.setenv("SSL_CERT_FILE", certifi.where())  # the CA setting is honoured: a new context
    assert ssl_context() is not pool_mod._SSL[(None, None)] and len(built) == 2
    before = client_key("https://h/v1")
    monkeypatch.setenv("HTTPS_PROXY", "http://127.0.0.1:9")  # httpx reads proxies when it builds a client
    assert client_key("https://h/v1") != before


EXIT_SCRIPT = textwrap.dedent("""
    import asyncio, sys, tempfile, threading
    from orkas_nb import Agent
    from tests.fakes.model_server import ModelServer, Reply

    server = ModelServer().start()
    server.push(*[Reply(text="ok")] * 6)
    ws = tempfile.mkdtemp()
    def agent():
        return Agent("openai/gpt-4o-mini", base_url=server.openai_url, api_key="k", workspace=ws)
    assert agent().run_sync("a").text == "ok"          # asyncio.run, twice: two loops
    assert agent().run_sync("b").text == "ok"
    loop = asyncio.new_event_loop()                     # a script's own loop, never closed
    assert loop.run_until_complete(agent().arun("c")).text == "ok"
    done = threading.Event()
    def forever():                                      # a loop still running on a thread at exit
        loop2 = asyncio.new_event_loop()
        async def go():
            assert (await agent().arun("d")).text == "ok"
            done.set()
        loop2.create_task(go())
        loop2.run_forever()
    threading.Thread(target=forever, daemon=True).start()
    assert done.wait(20)
    print("ran", flush=True)
""")


def test_interpreter_exit_is_clean_with_open_loops_and_threads():
    env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONWARNINGS": "default"}
    done = subprocess.run([sys.executable, "-c", EXIT_SCRIPT], check=False, cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ran"
    for bad in ("ResourceWarning", "nclosed", "Event loop is closed", "Traceback", "Exception ignored",
                "Task was destroyed"):
        assert bad not in done.stderr, done.stderr


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_a_forked_child_starts_an_empty_pool_and_leaves_the_parents_connection(model_server, tmp_path):
    sockets = Sockets(model_server)
    model_server.push(*[Reply(text="ok")] * 3)
    a = agent(model_server, tmp_path)
    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(a.arun("parent"))
        held = threading.Event()
        release = threading.Event()

        def hold_lock() -> None:  # the pool's lock is held by another thread at the fork
            with POOL._lock:
                held.set()
                release.wait(10)

        holder = threading.Thread(target=hold_lock)
        holder.start()
        held.wait(5)
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child reports through its exit code
            code = 1
            try:
                empty = len(POOL) == 0 and POOL.clients(loop) == []
                result = asyncio.run(a.arun("child"))
                code = 0 if empty and result.text == "ok" else 2
            finally:
                os._exit(code)
        release.set()
        holder.join()
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        assert (loop.run_until_complete(a.arun("parent again"))).text == "ok"
        # the parent's kept-alive connection survived the child: 2 connections (parent's, child's)
        assert len(sockets.opened) == 2
    finally:
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()


@pytest.mark.kernel
def test_kernel_shutdown_is_clean_after_agents_ran_on_its_loop(model_server, tmp_path):
    from jupyter_client.manager import KernelManager

    from tests.notebook.kernel import kernel_env

    model_server.push(Reply(text="one"), Reply(text="two"))
    log = tmp_path / "kernel.stderr"
    km = KernelManager(kernel_name="python3")
    with log.open("w") as err:
        km.start_kernel(cwd=str(tmp_path), env=kernel_env({"PYTHONWARNINGS": "default"}), stderr=err)
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=60)
        code = textwrap.dedent(f"""
            from orkas_nb import Agent
            from orkas_nb.providers.pool import POOL
            agents = [Agent("openai/gpt-4o-mini", base_url={model_server.openai_url!r}, api_key="k",
                            workspace={str(tmp_path)!r}) for _ in range(2)]
            texts = [(await a.arun("hi")).text for a in agents]
            assert texts == ["one", "two"], texts
            assert len(POOL.clients()) == 1
        """)
        reply = kc.execute_interactive(code, timeout=60)
        assert reply["content"]["status"] == "ok", reply["content"]
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=False)  # a clean shutdown: the kernel's atexit hooks run
    stderr = log.read_text()
    for bad in ("ResourceWarning", "nclosed", "Event loop is closed", "Traceback", "Exception ignored"):
        assert bad not in stderr, stderr
