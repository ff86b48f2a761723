"""Team lanes in the built-in widget view, in a real kernel: two parallel dispatches stream into
two collapsible lanes at once, each holding only its own words; the saved cell keeps them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.team.teamkit import write_agents

from .kernel_harness import WidgetKernel, markdown_of

pytestmark = [pytest.mark.kernel, pytest.mark.slow]

SETUP = r'''
%load_ext orkas_nb
from orkas_nb.testing import reply, call
from tests.team.teamkit import Router
def slow(word):
    return reply((word + " ") * 150, chunk_chars=6, delay_s=0.02)  # ~0.5 s of streaming
router = Router(
    commander=[reply("Asking both.", call("dispatch_to", agent="researcher", task="A"),
                     call("dispatch_to", agent="writer", task="B"),
                     call("run_worker", task="unseen")),
               reply("Both reported.")],
    researcher=[slow("fact")], writer=[slow("draft")], worker=[reply("worker words")])
m = router.model()
'''


@pytest.fixture(scope="module")
def nb(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WidgetKernel]:
    cwd: Path = tmp_path_factory.mktemp("teamwidgets")
    write_agents(cwd, researcher="Finds facts.", writer="Writes notes.")
    with WidgetKernel(cwd, env={"ORKAS_RENDERER": "widgets",
                                "ORKAS_CONFIG_DIR": str(cwd / "no-user-config")}) as k:
        k.run(SETUP)
        yield k


def test_two_parallel_lanes_stream_at_once_each_with_its_own_words(nb: WidgetKernel) -> None:
    ex = nb.start("%%agent -m $m -s lanes\nask both")

    def lane_text(lane) -> str:
        (body,) = nb.children(lane)
        return "".join(markdown_of(c) for c in nb.children(body))

    def both_streaming() -> bool:
        lanes = nb.find("orkas-lane")
        running = [x for x in lanes if "running" in x.state.get("titles", ("",))[0]]
        return len(running) == 2 and all(lane_text(x).strip() for x in running)

    nb.pump(both_streaming, timeout=30, what="two lanes streaming at once")
    assert not ex.done
    lanes = {x.state["titles"][0].split(" · ")[0]: x for x in nb.find("orkas-lane")}
    assert set(lanes) == {"researcher", "writer"}  # the anonymous worker has no lane
    assert "fact" in lane_text(lanes["researcher"]) and "draft" not in lane_text(lanes["researcher"])
    assert "draft" in lane_text(lanes["writer"]) and "fact" not in lane_text(lanes["writer"])
    assert lanes["researcher"].state["titles"][0].startswith("researcher · dispatch · running")
    nb.wait(ex, timeout=60)
    assert ex.status == "ok", ex.reply
    final = [o for o in ex.outputs if o["msg_type"] in ("display_data", "update_display_data")][-1]["data"]
    saved = final["application/vnd.orkas.transcript+json"]
    assert [(x["member"], x["status"]) for x in saved["lanes"]] == [("researcher", "done"),
                                                                    ("writer", "done")]
    assert "<details><summary>researcher · dispatch · done" in final["text/markdown"]
    assert all(x.closed for x in nb.find("orkas-lane", open_only=False))  # the widgets are gone
