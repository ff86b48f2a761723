"""``agent.run_sync()`` in a real kernel's cell (issue 13, part 4).

A kernel runs cells inside a running event loop, so ``asyncio.run`` refuses; run_sync runs the
turn on a worker thread's loop while the cell waits. These tests drive a real ipykernel through
jupyter_client: the result comes back, the cell's context variables and output follow the turn,
HTTP to a loopback model works across calls, approvals never wait for a click that cannot
arrive (asked through the kernel's input() when the front end allows it, denied at once with a
message naming ``await agent.arun(...)`` when it does not, as under nbclient), and the kernel's
interrupt stops the run and leaves the session valid.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from tests.fakes.model_server import ModelServer, Reply

from .kernel import REPO, Kernel

pytestmark = [pytest.mark.kernel, pytest.mark.slow]

SETUP = r'''
import asyncio, contextvars
from orkas_nb import Agent, tool
from orkas_nb.testing import ScriptedModel, reply, call
from orkas_nb.notebook.approvals.widgets import WidgetApprover

who = contextvars.ContextVar("who", default="nobody")

@tool
async def whoami() -> str:
    """Say who is asking (read from the cell's context) and print it."""
    print("tool sees", who.get(), flush=True)
    return who.get()

@tool
async def slow(seconds: float = 60.0) -> str:
    """Wait, then answer.

    Args:
        seconds: how long to wait
    """
    print("slow started", flush=True)
    await asyncio.sleep(seconds)
    return "waited"

def last_tool(agent):
    return [m for m in agent.messages if m.role == "tool"][-1]
'''


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("runsync")
    (folder / ".env").write_text("API_TOKEN=the-secret-value\n")
    return folder


@pytest.fixture(scope="module")
def nb(ws: Path) -> Iterator[Kernel]:
    with Kernel(ws) as k:
        k.run(SETUP)
        yield k


def test_run_sync_returns_in_a_cell_with_the_cells_context_and_output(nb: Kernel) -> None:
    cell = nb.run(
        'who.set("cell-ctx")\n'
        'a = Agent(ScriptedModel([reply("", call("whoami")), reply("done")]), workspace=".",\n'
        '          default_tools=False, tools=[whoami])\n'
        'r = a.run_sync("who is there?")\n'
        'print("RESULT", r.text, r.stop_reason, last_tool(a).text)')
    out = cell.stream()
    # The tool ran in a copy of the cell's context, and its print landed in this cell.
    assert "tool sees cell-ctx" in out
    assert "RESULT done end_turn cell-ctx" in out


def test_run_sync_over_http_works_call_after_call(nb: Kernel) -> None:
    with ModelServer() as server:
        server.push(Reply(text="first answer"), Reply(text="second answer"))
        nb.run(
            "from orkas_nb.providers.openai_chat import OpenAIChatProvider\n"
            "from orkas_nb.providers.auth import StaticKey\n"
            f"p = OpenAIChatProvider(base_url={server.openai_url!r},\n"
            "                       token_source=StaticKey('sk-test'))\n"
            "h = Agent(p, model_name='gpt-test', workspace='.', default_tools=False)")
        first = nb.run('print("GOT", h.run_sync("one").text)').stream()
        second = nb.run('print("GOT", h.run_sync("two").text)').stream()
        assert "GOT first answer" in first and "GOT second answer" in second
        assert len(server.posts()) == 2


READ_ENV = ('r = s.run_sync("read the env file")\n'
            'print("TOOL", last_tool(s).status, last_tool(s).text)')


def test_run_sync_and_await_arun_mix_over_http_in_one_kernel(nb: Kernel) -> None:
    with ModelServer() as server:
        server.push(*(Reply(text=f"answer {i}") for i in range(4)))
        nb.run(
            "from orkas_nb.providers.openai_chat import OpenAIChatProvider\n"
            "from orkas_nb.providers.auth import StaticKey\n"
            f"p = OpenAIChatProvider(base_url={server.openai_url!r},\n"
            "                       token_source=StaticKey('sk-test'))\n"
            "mix = Agent(p, model_name='gpt-test', workspace='.', default_tools=False)")
        got = [
            nb.run('print("GOT", mix.run_sync("a").text)').stream(),
            nb.run('r = await mix.arun("b"); print("GOT", r.text, r.error)').stream(),
            nb.run('print("GOT", mix.run_sync("c").text)').stream(),
            nb.run('r = await mix.arun("d"); print("GOT", r.text, r.error)').stream(),
        ]
        for i, out in enumerate(got):
            assert f"GOT answer {i}" in out, out


def _secret_agent(nb: Kernel) -> None:
    nb.run('s = Agent(ScriptedModel([reply("", call("read_file", path=".env")), reply("ok")]),\n'
           '          workspace=".", approver=WidgetApprover())')


def test_an_approval_without_input_is_denied_at_once_naming_arun(nb: Kernel) -> None:
    """nbclient and nbconvert send allow_stdin=False: nobody can answer, so deny now (the
    buttons' 300 s timeout would stall the cell silently) and say how to get the buttons."""
    _secret_agent(nb)
    started = time.monotonic()
    cell = nb.send(READ_ENV, allow_stdin=False)
    nb.pump(lambda: cell.done, 60, "the run")
    took = time.monotonic() - started
    assert cell.status == "ok", cell.outputs
    assert took < 30, f"the approval stalled the cell for {took:.0f} s"
    notice = cell.stream("stderr")
    assert "await agent.arun(" in notice and ".env" in notice and "denied" in notice
    out = cell.stream()
    assert "TOOL denied" in out, out
    assert "the-secret-value" not in out


def test_an_approval_is_asked_through_input_when_the_front_end_allows_it(nb: Kernel) -> None:
    _secret_agent(nb)
    asked: list[str] = []

    def on_stdin(request: dict) -> str:
        asked.append(request["prompt"])
        return "o"

    cell = nb.send(READ_ENV, allow_stdin=True)
    nb.pump(lambda: cell.done, 60, "the run", on_stdin=on_stdin)
    assert cell.status == "ok", cell.outputs
    assert len(asked) == 1 and ".env" in asked[0] and "[o]nce" in asked[0]
    assert "TOOL ok" in cell.stream() and "the-secret-value" in cell.stream()


def test_the_kernel_interrupt_stops_run_sync_and_leaves_the_session_valid(nb: Kernel) -> None:
    nb.run('t = Agent(ScriptedModel([reply("", call("slow", seconds=120)), reply("after")]),\n'
           '          workspace=".", default_tools=False, tools=[slow])')
    cell = nb.send('t.run_sync("wait a while")')
    nb.pump(lambda: "slow started" in cell.stream(), 30, "the slow tool to start")
    interrupted = time.monotonic()
    nb.km.interrupt_kernel()
    nb.pump(lambda: cell.done, 30, "the interrupted cell")
    took = time.monotonic() - interrupted
    assert cell.status == "error", cell.outputs
    assert (cell.error or {}).get("ename") == "KeyboardInterrupt", cell.outputs
    assert took < 15, f"the interrupt took {took:.1f} s to stop the cell"
    # The open call was closed and saved; the agent takes the next turn.
    after = nb.run('print("LAST", last_tool(t).status, t.runner.running)\n'
                   'print("NEXT", t.run_sync("go on").text)').stream()
    assert "LAST interrupted False" in after, after
    assert "NEXT after" in after


def test_under_nbclient_run_sync_runs_and_an_approval_is_denied_with_the_notice(
    ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """nbclient (nbconvert --execute, papermill) answers no input request: the saved notebook
    holds the result and the notice, and the run did not wait for the buttons' timeout."""
    cells = [SETUP, 's = Agent(ScriptedModel([reply("", call("read_file", path=".env")), '
                    'reply("ok")]), workspace=".", approver=WidgetApprover())', READ_ENV]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    path = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    monkeypatch.setenv("PYTHONPATH", path)
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    started = time.monotonic()
    NotebookClient(nb, timeout=60, kernel_name="python3",
                   resources={"metadata": {"path": str(ws)}}).execute()
    assert time.monotonic() - started < 60
    streams = {o["name"]: o["text"] for o in nb.cells[2].outputs if o["output_type"] == "stream"}
    assert "await agent.arun(...)" in streams.get("stderr", ""), nb.cells[2].outputs
    assert "TOOL denied" in streams.get("stdout", "")
    assert "the-secret-value" not in streams["stdout"]
