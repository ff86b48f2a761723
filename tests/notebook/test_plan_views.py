"""The plan's views follow the executor and ask it, never the other way round: the picture
(seed 001: 1-based, in_progress, wait_for absent = the previous step), the controls' checks, the
lab widget's trait and messages, the built-in widgets fallback, the text and the static output."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from orkas_nb.notebook.views.lab.plan_view import PlanWidget
from orkas_nb.notebook.views.plan_control import PlanControl
from orkas_nb.notebook.views.plan_display import PlanDisplay
from orkas_nb.notebook.views.plan_picture import PLAN_MIME, derive_state, picture, plan_text
from orkas_nb.notebook.views.plan_widgets import PlanBox

from .plan_kit import ScriptedExecutor, diamond


def test_the_picture_follows_the_seed() -> None:
    p = picture(diamond())
    assert [s.index for s in p.steps] == [1, 2, 3, 4, 5]
    assert p.step(5).wait_for == [4]  # absent: the previous step
    assert p.step(1).wait_for == []  # []: none
    assert picture({"steps": [{"index": 1, "title": "a"}, {"index": 2, "title": "b"}]}).step(2).wait_for == [1]
    # with a gap before it (a revised plan), the step before in index order
    assert picture({"steps": [{"index": 1, "title": "a"}, {"index": 4, "title": "b"}]}).step(4).wait_for == [1]
    old = picture({"steps": [{"index": 1, "title": "a", "status": "running"}]})
    assert old.step(1).status == "in_progress"
    with pytest.raises(ValueError):
        picture({"steps": [{"index": 0, "title": "zero-based"}]})


def test_the_state_is_the_executors_else_read_off_the_steps() -> None:
    data = diamond()
    assert picture(data).state == "running"
    del data["state"]
    for s in data["steps"][:3]:
        s["status"] = "done"
    data["steps"][3]["status"] = "failed"
    p = picture(data)
    assert p.state == "paused"  # step 5 is pending with nothing ready or running
    data["steps"][4]["status"] = "skipped"
    assert derive_state(picture(data).steps) == "failed"
    data["steps"][3]["status"] = "in_progress"
    assert derive_state(picture(data).steps) == "running"


def test_controls_go_to_the_executor_and_its_refusal_is_shown() -> None:
    ex = ScriptedExecutor(diamond())
    control = PlanControl(ex)
    errors: list[str] = []
    act = lambda *a, **k: control.act(*a, on_error=errors.append, **k)  # noqa: E731
    assert act("explode", 1) == "unknown action 'explode'"
    assert act("retry") == "retry needs a step"
    assert ex.calls == []
    assert act("answer", 3, {"style": "bar"}) is None
    assert act("approve", 2) is None
    assert act("retry", 1) is None
    assert act("resume") is None and act("stop") is None
    assert ex.calls == [("answer", 3, {"style": "bar"}), ("approve", 2, {}), ("retry", 1, {}),
                        ("resume",), ("stop",)]
    ex.refuse = "step 5 waits for step 4"
    assert act("skip", 5) == "step 5 waits for step 4"
    assert errors == ["unknown action 'explode'", "retry needs a step", "step 5 waits for step 4"]


def test_an_async_executor_method_runs_on_the_loop_and_its_error_is_shown() -> None:
    class Async(ScriptedExecutor):
        async def act(self, action: str, index: int, values: Any = None) -> None:  # type: ignore[override]
            await asyncio.sleep(0)
            self.calls.append((action, index))
            raise RuntimeError("the agent is gone")

    async def main() -> list[str]:
        data = diamond()
        data["steps"][0]["status"] = "failed"
        ex = Async(data)
        control = PlanControl(ex)
        errors: list[str] = []
        assert control.act("retry", 1, on_error=errors.append) is None
        await control.settle()
        assert ex.calls == [("retry", 1)]
        return errors

    assert asyncio.run(main()) == ["retry failed: the agent is gone"]


def _lab(ex: ScriptedExecutor) -> tuple[PlanWidget, list[dict[str, Any]]]:
    w = PlanWidget(PlanControl(ex))
    sent: list[dict[str, Any]] = []
    w.send = lambda content, buffers=None: sent.append(content)  # type: ignore[method-assign]
    return w, sent


def test_the_lab_widget_draws_the_executors_state_live() -> None:
    ex = ScriptedExecutor(diamond())
    w, _ = _lab(ex)
    assert [s["wait_for"] for s in w.plan["steps"]] == [[], [], [], [1, 2, 3], [4]]
    ex.set(1, status="in_progress")
    assert w.plan["steps"][0]["status"] == "in_progress"
    ex.set(1, status="done", output_summary="A is 42")
    assert w.plan["steps"][0]["output_summary"] == "A is 42"
    ex.set_state("paused")
    assert w.plan["state"] == "paused"
    assert "#1 [done] Research A" in w._repr_mimebundle_()["text/plain"]


def test_the_lab_widget_passes_view_messages_to_the_executor() -> None:
    ex = ScriptedExecutor(diamond())
    w, sent = _lab(ex)
    w._on_view_message(w, {"type": "plan_action", "action": "explode", "step": 1}, [])
    assert sent[-1]["type"] == "error" and "malformed" in sent[-1]["message"]
    w._on_view_message(w, {"type": "plan_action", "action": "skip", "step": 0}, [])
    assert "malformed" in sent[-1]["message"]  # 1-based: there is no step 0
    w._on_view_message(w, {"type": "stop"}, [])
    assert "does not take 'stop'" in sent[-1]["message"]
    assert ex.calls == []
    w._on_view_message(w, {"type": "plan_action", "action": "answer", "step": 3,
                           "values": {"style": "line"}}, [])
    w._on_view_message(w, {"type": "plan_action", "action": "stop"}, [])
    assert ex.calls == [("answer", 3, {"style": "line"}), ("stop",)]
    ex.refuse = "step 3 is not waiting for an answer"
    w._on_view_message(w, {"type": "plan_action", "action": "answer", "step": 3}, [])
    assert sent[-1] == {"type": "error", "message": "step 3 is not waiting for an answer"}


def test_the_fallback_offers_what_the_plan_needs_and_asks_the_executor() -> None:
    data = diamond()
    data["steps"][0]["status"] = "failed"
    data["steps"][0]["failure_reason"] = "no data"
    data["steps"][2]["status"] = "blocked"
    data["state"] = "paused"
    ex = ScriptedExecutor(data)
    box = PlanBox(PlanControl(ex))
    assert 'data-step="4" data-status="pending"' in box.graph.value
    buttons = {b.description: b for row in box.controls.children for b in _walk(row)
               if hasattr(b, "on_click")}
    assert set(buttons) == {"Send answer", "Retry", "Skip", "Resume"}
    ex.refuse = "step 3: please fill style"
    buttons["Send answer"].click()
    assert "please fill style" in box.error.value and ex.calls == []
    ex.refuse = None
    next(c for row in box.controls.children for c in _walk(row)
         if getattr(c, "description", "") == "style").value = "bar"
    buttons["Send answer"].click()
    buttons["Retry"].click()
    buttons["Resume"].click()
    assert ex.calls == [("answer", 3, {"style": "bar"}), ("retry", 1, {}), ("resume",)]
    ex.set(1, status="in_progress", failure_reason="")
    assert 'data-step="1" data-status="in_progress"' in box.graph.value


def _walk(widget: Any) -> list[Any]:
    return [widget, *[w for c in getattr(widget, "children", ()) for w in _walk(c)]]


class _Slot:
    def __init__(self) -> None:
        self.shown: list[dict[str, Any]] = []
        self.finals: list[dict[str, Any]] = []

    def update(self, bundle: dict[str, Any]) -> None:
        self.shown.append(bundle)

    def final(self, bundle: dict[str, Any]) -> None:
        self.finals.append(bundle)


@pytest.mark.parametrize("kind", ["lab", "widgets", "text"])
def test_an_ended_plan_leaves_a_static_picture_and_lets_go(kind: str) -> None:
    ex = ScriptedExecutor(diamond())
    slot = _Slot()
    shown = PlanDisplay(PlanControl(ex), slot, kind)  # type: ignore[arg-type]
    assert slot.shown and "Diamond" in slot.shown[-1]["text/plain"]
    widget = shown.widget
    for i in range(1, 6):
        ex.set(i, status="done", output_summary=f"out {i}")
    ex.set_state("done")
    (final,) = slot.finals
    assert final[PLAN_MIME]["state"] == "done"
    assert [s["status"] for s in final[PLAN_MIME]["steps"]] == ["done"] * 5
    assert final["text/plain"] == plan_text(picture(ex.snapshot()))
    if widget is not None:
        assert widget.comm is None and shown.widget is None  # the saved notebook needs no widget state
    # another plan in the conversation: this output keeps its own plan's picture and lets go
    ex.plan = {**diamond(), "id": "p2", "title": "Next"}
    ex.set_state("running")
    assert slot.finals == [final] and ex.listeners == []


@pytest.mark.parametrize("kind", ["lab", "widgets", "text"])
def test_an_ended_plan_that_moves_again_is_followed_to_its_new_end(kind: str) -> None:
    """A failed plan retried (from any cell or view) is live again in every output that showed
    it, and its picture becomes the new final one: what a saved notebook keeps is the end."""
    ex = ScriptedExecutor(diamond())
    slot = _Slot()
    shown = PlanDisplay(PlanControl(ex), slot, kind)  # type: ignore[arg-type]
    for i in (1, 2, 3, 4):
        ex.set(i, status="done")
    ex.plan["state"] = "failed"
    ex.set(5, status="failed", failure_reason="the site is down")
    assert [f[PLAN_MIME]["state"] for f in slot.finals] == ["failed"]
    live_before = len(slot.shown)
    ex.plan["state"] = "running"  # retried: the executor changes both at once
    ex.set(5, status="in_progress", failure_reason="")
    assert shown.final is None
    assert len(slot.shown) > live_before  # the live view is back in the slot
    if kind == "text":
        assert "[in progress] Publish" in slot.shown[-1]["text/plain"]
    else:
        assert shown.widget is not None and shown.widget.comm is not None
        assert "[in progress] Publish" in shown.widget._repr_mimebundle_()["text/plain"]
        if kind == "lab":
            assert shown.widget.plan["steps"][4]["status"] == "in_progress"
    ex.plan["state"] = "done"
    ex.set(5, status="done", output_summary="published")
    assert [f[PLAN_MIME]["state"] for f in slot.finals] == ["failed", "done"]
    assert slot.finals[-1][PLAN_MIME]["steps"][4]["output_summary"] == "published"
    assert shown.widget is None


def test_a_steps_form_is_the_team_models_own() -> None:
    from orkas_nb.team.plan import FormField, StepForm

    form = picture(diamond()).step(3).form
    assert type(form) is StepForm and type(form.fields[0]) is FormField
    with pytest.raises(ValueError, match="fields"):  # the team's rules, not a looser copy
        picture({"steps": [{"index": 1, "title": "a", "form": {"prompt": "?", "fields": [{"name": "bad name"}]}}]})


def test_the_text_rendering_says_what_the_user_must_do() -> None:
    data = diamond()
    data["steps"][0].update(status="done", output_summary="A found 3 sources\nmore")
    data["steps"][1].update(status="failed", failure_reason="interrupted")
    data["steps"][2]["status"] = "blocked"
    text = plan_text(picture(data))
    assert text.splitlines()[0] == "Plan: Diamond (running; 1 done, 1 failed, 1 needs you, 2 pending)"
    assert "  #1 [done] Research A (researcher)\n      → A found 3 sources" in text
    assert "      ✗ interrupted" in text
    assert "      ? Which style? (style)" in text
    assert "  #5 [pending] Publish (commander)  after #4" in text


def test_a_form_without_fields_is_an_approval() -> None:
    data = diamond()
    data["steps"][2].update(status="blocked", form={"prompt": "Publish the draft?", "fields": []})
    data["state"] = "paused"
    ex = ScriptedExecutor(data)
    box = PlanBox(PlanControl(ex))
    buttons = {b.description: b for row in box.controls.children for b in _walk(row)
               if hasattr(b, "on_click")}
    assert set(buttons) == {"Approve", "Resume"}
    buttons["Approve"].click()
    assert ex.calls == [("approve", 3, {})]
    assert "? Publish the draft? (approve)" in plan_text(picture(data))


class _Team:
    def __init__(self) -> None:
        self.listeners: list[Any] = []

    def subscribe(self, listener: Any) -> Any:
        self.listeners.append(listener)
        return lambda: self.listeners.remove(listener)

    def emit(self, event: Any) -> None:
        for listener in list(self.listeners):
            listener(event)


def test_a_cells_run_view_gets_the_member_runs_of_the_other_cells_teams() -> None:
    from orkas_nb.core.events import MemberEvent, TextDelta
    from orkas_nb.notebook.cell.plan_cell import step_events

    ex = ScriptedExecutor(diamond())
    first, second = _Team(), _Team()
    events = step_events(ex)
    assert step_events(ex) is events  # one per executor: it lasts with the conversation
    events.watch(first)
    events.watch(first)  # a team is watched once
    events.watch(second)
    drawn: list[Any] = []
    stop = events.listen(drawn.append, second)
    older = MemberEvent(member="researcher", task_id="t1", event=TextDelta(text="counting"))
    own = MemberEvent(member="writer", task_id="t2", event=TextDelta(text="writing"))
    first.emit(older)  # a step the first cell's team still runs
    second.emit(own)  # this cell's own team: drawn by the cell itself
    first.emit(TextDelta(text="an older commander turn"))  # would read as this cell's commander
    assert drawn == [older]
    events.listen(lambda e: 1 / 0, second)  # a broken view does not break the member's run
    first.emit(older)
    assert len(drawn) == 2
    stop()
    first.emit(older)
    assert len(drawn) == 2
