"""The handshake in a real kernel: a client that answers the probe as the labextension does,
and one that does not (VS Code, classic notebook, nbclient)."""

from __future__ import annotations

import os
import queue
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from jupyter_client.manager import KernelManager

from orkas_nb.notebook.views.lab.protocol import HANDSHAKE_TARGET, PROBE_PREFIX

pytestmark = [pytest.mark.kernel]

REPO = Path(__file__).resolve().parents[3]
Answer = Callable[[Any, str], None]


@pytest.fixture(scope="module")
def kc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    km = KernelManager(kernel_name="python3")
    km.start_kernel(cwd=str(tmp_path_factory.mktemp("handshake")), env=env)
    client = km.client()
    client.start_channels()
    client.wait_for_ready(timeout=60)
    try:
        yield client
    finally:
        client.stop_channels()
        km.shutdown_kernel(now=True)


def hello(kc: Any, nonce: str, **data: Any) -> None:
    """What the labextension does: open a comm to the handshake target with its views."""
    content = {"comm_id": uuid.uuid4().hex, "target_name": HANDSHAKE_TARGET,
               "data": {"nonce": nonce, "version": "0.1.0", "views": ["run", "plan"], **data}}
    kc.shell_channel.send(kc.session.msg("comm_open", content))


def run(kc: Any, code: str, answer: Answer | None = None, timeout: float = 60.0) -> dict[str, Any]:
    msg_id = kc.execute(code)
    out: dict[str, Any] = {"stdout": "", "probes": [], "comm_opens": [], "reply": None}
    idle = False
    deadline = time.monotonic() + timeout
    while not (idle and out["reply"] is not None):
        assert time.monotonic() < deadline, f"cell did not finish: {out}"
        try:
            msg = kc.get_shell_msg(timeout=0)
            if msg["parent_header"].get("msg_id") == msg_id:
                out["reply"] = msg["content"]
        except queue.Empty:
            pass
        try:
            msg = kc.get_iopub_msg(timeout=0.02)
        except queue.Empty:
            continue
        kind, content = msg["msg_type"], msg["content"]
        if kind == "comm_msg" and content["comm_id"].startswith(PROBE_PREFIX):
            out["probes"].append(content)
            if answer is not None:
                answer(kc, content["data"]["probe"])
        elif kind == "comm_open":
            out["comm_opens"].append(content)
        elif kind == "stream" and content["name"] == "stdout":
            out["stdout"] += content["text"]
        elif kind == "error":
            raise AssertionError("\n".join(content["traceback"]))
        elif kind == "status" and content["execution_state"] == "idle" \
                and msg["parent_header"].get("msg_id") == msg_id:
            idle = True
    return out


PROBE = """
import time
from orkas_nb.notebook.views.lab.handshake import probe_frontend, forget
{forget}
t0 = time.monotonic()
answer = await probe_frontend({timeout})
print(answer.views if answer else None, round(time.monotonic() - t0, 2))
"""


def test_no_answer_means_fallback_after_the_timeout(kc: Any) -> None:
    out = run(kc, PROBE.format(forget="forget()", timeout=0.6))
    views, took = out["stdout"].split()
    assert views == "None" and 0.6 <= float(took) < 5
    assert len(out["probes"]) == 1
    assert out["comm_opens"] == []  # a probe is a message to no one: no comm, nothing displayed


def test_the_extension_answer_is_taken_and_cached_per_client_session(kc: Any) -> None:
    out = run(kc, PROBE.format(forget="forget()", timeout=10), answer=hello)
    assert out["stdout"].startswith("['run', 'plan']")
    assert float(out["stdout"].split()[-1]) < 10
    again = run(kc, PROBE.format(forget="", timeout=10))  # no answering this time: cached
    assert again["stdout"].startswith("['run', 'plan']") and again["probes"] == []


def test_a_malformed_answer_is_ignored(kc: Any) -> None:
    def bad(kc: Any, nonce: str) -> None:
        content = {"comm_id": uuid.uuid4().hex, "target_name": HANDSHAKE_TARGET,
                   "data": {"views": "everything"}}
        kc.shell_channel.send(kc.session.msg("comm_open", content))

    out = run(kc, PROBE.format(forget="forget()", timeout=0.6), answer=bad)
    assert out["stdout"].split()[0] == "None"


def test_a_late_answer_switches_the_next_run(kc: Any) -> None:
    nonces: list[str] = []
    out = run(kc, PROBE.format(forget="forget()", timeout=0.3), answer=lambda kc, n: nonces.append(n))
    assert out["stdout"].split()[0] == "None"
    hello(kc, nonces[0])  # arrives after the run fell back
    later = run(kc, "import asyncio\nawait asyncio.sleep(0.3)\n" + PROBE.format(forget="", timeout=0.3))
    assert later["stdout"].startswith("['run', 'plan']") and later["probes"] == []


def test_the_timeout_comes_from_the_environment(kc: Any) -> None:
    out = run(kc, "import os\nfrom orkas_nb.notebook.views.lab.handshake import default_timeout\n"
                  "os.environ['ORKAS_HANDSHAKE_TIMEOUT'] = '2.5'; a = default_timeout()\n"
                  "os.environ['ORKAS_HANDSHAKE_TIMEOUT'] = 'soon'; b = default_timeout()\n"
                  "del os.environ['ORKAS_HANDSHAKE_TIMEOUT']; print(a, b, default_timeout())")
    assert out["stdout"].split() == ["2.5", "0.5", "0.5"]


RENDER = """
from orkas_nb import Agent
from orkas_nb.notebook.views.lab.handshake import forget
from orkas_nb.notebook.views.lab.register import HandshakeRenderer
from orkas_nb.notebook.views.renderer import RunInfo
from orkas_nb.testing import ScriptedModel, reply

class Recorder:
    def __init__(self): self.events, self.finished = [], False
    def start(self, info): self.info = info
    def render(self, event): self.events.append(event)
    def finish(self, result): self.finished = True

class Ctx:
    controls, slot, refresh_interval, extra = None, None, 0.05, {{}}
    transcript = staticmethod(lambda result: None)

forget()
rec = Recorder()
r = HandshakeRenderer(Ctx(), fallback=lambda ctx: rec, timeout={timeout})
agent = Agent(ScriptedModel([reply("hello there, streamed in pieces", chunk_chars=3)]), default_tools=False)
r.start(RunInfo(model="scripted"))
events = [e async for e in agent.run("hi")]
for e in events:
    r.render(e)
r.finish(events[-1].result)
chosen = await r.wait_chosen()
print(type(chosen).__name__, len(rec.events), len(events), rec.finished)
"""


def test_without_an_answer_the_builtin_view_gets_every_event(kc: Any) -> None:
    out = run(kc, RENDER.format(timeout=0.5))
    name, replayed, total, finished = out["stdout"].split()
    assert name == "Recorder" and replayed == total and int(total) > 3 and finished == "True"
    assert not [c for c in out["comm_opens"] if c["data"]["state"].get("_model_name") == "RunModel"]


def test_with_the_extension_the_run_view_is_opened(kc: Any) -> None:
    out = run(kc, RENDER.format(timeout=10), answer=hello)
    assert out["stdout"].split()[:2] == ["LabRenderer", "0"]
    models = [c["data"]["state"] for c in out["comm_opens"] if c["target_name"] == "jupyter.widget"]
    run_models = [s for s in models if s.get("_model_name") == "RunModel"]
    assert len(run_models) == 1 and run_models[0]["_view_module"] == "orkas-nb"


BLOCKED = """
import asyncio, os, time
from orkas_nb.notebook.views.lab.handshake import probe_frontend, forget
forget()
task = asyncio.ensure_future(probe_frontend(0.5))
await asyncio.sleep(0)  # the probe goes out
# then a blocking call (an MCP server starting) holds the loop until the answer is queued (the
# test touches the file as it sends it), and past the timeout
held = time.monotonic()
while not os.path.exists({sent!r}) and time.monotonic() - held < 60:
    time.sleep(0.01)
time.sleep(1.0)
answer = await task
print(answer.views if answer else None, round(time.monotonic() - held, 1))
"""


def test_an_answer_queued_while_a_blocking_call_held_the_loop_is_still_taken(
        kc: Any, tmp_path: Path) -> None:
    # the first MCP run in a busy kernel answered after 2.5 s and fell back to the built-in widgets
    sent = tmp_path / "hello-sent"

    def answer(kc: Any, nonce: str) -> None:
        hello(kc, nonce)
        sent.touch()

    out = run(kc, BLOCKED.format(sent=str(sent)), answer=answer)
    assert len(out["probes"]) == 1
    views, held = out["stdout"].strip().rsplit(" ", 1)
    assert views == "['run', 'plan']" and float(held) >= 1.0  # held past the 0.5 s timeout
