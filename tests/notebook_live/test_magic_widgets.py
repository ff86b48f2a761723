"""The live view plugged into ``%%agent`` (issue 6's magic) through its plugin registry."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from .kernel_harness import WidgetKernel

pytestmark = [pytest.mark.kernel, pytest.mark.slow]

SETUP = r'''
%load_ext orkas_nb
import orkas_nb.notebook
import asyncio
from orkas_nb import tool
from orkas_nb.testing import ScriptedModel, reply, call

@tool
async def slow(seconds: float = 30.0) -> str:
    "Wait."
    await asyncio.sleep(seconds)
    return "waited"
'''


@pytest.fixture(scope="module")
def nb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WidgetKernel]:
    cwd: Path = tmp_path_factory.mktemp("magic")
    with WidgetKernel(cwd) as k:
        k.run(SETUP)
        yield k


def test_magic_shows_the_live_view_asks_with_buttons_and_keeps_a_transcript(nb: WidgetKernel) -> None:
    nb.run('m = ScriptedModel([reply("Computing.", call("run_python", code="total = sum(range(10))")),'
           ' reply("The total is in `total`.")])')
    ex = nb.start("%%agent -m $m -s widgets\ncompute the total")
    button = nb.wait_for("orkas-approve-once", timeout=30)
    assert not ex.done
    assert "kernel_python" in nb.find("orkas-approval-text")[-1].state["value"]
    nb.click(button.comm_id)
    nb.wait(ex, timeout=30)
    assert ex.status == "ok", ex.reply
    nb.run("assert total == 45")
    shown = [o for o in ex.outputs if o["msg_type"] in ("display_data", "update_display_data")]
    assert "application/vnd.jupyter.widget-view+json" in shown[0]["data"]
    final = shown[-1]["data"]
    assert "application/vnd.orkas.transcript+json" in final and "The total is" in final["text/markdown"]
    assert shown[-1]["transient"]["display_id"] == shown[0]["transient"]["display_id"]
    assert nb.find("orkas-live", open_only=False)[-1].closed


def test_stop_button_ends_a_magic_run_within_a_second(nb: WidgetKernel) -> None:
    nb.run('m = ScriptedModel([reply("Waiting.", call("slow", seconds=60)), reply("after")])')
    ex = nb.start("%%agent -m $m -s stopping\nwait")
    nb.pump(lambda: any(c.state.get("titles", ("",))[0].startswith("⏳ slow")
                        for c in nb.find("orkas-tool")), timeout=30, what="the slow tool")
    clicked = time.time()  # the kernel stamps its messages with this clock
    nb.click(nb.find("orkas-stop")[-1].comm_id)
    nb.wait(ex, timeout=30)
    assert ex.idle_sent - clicked < 2.0  # users feel ~1 s; typical 0.15 s, margin for a loaded CI
    nb.run("from orkas_nb.harness.repair import open_calls\n"
           "import orkas_nb.notebook as n\n"
           "r = n.current_state().last.result\n"
           "assert r.stop_reason == 'cancelled', r.stop_reason")


def test_a_background_run_keeps_its_live_controls(nb: WidgetKernel) -> None:
    nb.run('m = ScriptedModel([reply("Waiting.", call("slow", seconds=60)), reply("after")])')
    ex = nb.run("%%agent -m $m -s background --background\nwait")  # returns at once
    nb.pump(lambda: any(c.state.get("titles", ("",))[0].startswith("⏳ slow")
                        for c in nb.find("orkas-tool")), timeout=30, what="the slow tool")
    nb.click(nb.find("orkas-stop")[-1].comm_id)
    nb.run("r = await orkas_nb.notebook.wait(10)\nassert r.stop_reason == 'cancelled', r")
    final = [o for o in ex.outputs if o["msg_type"] == "update_display_data"]
    assert final and "application/vnd.orkas.transcript+json" in final[-1]["data"]


def test_the_kernel_interrupt_stops_a_magic_run_and_the_view_still_gives_way(nb: WidgetKernel) -> None:
    nb.run('m = ScriptedModel([reply("Waiting.", call("slow", seconds=60)), reply("after")])')
    ex = nb.start("%%agent -m $m -s interrupted\nwait")
    nb.pump(lambda: any(c.state.get("titles", ("",))[0].startswith("⏳ slow")
                        for c in nb.find("orkas-tool")), timeout=30, what="the slow tool")
    sent = time.time()  # the kernel stamps its messages with this clock
    nb.interrupt()
    nb.wait(ex, timeout=30)
    assert ex.idle_sent - sent < 2.0  # users feel ~1 s; typical 0.15 s, margin for a loaded CI
    assert "Interrupt" in ex.reply["content"]["ename"]  # the magic reports it (its own wording)
    final = [o for o in ex.outputs if o["msg_type"] == "update_display_data"]
    assert final and "interrupted" in final[-1]["data"]["text/markdown"].lower()
    assert nb.find("orkas-live", open_only=False)[-1].closed
