"""The plan executor's rules one by one, with a runner the test scripts (real plan files)."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from orkas_nb.harness.cancellation import AbortSignal
from orkas_nb.harness.tool_protocol import ToolContext
from orkas_nb.team.plan import PlanStep, StepForm
from orkas_nb.team.plan_executor import PlanActionError, PlanExecutor, PlanRejected
from orkas_nb.team.plan_runner import StepOutcome
from orkas_nb.team.plan_store import PlanStore
from orkas_nb.team.plan_tools import AskUser, commander_plan_tools


class Runner:
    """Each agent run takes the next scripted outcome of its step (default: done)."""

    def __init__(self, **outcomes: list[StepOutcome]) -> None:
        self.outcomes = outcomes
        self.calls: list[tuple[str, int, str]] = []
        self.gate: asyncio.Event | None = None
        self.stopped: list[str] = []

    async def run_agent(self, step: PlanStep, text: str) -> StepOutcome:
        self.calls.append(("agent", step.index, text))
        if self.gate is not None:
            await self.gate.wait()
        script = self.outcomes.get(f"s{step.index}")
        return script.pop(0) if script else StepOutcome(status="done", summary=f"out {step.index}")

    async def resume_agent(self, step: PlanStep, answer: dict[str, Any]) -> StepOutcome:
        self.calls.append(("resume", step.index, str(answer)))
        return StepOutcome(status="done", summary=f"resumed with {answer}")

    async def run_commander(self, step: PlanStep | None, text: str) -> StepOutcome:
        self.calls.append(("commander", step.index if step else 0, text))
        return StepOutcome(status="done", summary="decided")

    def post_form(self, step: PlanStep, form: StepForm) -> None:
        self.calls.append(("form", step.index, form.prompt))

    def stop(self, reason: str) -> None:
        self.stopped.append(reason)

    def clear_stop(self) -> None: ...


def executor(path: Path, runner: Runner, **kw: Any) -> PlanExecutor:
    return PlanExecutor(PlanStore(path), runner, agents=["a", "b"], **kw)


def chain(n: int, **extra: Any) -> list[dict[str, Any]]:
    return [{"title": f"s{i}", "assignee": "a", **extra} for i in range(1, n + 1)]


CTX = ToolContext(workspace=Path("."), abort=AbortSignal())


async def test_a_rejected_plan_is_an_observation_and_changes_nothing(tmp_path: Path) -> None:
    ex = executor(tmp_path / "p.jsonl", Runner())
    write, revise = commander_plan_tools(ex)[:2]
    ok = await write.execute({"steps": chain(2)}, CTX)
    assert not ok.is_error and "2 steps" in ok.text
    before = ex.plan
    bad = await write.execute({"steps": [
        {"title": "x", "assignee": "zed"},
        {"title": "y", "assignee": "a", "wait_for": [3]},
        {"title": "z", "assignee": "a", "wait_for": [], "input": "{{step_1.output_summary}}"}]}, CTX)
    assert bad.is_error and "no assignee called 'zed'" in bad.text
    assert "not an earlier step" in bad.text and "does not wait for" in bad.text
    assert ex.plan == before
    forged = await write.execute({"steps": [{"title": "x", "assignee": "a", "status": "done"}]}, CTX)
    assert forged.is_error and ex.plan == before  # a model cannot write a runtime field
    again = await revise.execute({"steps": [{"index": 5, "title": "z", "assignee": "a"}]}, CTX)
    assert again.is_error and "next index, 3" in again.text and ex.plan == before


async def test_revise_changes_only_steps_not_started(tmp_path: Path) -> None:
    runner = Runner()
    runner.gate = asyncio.Event()
    ex = executor(tmp_path / "p.jsonl", runner)
    ex.write(chain(3))
    ex.resume()
    await asyncio.sleep(0)
    with pytest.raises(PlanRejected, match="step 1 is in_progress"):
        ex.revise([{"index": 1, "title": "new", "assignee": "b"}])
    plan = ex.revise([{"index": 2, "title": "two", "assignee": "b"},
                      {"title": "four", "assignee": "a", "wait_for": [1]}], remove=[3])
    assert [(s.index, s.title, s.status) for s in plan.steps] == [
        (1, "s1", "in_progress"), (2, "two", "pending"), (3, "s3", "skipped"), (4, "four", "pending")]
    assert plan.steps[2].failure_reason == "removed from the plan"
    runner.gate.set()
    await ex.wait()
    assert ex.plan.state == "done" and [c[1] for c in runner.calls] == [1, 2, 4]
    assert ex.plan.steps[1].assignee == "b"


async def test_transient_failures_retry_within_the_budget_then_the_policy_decides(tmp_path: Path) -> None:
    flaky = [StepOutcome(status="failed", reason="reset", transient=True) for _ in range(3)]
    runner = Runner(s1=flaky)
    ex = executor(tmp_path / "p.jsonl", runner, transient_retries=2)
    ex.write(chain(2, on_failure="continue"))
    await ex.run()
    s1, s2 = ex.plan.steps
    assert s1.attempts == 3 and s1.transient_failures == 2  # two retries, then it is a failure
    assert s1.status == "skipped" and s1.failure_reason == "reset"
    assert s2.status == "done" and ex.plan.state == "done"


async def test_a_stop_fails_running_steps_without_applying_on_failure(tmp_path: Path) -> None:
    runner = Runner()
    runner.gate = asyncio.Event()
    ex = executor(tmp_path / "p.jsonl", runner)
    ex.write(chain(3, on_failure="abort_plan"))
    ex.resume()
    await asyncio.sleep(0)
    ex.stop("stopped by the user")
    runner.gate.set()
    await ex.wait()
    plan = ex.plan
    assert [s.status for s in plan.steps] == ["failed", "pending", "pending"]  # not aborted
    assert plan.steps[0].failure_reason == "stopped by the user" and plan.state == "paused"
    assert runner.stopped == ["stopped by the user"]
    await ex.run()  # resume: the stopped step does not run again by itself
    assert len(runner.calls) == 1
    ex.retry(1)
    await ex.wait()
    assert ex.plan.state == "done" and [c[1] for c in runner.calls] == [1, 1, 2, 3]


async def test_max_parallel_dispatches_independent_steps_together_never_twice(tmp_path: Path) -> None:
    runner = Runner()
    runner.gate = asyncio.Event()
    ex = executor(tmp_path / "p.jsonl", runner, max_parallel=2)
    ex.write([{"title": f"s{i}", "assignee": "a", "wait_for": []} for i in range(1, 5)])
    ex.resume()
    await asyncio.sleep(0)
    assert [c[1] for c in runner.calls] == [1, 2]
    ex.resume()  # a second resume while running dispatches nothing more
    await asyncio.sleep(0)
    assert [c[1] for c in runner.calls] == [1, 2]
    runner.gate.set()
    await ex.wait()
    assert sorted(c[1] for c in runner.calls) == [1, 2, 3, 4] and ex.plan.state == "done"


async def test_ask_commander_wakes_the_commander_whose_tools_decide(tmp_path: Path) -> None:
    runner = Runner(s1=[StepOutcome(status="failed", reason="no data")])
    ex = executor(tmp_path / "p.jsonl", runner)
    tools = {t.name: t for t in commander_plan_tools(ex)}

    async def commander(step: PlanStep | None, text: str) -> StepOutcome:
        runner.calls.append(("commander", 0, text))
        out = await tools["skip_step"].execute({"index": 1, "reason": "not needed"}, CTX)
        assert not out.is_error
        return StepOutcome(status="done")

    runner.run_commander = commander  # type: ignore[method-assign]
    ex.write([{"title": "s1", "assignee": "a"},
              {"title": "s2", "assignee": "a", "input": "got: {{step_1.output_summary}}"}])
    await ex.run()
    woken = [c for c in runner.calls if c[0] == "commander"]
    assert len(woken) == 1 and "step 1" in woken[0][2] and "no data" in woken[0][2]
    assert ex.plan.steps[0].status == "skipped" and ex.plan.state == "done"
    assert "got: (step 1 skipped: not needed)" in runner.calls[-1][2]


async def test_an_answer_from_another_thread_resumes_the_step_on_the_plans_loop(tmp_path: Path) -> None:
    runner = Runner()
    ex = executor(tmp_path / "p.jsonl", runner)
    ask = AskUser(ex, "a")

    outputs = []

    async def asking(step: PlanStep, text: str) -> StepOutcome:
        outputs.append(await ask.execute(
            {"prompt": "Which?", "fields": [{"name": "x"}]},
            ToolContext(workspace=Path("."), abort=AbortSignal(), call_id="c1")))
        return StepOutcome(status="done", summary="")

    runner.run_agent = asking  # type: ignore[method-assign]
    ex.write(chain(1))
    await ex.run()
    # the call stays open: its result is a placeholder until the user's answer takes its place
    [out] = outputs
    assert out.awaiting == "user" and not out.is_error and "waiting for the user" in out.text
    assert ex.plan.steps[0].status == "blocked" and ex.plan.state == "paused"
    with pytest.raises(PlanActionError, match="please fill x"):
        ex.answer(1, {})
    assert ex.plan.steps[0].answer is None  # a refused answer saves nothing
    clicked = threading.Thread(target=ex.act, args=("answer", 1, {"x": "42"}))  # a widget click
    clicked.start()
    clicked.join()
    deadline = time.monotonic() + 60  # waits for the resumed run, however slow the machine
    while not (ex.idle and ex.plan.state == "done") and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    assert ex.plan.state == "done" and runner.calls == [("resume", 1, "{'x': '42'}")]
    reloaded = executor(tmp_path / "p2.jsonl", Runner())  # another file: nothing shared
    assert reloaded.plan is None


def test_the_store_survives_a_torn_line_and_refuses_nothing_silently(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    ex = executor(path, Runner())
    ex.write(chain(2))
    ex.close()
    with path.open("ab") as f:
        f.write(b'{"op": "step", "index": 1, "set": {"status": "do')  # kill -9 mid-write
    store = PlanStore(path)
    assert store.plan is not None and store.plan.steps[0].status == "pending"
    assert any("torn" in n for n in store.repair_notes)
    store.close()
    with path.open("ab") as f:
        f.write(b'{"op": "step", "index": 9, "set": {"status": "done"}}\n')
    store = PlanStore(path)
    assert any("does not apply" in n for n in store.repair_notes) and len(store.plan.steps) == 2
    store.close()


async def test_a_new_plan_is_refused_while_one_is_under_way(tmp_path: Path) -> None:
    runner = Runner()
    runner.gate = asyncio.Event()
    ex = executor(tmp_path / "p.jsonl", runner)
    ex.write(chain(2))
    ex.write(chain(3))  # not started yet: replaced
    ex.resume()
    await asyncio.sleep(0)
    with pytest.raises(PlanRejected, match="still running"):
        ex.write(chain(1))
    runner.gate.set()
    await ex.wait()
    assert len(ex.plan.steps) == 3
    assert ex.write(chain(1)).state == "paused"  # finished: a new plan may start
