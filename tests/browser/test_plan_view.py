"""The plan view in a real JupyterLab and chromium, driven by the real plan executor: a team's
agents answer from the loopback model server, scripted per member. The view updates live while
steps run; a form answer resumes the paused plan; a retry click re-runs the one failed step and
nothing else; the finished plan leaves a static picture that renders with no kernel."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.model_server import Fault, ModelServer
from tests.fakes.wire import Reply, ToolCall
from tests.team.teamkit import who, write_agents

from .cells import PLAN_CELL, PLAN_SETUP, PLAN_STEPS
from .conftest import OUTPUT
from .notebook import NotebookPage

pytestmark = [pytest.mark.browser, pytest.mark.slow]

STEP_S = 2.0  # each member takes this long to answer: long enough to be seen in progress on a loaded machine


def system_of(payload: dict[str, Any]) -> str:
    first = payload["messages"][0]
    return json.dumps(first["content"]) if first["role"] in ("system", "developer") else ""


class Members:
    """The scripted team: the commander plans, then lets the user decide on the failure; the
    writer's first answer fails (a model that does not exist: not transient)."""

    def __init__(self) -> None:
        self.asked: dict[str, list[str]] = {}
        self.lock = threading.Lock()
        # the retried step answers once the test has seen it in progress (not after a sleep
        # a loaded browser may outlast)
        self.retry_seen = threading.Event()

    def __call__(self, payload: dict[str, Any]) -> Reply | Fault:
        member = who(system_of(payload))
        with self.lock:
            self.asked.setdefault(member, []).append(json.dumps(payload["messages"]))
            n = len(self.asked[member])
        if member == "commander":
            if n == 1:
                return Reply(tool_calls=[ToolCall("write_plan", json.dumps(
                    {"title": "Onboarding survey", "steps": PLAN_STEPS}))])
            return Reply(text="Planned." if n == 2 else "The user will decide on step 2.")
        time.sleep(STEP_S)
        if member == "writer" and n == 2:
            self.retry_seen.wait(60)
        if member == "researcher":
            return Reply(text="44 answers, support scored lowest.")
        if n == 1:
            return Fault.status(404)
        return Reply(text="The buddy system is liked." if n == 2 else "Summary: fix support first.")


def test_plan_view_is_live_and_its_controls_drive_the_executor(nb: NotebookPage, tmp_path: Path) -> None:
    members = Members()
    with ModelServer(members) as server:
        folder = nb.lab.root / "plan"
        folder.mkdir(exist_ok=True)
        write_agents(folder, researcher="Finds facts in the files.", writer="Writes short notes.")
        nb.open("plan/survey.ipynb", [PLAN_SETUP.format(url=server.openai_url), PLAN_CELL, "%agent plan"])
        nb.run_cell(0)
        nb.wait_cell_done(0)
        nb.run_cell(1)
        view = nb.output(1).locator(".orkas-plan")
        view.wait_for()
        step = lambda i: view.locator(f".orkas-step[data-step='{i}']")  # noqa: E731
        step(4).wait_for()  # the commander's plan, drawn as the executor holds it
        nb.page.evaluate("""(root) => {
            window.__seen = {};
            const record = () => root.querySelectorAll('.orkas-step').forEach(n => {
                const a = (window.__seen[n.dataset.step] = window.__seen[n.dataset.step] || []);
                if (a[a.length - 1] !== n.dataset.status) a.push(n.dataset.status);
            });
            record();
            new MutationObserver(record).observe(root, {subtree: true, childList: true, attributes: true});
        }""", view.element_handle())
        assert view.locator(".orkas-plan-edge").count() == 3  # 1, 2 and 3 -> 4
        assert step(3).locator(".orkas-assignee").inner_text() == "user"
        x = lambda i: step(i).bounding_box()["x"]  # noqa: E731
        assert x(1) == x(2) == x(3) < x(4)  # layered: a step right of what it waits for
        view.locator("xpath=self::*[@data-state='paused']").wait_for(timeout=60_000)
        nb.wait_cell_done(1)
        seen = nb.page.evaluate("window.__seen")
        assert seen["1"][-2:] == ["in_progress", "done"]
        assert seen["2"][-2:] == ["in_progress", "failed"]
        assert seen["3"][-1] == "blocked" and seen["4"] == ["pending"]
        assert "does not exist" in step(2).get_attribute("title")

        # The blocked step's form is selected for the user and answered in place.
        detail = view.locator(".orkas-plan-detail")
        detail.locator("select[name='style']").select_option("bar")
        detail.locator(".orkas-plan-answer").click()
        step(3).locator("xpath=self::*[@data-status='done']").wait_for()
        assert step(4).get_attribute("data-status") == "pending"  # it waits for step 2
        asked_before = {k: len(v) for k, v in members.asked.items()}

        # Retry the failed step with the keyboard only: it alone runs again, then step 4.
        step(2).focus()
        nb.page.keyboard.press("Enter")
        retry = detail.locator(".orkas-plan-retry")
        retry.focus()
        nb.page.keyboard.press("Enter")
        step(2).locator("xpath=self::*[@data-status='in_progress']").wait_for()
        OUTPUT.mkdir(parents=True, exist_ok=True)
        view.screenshot(path=str(OUTPUT.parent / "plan-view.png"))
        members.retry_seen.set()

        # The plan ends: its live view becomes the static picture a saved notebook keeps.
        snapshot = nb.output(1).locator(".orkas-plan-snapshot")
        snapshot.wait_for(timeout=60_000)
        assert snapshot.get_attribute("data-state") == "done"
        assert [snapshot.locator(f".orkas-step[data-step='{i}']").get_attribute("data-status")
                for i in (1, 2, 3, 4)] == ["done"] * 4
        assert snapshot.locator(".orkas-plan-edge").count() == 3
        asked = {k: len(v) for k, v in members.asked.items()}
        assert asked == {**asked_before, "writer": asked_before["writer"] + 2}  # step 2, then 4
        assert asked["researcher"] == 1  # step 1 never ran again
        assert "44 answers" in members.asked["writer"][-1] and "buddy" in members.asked["writer"][-1]
        assert server.rejected == []

        # %agent plan: the session's plan, finished, drawn the same way.
        nb.run_cell(2)
        nb.wait_cell_done(2)
        again = nb.output(2).locator(".orkas-plan-snapshot")
        again.wait_for()
        assert again.locator(".orkas-step[data-status='done']").count() == 4

        nb.save()
        saved = nb.saved("plan/survey.ipynb")
        outputs = saved["cells"][1]["outputs"]
        plans = [o for o in outputs if "application/vnd.orkas.plan+json" in o.get("data", {})]
        assert len(plans) == 1 and not any("application/vnd.jupyter.widget-view+json" in o.get("data", {})
                                           for o in outputs)
        nb.assert_no_console_errors()


class FailsOnce:
    """A two-step plan whose writer step fails once (not transient); the commander leaves it,
    so the plan ends failed in its cell."""

    def __init__(self) -> None:
        self.asked: dict[str, int] = {}
        self.lock = threading.Lock()
        self.retry_seen = threading.Event()  # the retry answers once the test saw it running

    def __call__(self, payload: dict[str, Any]) -> Reply | Fault:
        member = who(system_of(payload))
        with self.lock:
            n = self.asked[member] = self.asked.get(member, 0) + 1
        if member == "commander":
            if n == 1:
                return Reply(tool_calls=[ToolCall("write_plan", json.dumps({"title": "Survey", "steps": [
                    {"title": "Count the answers", "assignee": "researcher", "wait_for": []},
                    {"title": "Write the summary", "assignee": "writer"}]}))])
            return Reply(text="Planned." if n == 2 else "I leave step 2 to the user.")
        time.sleep(STEP_S)
        if member == "writer" and n == 2:
            self.retry_seen.wait(60)
        if member == "researcher":
            return Reply(text="44 answers.")
        return Fault.status(404) if n == 1 else Reply(text="Summary: fix support first.")


def test_an_earlier_cells_plan_view_follows_a_retry_from_a_later_cell(nb: NotebookPage) -> None:
    """The plan fails in its cell (a static picture); a retry from the next cell brings the
    first cell's live view back, with the step in progress, then the final picture, which is
    what the saved notebook keeps."""
    members = FailsOnce()
    with ModelServer(members) as server:
        name = f"retry-{time.monotonic_ns()}"  # a rerun starts a new conversation
        folder = nb.lab.root / name
        folder.mkdir()
        write_agents(folder, researcher="Finds facts in the files.", writer="Writes short notes.")
        nb.open(f"{name}/survey.ipynb", [PLAN_SETUP.format(url=server.openai_url), PLAN_CELL,
                                       "%agent plan retry 2"])
        nb.run_cell(0)
        nb.wait_cell_done(0)
        nb.run_cell(1)
        nb.wait_cell_done(1, timeout=90_000)
        snapshot = nb.output(1).locator(".orkas-plan-snapshot")
        snapshot.wait_for(timeout=60_000)
        assert snapshot.get_attribute("data-state") == "failed"
        nb.run_cell(2)
        live = nb.output(1).locator(".orkas-plan")
        live.locator(".orkas-step[data-step='2'][data-status='in_progress']").wait_for(timeout=30_000)
        members.retry_seen.set()
        done = nb.output(1).locator(".orkas-plan-snapshot[data-state='done']")
        done.wait_for(timeout=60_000)
        assert done.locator(".orkas-step[data-status='done']").count() == 2
        assert members.asked == {"commander": 3, "researcher": 1, "writer": 2}
        nb.save()
        outputs = nb.saved(f"{name}/survey.ipynb")["cells"][1]["outputs"]
        plans = [o["data"]["application/vnd.orkas.plan+json"] for o in outputs
                 if "application/vnd.orkas.plan+json" in o.get("data", {})]
        assert [p["state"] for p in plans] == ["done"]
        assert not any("application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in outputs)
        nb.assert_no_console_errors()
