"""The plan from ``%%agent`` cells in a real kernel, with the real executor and scripted agents:
``--plan`` shows the plan and runs it live; a user's form pauses it and an answer from the view
resumes it after the cell ended; a retry from the view re-runs the failed step and nothing
else; the finished plan leaves a static picture; ``%agent plan`` shows the session's plan."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from orkas_nb.notebook.views.plan_picture import PLAN_MIME
from tests.team.teamkit import write_agents

from .kernel import Kernel

pytestmark = [pytest.mark.kernel]

WIDGET = "application/vnd.jupyter.widget-view+json"
SETUP = r'''
%load_ext orkas_nb
from orkas_nb.testing import reply, call
from orkas_nb.core.errors import RequestError
from orkas_nb.notebook.state import current_state
from tests.team.teamkit import Router, user_texts
def walk(w):
    return [w, *[x for c in getattr(w, "children", ()) for x in walk(c)]]
def click(label, **values):
    box = current_state().plan_views[current_state().current].widget
    for w in walk(box):
        if getattr(w, "description", None) in values:
            w.value = values[w.description]
    [b for b in walk(box) if getattr(b, "description", None) == label][0].click()
'''
STEPS = (
    '[{"title": "Count answers", "assignee": "researcher", "wait_for": []},'
    ' {"title": "Read interviews", "assignee": "writer", "wait_for": [], "on_failure": "ask_commander"},'
    ' {"title": "Pick a style", "assignee": "user", "wait_for": [],'
    '  "form": {"prompt": "Which style?", "fields": [{"name": "style", "kind": "choice", "choices": ["bar", "line"]}]}},'
    ' {"title": "Summary", "assignee": "writer", "wait_for": [1, 2, 3],'
    '  "input": "A: {{step_1.output_summary}} B: {{step_2.output_summary}} style {{step_3.output_summary}}"}]'
)


# A form, then a researcher step waiting for it, then a writer step: answering the form from a
# control (after the first cell returned) starts the researcher on that cell's team.
CHAIN = ('[{"title": "Pick a style", "assignee": "user", "wait_for": [],'
         '  "form": {"prompt": "Which style?", "fields": [{"name": "style", "kind": "choice", "choices": ["bar", "line"]}]}},'
         ' {"title": "Count answers", "assignee": "researcher", "wait_for": [1]},'
         ' {"title": "Summary", "assignee": "writer", "wait_for": [2]}]')


def start_chain(kernel: Kernel, researcher: str, writer: str) -> Any:
    """The first cell of a CHAIN plan, with the members' scripted replies; it must succeed.
    ``asked_again`` (in the kernel) is set as the next cell's turn asks the commander: a member
    reply with ``wait=asked_again`` runs until then, however slow the machine."""
    kernel.run('%config Agent.renderer = "text"\n'
               'import asyncio\n'
               'asked_again = asyncio.Event()\n'
               f'_answers = [reply("", call("write_plan", title="Survey", steps={CHAIN})),'
               ' reply("Planned."), reply("Still counting.")]\n'
               'def _commander(request):\n'
               '    if len(_answers) == 1:\n'
               '        asked_again.set()\n'
               '    return _answers.pop(0)\n'
               f'router = Router(commander=_commander, researcher=[{researcher}], writer=[{writer}])\n'
               'm = router.model()')
    first = kernel.run("%%agent -m $m\nAnalyse the onboarding survey.", timeout=90)
    assert first.status == "ok", first.error
    return first


@pytest.fixture
def kernel(tmp_path: Path) -> Iterator[Kernel]:
    ws = tmp_path / "project"
    ws.mkdir()
    write_agents(ws, researcher="Finds facts in the files.", writer="Writes short notes.")
    env = {"ORKAS_CONFIG_DIR": str(tmp_path / "no-user-config")}
    with Kernel(ws, env=env) as k:
        k.run(SETUP)
        yield k


def plans(kernel: Kernel, cell: Any = None) -> list[dict[str, Any]]:
    """Every plan picture the kernel drew (the live text, then the static bundle)."""
    return [d[PLAN_MIME] for _, _, d in kernel.display_log if PLAN_MIME in d]


def final_plan(kernel: Kernel, cell: Any) -> dict[str, Any] | None:
    found = [d[PLAN_MIME] for d in kernel.shown(cell) if PLAN_MIME in d]
    return found[-1] if found else None


def test_plan_runs_live_in_the_cell_and_leaves_a_static_picture(kernel: Kernel) -> None:
    kernel.run('%config Agent.renderer = "text"\n'
               f'router = Router(commander=[reply("", call("write_plan", title="Survey", steps={STEPS})), reply("Planned.")],'
               ' researcher=[reply("44 answers")], writer=[reply("buddy system liked"), reply("The summary.")]);'
               ' m = router.model()')
    cell = kernel.run("%%agent --plan -m $m\nAnalyse the onboarding survey.", timeout=90)
    assert cell.status == "ok", cell.error
    live = [d.get("text/plain", "") for _, _, d in kernel.display_log if d.get("text/plain", "").startswith("Plan")]
    assert any("[in progress] Count answers" in t for t in live)  # drawn while it ran
    assert live[-1].startswith("Plan: Survey (paused")  # the user's form stops it
    assert "? Which style? (style)" in live[-1]
    nudge = kernel.value("user_texts(router.requests['commander'][0])")
    assert "write_plan" in nudge and "Analyse the onboarding survey." in nudge
    # answered from a later cell (the executor's API): the summary runs, the plan ends
    kernel.run("ex = current_state().plans[current_state().current]\n"
               "ex.act('answer', 3, {'style': 'bar'})\nawait ex.wait()")
    final = final_plan(kernel, cell)
    assert final is not None and final["state"] == "done"
    assert [s["status"] for s in final["steps"]] == ["done"] * 4
    summary_request = kernel.value("user_texts(router.requests['writer'][-1])")
    assert "A: 44 answers" in summary_request and "B: buddy system liked" in summary_request
    shown = kernel.run("%agent plan").stream()
    assert shown == "" and final_plan(kernel, kernel.cells[list(kernel.cells)[-1]])["state"] == "done"


def test_the_views_controls_resume_and_retry_through_the_executor(kernel: Kernel) -> None:
    kernel.run('%config Agent.renderer = "widgets"\n'
               f'router = Router(commander=[reply("", call("write_plan", title="Survey", steps={STEPS})),'
               ' reply("Planned."), reply("Leaving step 2 to the user."), reply("Fine.")],'
               ' researcher=[reply("44 answers")],'
               ' writer=[RequestError("the interviews file is locked"), reply("buddy system liked"), reply("The summary.")]);'
               ' m = router.model()')
    cell = kernel.run("%%agent -m $m\nAnalyse the onboarding survey.", timeout=90)
    assert cell.status == "ok", cell.error
    assert final_plan(kernel, cell) is None  # paused: still the live widget
    assert any(WIDGET in d for d in kernel.shown(cell))
    state = kernel.value("[(s.status, s.failure_reason) for s in current_state().plans[current_state().current].plan.steps]")
    assert [s for s, _ in state] == ["done", "failed", "blocked", "pending"]
    assert "locked" in state[1][1]
    step = "current_state().plans[current_state().current].plan.step({}).status"
    kernel.run('click("Send answer", style="line")')  # the answer resumes the paused plan
    kernel.pump(lambda: kernel.value(step.format(3)) == "done", timeout=30, what="step 3 answered")
    assert kernel.value(step.format(4)) == "pending"  # it waits for the failed step 2
    assert final_plan(kernel, cell) is None
    kernel.run('click("Retry")')  # step 2 only, then what waited for it
    kernel.pump(lambda: (final_plan(kernel, cell) or {}).get("state") == "done", timeout=30,
                what="the plan's static picture")
    final = final_plan(kernel, cell)
    assert [s["status"] for s in final["steps"]] == ["done"] * 4
    assert not any(WIDGET in d for d in kernel.shown(cell))  # the saved cell needs no widget state
    asked = kernel.value("{k: len(v) for k, v in router.requests.items()}")
    assert asked == {"commander": 3, "researcher": 1, "writer": 3}  # nothing else re-ran
    # the next cell of the conversation: the finished plan runs nothing
    kernel.run('router.scripts["commander"].append(reply("Anything else?"))')
    nxt = kernel.run("%%agent -m $m\nThanks.", timeout=60)
    assert nxt.status == "ok", nxt.error
    assert kernel.value("{k: len(v) for k, v in router.requests.items()}") == {**asked, "commander": 4}


def test_plan_needs_a_team_and_says_so(tmp_path: Path) -> None:
    with Kernel(tmp_path, env={"ORKAS_CONFIG_DIR": str(tmp_path / "none")}) as k:
        k.run("%load_ext orkas_nb\nfrom orkas_nb.testing import ScriptedModel\nm = ScriptedModel(['hi'])")
        cell = k.run("%%agent --plan -m $m\nPlan it.", allow_error=True)
        said = cell.stream("stderr") + str((cell.error or {}).get("evalue"))
        assert "UsageError: %%agent --plan: this workspace defines no agents to plan for" in said
        assert "no plan in session" in k.run("%agent plan").stream()


def test_after_a_restart_the_plan_is_a_picture_until_the_next_cell_resumes_it(kernel: Kernel) -> None:
    script = ('router = Router(commander=[reply("", call("write_plan", title="Survey", steps={steps})), reply("Planned.")]{more},'
              ' researcher=[reply("44 answers")], writer=[reply("buddy system liked"), reply("The summary.")]);'
              ' m = router.model()')
    kernel.run('%config Agent.renderer = "text"\n' + script.format(steps=STEPS, more=""))
    kernel.run("%%agent -m $m\nAnalyse the onboarding survey.", timeout=90)
    kernel.restart()  # the plan is paused on the user's form when the kernel goes
    kernel.run(SETUP + '%config Agent.renderer = "text"')
    shown = kernel.run("%agent plan")
    assert "the next %%agent cell resumes it" in shown.stream()
    (picture,) = [d[PLAN_MIME] for d in kernel.shown(shown) if PLAN_MIME in d]
    assert [s["status"] for s in picture["steps"]] == ["done", "done", "blocked", "pending"]
    # a new cell: the team takes the plan over; the form is still what it waits for
    kernel.run(script.format(steps=STEPS, more="").replace(
        'commander=[reply("", call("write_plan", title="Survey", steps=' + STEPS + ')), reply("Planned.")]',
        'commander=[reply("Waiting for your chart style.")]'))
    cell = kernel.run("%%agent -m $m\nWhere are we?", timeout=60)
    assert cell.status == "ok", cell.error
    refused = kernel.run("%agent plan answer 3 style=pie", allow_error=True)
    assert "'pie' is not a choice for style" in refused.stream("stderr") + str(refused.error)
    said = kernel.run("%agent plan answer 3 style=bar\n"
                      "await current_state().plans[current_state().current].wait()").stream()
    assert said.startswith("plan: answer step 3 sent")
    assert kernel.value("current_state().plans[current_state().current].plan.state") == "done"
    assert kernel.value("len(router.requests.get('researcher', []))") == 0  # nothing ran twice
    assert kernel.value("len(router.requests['writer'])") == 1  # the summary only


def test_stop_from_the_view_fails_the_running_step_and_pauses_the_plan(kernel: Kernel) -> None:
    slow = 'reply(("x" * 20 + "\\n") * 300, chunk_chars=4, delay_s=0.01)'  # 15 s unless stopped
    kernel.run('%config Agent.renderer = "widgets"\n'
               f'router = Router(commander=[reply("", call("write_plan", title="Survey", steps={STEPS})), reply("Planned.")],'
               f' researcher=[{slow}], writer=[reply("unused")]); m = router.model()')
    kernel.run("%%agent --background --plan -m $m\nAnalyse the onboarding survey.")
    status = "(lambda p: p and p.step(1).status)(current_state().plans[current_state().current].plan)"
    kernel.pump(lambda: kernel.value(status) == "in_progress", timeout=30, what="step 1 running")
    kernel.run('click("Stop")')
    kernel.run("import orkas_nb.notebook as _n\nawait _n.wait(30)")
    plan = kernel.value("[(s.status, s.failure_reason) for s in current_state().plans[current_state().current].plan.steps]")
    assert plan[0][0] == "failed" and "stop" in plan[0][1]
    assert [s for s, _ in plan[1:]] == ["pending", "pending", "pending"]  # nothing ran after it
    assert kernel.value("current_state().plans[current_state().current].plan.state") == "paused"
    assert "writer" not in kernel.value("list(router.requests)")


def test_a_plan_running_from_a_control_goes_on_while_the_next_cell_starts(kernel: Kernel) -> None:
    """The executor lasts with the conversation: the next cell's team takes it over as it runs
    (not refused, not reloaded), and each step runs once."""
    slow = 'reply(("x" * 20 + "\\n") * 150, chunk_chars=40, wait=asked_again)'  # until the next cell
    start_chain(kernel, slow, 'reply("The summary.")')
    kernel.run("ex0 = current_state().plans[current_state().current]")
    assert kernel.value("[s.status for s in ex0.plan.steps]") == ["blocked", "pending", "pending"]
    said = kernel.run("%agent plan answer 1 style=bar").stream()  # the plan runs on after it
    assert said.startswith("plan: answer step 1 sent")
    kernel.pump(lambda: kernel.value("ex0.plan.step(2).status") == "in_progress", timeout=30,
                what="step 2 running")
    assert not kernel.value("ex0.idle")
    nxt = kernel.run("%%agent -m $m\nHow is it going?", timeout=90)
    assert nxt.status == "ok", nxt.error  # not refused while the plan runs steps
    assert kernel.value("current_state().plans[current_state().current] is ex0")  # not reloaded
    assert kernel.value("ex0.plan.state") == "done"  # the cell waited for the plan it took over
    assert kernel.value("[(s.status, s.runs) for s in ex0.plan.steps]") == [
        ["done", 1], ["done", 1], ["done", 1]]
    asked = kernel.value("{k: len(v) for k, v in router.requests.items()}")
    assert asked == {"commander": 3, "researcher": 1, "writer": 1}  # no step ran twice
    assert "The summary." in kernel.value("ex0.plan.step(3).output_summary")
