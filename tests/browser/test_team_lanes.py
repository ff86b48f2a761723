"""A team in the run view, in a real JupyterLab and chromium: lanes streaming side by side, and
a hand-off after which an @-less cell reaches the agent.

The "models" are the fake model server (real OpenAI wire over loopback) started in the
kernel, answering per member on the marker in each agent's system prompt. Each member first
says a line and reads a file, then its last answer waits until the test has seen the lanes (a
file the test makes): both lanes are then open and running at once, each with its own words.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.team.teamkit import RESEARCHER_AND_WRITER, write_agents

from .notebook import CELLS, NotebookPage

pytestmark = [pytest.mark.browser, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
FOLDER = "team15"  # its own folder: the agent files must not turn other tests' cells into teams

SETUP = f"""\
import os, sys, time, json
sys.path.insert(0, {str(REPO)!r})
%load_ext orkas_nb
from tests.fakes.model_server import ModelServer
from tests.fakes.wire import Reply, ToolCall
from tests.team.teamkit import member_of
from orkas_nb.providers.auth import StaticKey
from orkas_nb.providers.openai_chat import OpenAIChatProvider

def read(path):
    return ToolCall("read_file", json.dumps({{"path": path}}))

SCRIPTS = {{
    "commander": [
        Reply("Asking both of them.", [ToolCall("dispatch_to", json.dumps({{"agent": "researcher", "task": "Find the facts in notes.txt"}})),
                                       ToolCall("dispatch_to", json.dumps({{"agent": "writer", "task": "Draft a note from notes.txt"}}))]),
        Reply("Both reported: all done."),
        Reply("", [ToolCall("hand_off_to", json.dumps({{"agent": "researcher", "message": "teach regex"}}))]),
        Reply("Welcome back; the regex lessons are over."),
    ],
    "researcher": [
        Reply("Researcher reading the notes.", [read("notes.txt")]),
        ("lanes-seen", Reply("Researcher found three facts.")),
        Reply("Lesson 1: a dot matches any character."),
        Reply("Groups use parentheses.", [read("notes.txt")]),
        ("floor-seen", Reply("That is all for groups.\\n<handback />")),
    ],
    "writer": [
        Reply("Writer drafting the note.", [read("notes.txt")]),
        ("lanes-seen", Reply("Writer drafted the note.")),
    ],
}}
asked = []

def script(payload):
    member = member_of(payload)
    asked.append(member)
    step = SCRIPTS[member].pop(0)
    if isinstance(step, tuple):  # held until the test has seen the lanes running (it makes the file)
        held = time.monotonic()  # the server answers each request in its own thread
        while not os.path.exists(step[0]) and time.monotonic() - held < 120:
            time.sleep(0.05)
        step = step[1]
    return step

server = ModelServer(script).start()
model = OpenAIChatProvider(base_url=server.openai_url, token_source=StaticKey("sk-test"))
model.default_model = "gpt-4o-mini"
"""

PARALLEL = "%%agent -m $model -s lanes\nAsk the researcher and the writer about notes.txt."
HAND_OFF = "%%agent -m $model -s lanes\nTeach me regex."
UNADDRESSED = "%%agent -m $model -s lanes\nAnd groups?"
ASKED = "print(asked)"


@pytest.fixture
def folder(nb: NotebookPage):
    root = nb.lab.root / FOLDER
    root.mkdir(exist_ok=True)
    write_agents(root, **RESEARCHER_AND_WRITER)
    (root / "notes.txt").write_text("- finish the report\n- book the room\n- send the draft\n")
    yield root
    shutil.rmtree(root, ignore_errors=True)


def test_two_lanes_stream_at_once_and_an_unaddressed_cell_reaches_the_floor_holder(
        nb: NotebookPage, folder: Path) -> None:
    name = f"{FOLDER}/lanes.ipynb"
    nb.open(name, [SETUP, PARALLEL, HAND_OFF, UNADDRESSED, ASKED])
    nb.run_cell(0)
    nb.wait_cell_done(0)

    # Two parallel dispatch_to runs: two lanes open and running at once, each with its own words.
    nb.run_cell(1)
    run = nb.output(1).locator(".orkas-run:not(.orkas-transcript)")
    run.wait_for()
    both = nb.page.wait_for_function(
        """(el) => {
             const lanes = [...el.querySelectorAll('.orkas-lane[data-status="running"]')];
             const by = Object.fromEntries(lanes.map(l => [l.dataset.member, l.querySelector('.orkas-lane-body').textContent]));
             return by.researcher && by.writer && by.researcher.includes('Researcher reading')
               && by.writer.includes('Writer drafting') ? by : null; }""",
        arg=run.element_handle(), timeout=60_000).json_value()
    assert "Writer" not in both["researcher"] and "Researcher" not in both["writer"], both
    assert run.get_attribute("data-status") == "running"
    # each lane has its own tool card, inside it
    assert run.locator(".orkas-lane[data-member='researcher'] .orkas-tool[data-tool='read_file']").count() == 1
    (folder / "lanes-seen").touch()  # the members' last answers may come now
    nb.wait_cell_done(1)
    saved = nb.output(1).locator(".orkas-transcript")
    saved.wait_for()
    lanes = saved.locator(".orkas-lane")
    assert lanes.count() == 2
    assert [lanes.nth(i).get_attribute("data-member") for i in (0, 1)] == ["researcher", "writer"]
    assert all(lanes.nth(i).get_attribute("data-status") == "done" for i in (0, 1))
    facts = lanes.nth(0).locator(".orkas-lane-facts").inner_text()
    assert "2 model requests" in facts and "in /" in facts and "out tokens" in facts, facts
    assert "Researcher found three facts." in lanes.nth(0).inner_text()
    assert "Writer" not in lanes.nth(0).inner_text()
    # the commander's loop in segments: its words before the lanes, its answer after them
    order = saved.evaluate(
        """(el) => [...el.querySelectorAll('.orkas-run-body > *')].map(n =>
             n.classList.contains('orkas-lane') ? 'lane:' + n.dataset.member :
             n.textContent.includes('Asking both') ? 'before' :
             n.textContent.includes('Both reported') ? 'after' : '').filter(Boolean)""")
    assert order == ["before", "lane:researcher", "lane:writer", "after"], order

    # A hand-off: the agent answers in the same cell, on the floor.
    nb.run_cell(2)
    nb.wait_cell_done(2)
    handed = nb.output(2).locator(".orkas-transcript")
    handed.wait_for()
    floor = handed.locator(".orkas-lane[data-member='researcher'][data-kind='floor']")
    assert "a dot matches any character" in floor.inner_text()
    assert "researcher has the floor" in handed.inner_text()

    # The next cell has no @name: it reaches the agent, whose lane runs live; it hands back.
    nb.run_cell(3)
    live = nb.output(3).locator(".orkas-run:not(.orkas-transcript)")
    live.locator(".orkas-lane[data-member='researcher'][data-kind='floor'][data-status='running']").wait_for(
        timeout=60_000)
    assert "Groups use parentheses." in live.locator(".orkas-lane").first.inner_text()
    (folder / "floor-seen").touch()
    nb.wait_cell_done(3)
    back = nb.output(3).locator(".orkas-transcript")
    back.wait_for()
    lane = back.locator(".orkas-lane[data-member='researcher'][data-kind='floor']")
    text = lane.inner_text()
    assert "That is all for groups." in text and "handed the floor back" in text
    assert "<handback" not in back.inner_text()
    assert "the floor is back with the commander" in back.inner_text()
    nb.run_cell(4)
    nb.wait_cell_done(4)
    asked = eval(nb.output(4).inner_text().strip())
    # cell 3 went to the researcher first (no @name), then the commander resumed its open request
    assert asked[-3:] == ["researcher", "researcher", "commander"], asked

    # Saved, reopened with no kernel: the lanes are still there, in order, with their facts.
    nb.save()
    data = nb.saved(name)
    saved_lanes = [o["data"]["application/vnd.orkas.transcript+json"].get("lanes", [])
                   for o in data["cells"][1]["outputs"]
                   if "application/vnd.orkas.transcript+json" in o.get("data", {})]
    assert [x["member"] for x in saved_lanes[0]] == ["researcher", "writer"]
    nb.lab.shutdown_kernels()
    nb.page.goto(nb.lab.url("lab?reset"))
    nb.page.wait_for_selector(".jp-LabShell", timeout=60_000)
    nb.page.wait_for_function("() => !!window.jupyterapp && window.jupyterapp.started !== undefined")
    nb.command("docmanager:open", {"path": name, "factory": "Notebook",
                                   "kernelPreference": {"shouldStart": False, "canStart": False}})
    again = nb.page.locator(CELLS).nth(1).locator(".orkas-transcript .orkas-lane")
    again.first.wait_for(timeout=60_000)
    assert [again.nth(i).get_attribute("data-member") for i in (0, 1)] == ["researcher", "writer"]
