"""A team run's lanes in every view, from the events of a real team run (scripted models).

The same recorded run feeds the text view, the built-in widgets, the lab run view's wire and
the saved transcript: each visible member run is its own lane (member, status, tokens, cost at
the member's own price), two parallel lanes hold only their own messages, an anonymous worker
never shows, the commander's loop is cut where the lanes are, and a floor holder's
``<handback />`` never shows raw.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from orkas_nb import Agent
from orkas_nb.agent.team import build_team
from orkas_nb.core.events import Done, MemberEvent, RunResult, TextDelta, UsageUpdate
from orkas_nb.core.messages import Usage
from orkas_nb.notebook.views.lab.run_view import LabRenderer
from orkas_nb.notebook.views.lanes import HANDED_BACK, LaneTracker
from orkas_nb.notebook.views.renderer import RunInfo
from orkas_nb.notebook.views.text import TextRenderer
from orkas_nb.notebook.views.transcript import TRANSCRIPT_MIME, Transcript, TranscriptBuilder
from orkas_nb.notebook.views.widgets.live import LiveRenderer
from orkas_nb.providers.catalog import RunningCost, cost_of
from orkas_nb.testing import call, reply
from tests.team.teamkit import Router, Slot, write_agents

COMMANDER_MODEL, MEMBER_MODEL = "gpt-4o-mini", "gpt-4o"
R_USAGE, W_USAGE, C_USAGE = Usage(input_tokens=1000, output_tokens=100), \
    Usage(input_tokens=2000, output_tokens=50), Usage(input_tokens=500, output_tokens=20)


async def team_run(workspace: Path, router: Router, prompt: str = "go",
                   price: tuple[str, str] | None = None) -> tuple[list[Any], Transcript]:
    """The run's events (the final ``done`` last) and its saved transcript, built as a cell
    builds it: live, reading the commander's session as the run goes. ``price``: (member,
    model) the member's usage events name, as if its agent file named that model."""
    write_agents(workspace, researcher="Finds facts.", writer="Writes.")
    model = router.model()
    model.default_model = COMMANDER_MODEL
    agent = Agent(model, workspace=workspace)
    team = build_team(agent, user_dir=workspace / "none")
    before = len(agent.session.messages)
    builder = TranscriptBuilder(lambda: agent.session.messages[before:], cost=RunningCost())
    builder.start(RunInfo(agent="commander", model=COMMANDER_MODEL))
    events = []
    async for e in team.run(prompt):
        if price is not None:
            e = priced_as([e], *price)[0]
        events.append(e)
        if isinstance(e, Done):
            builder.finish(e.result)
        else:
            builder.render(e)
    team.close()
    return events, builder.build(events[-1].result)


def priced_as(events: list[Any], member: str, model: str) -> list[Any]:
    """The run as if ``member``'s agent file named ``model``: its usage events say so."""
    out = []
    for e in events:
        if isinstance(e, MemberEvent) and e.member == member and isinstance(e.event, UsageUpdate):
            e = e.model_copy(update={"event": e.event.model_copy(update={"model": model})})
        out.append(e)
    return out


def play(view: Any, events: list[Any], info: RunInfo | None = None) -> Any:
    view.start(info or RunInfo(agent="commander", model=COMMANDER_MODEL))
    for e in events:
        if isinstance(e, Done):
            view.finish(e.result)
        else:
            view.render(e)
    return view


@pytest.fixture
async def parallel(workspace: Path) -> tuple[list[Any], Transcript]:
    # each member's answer streams once both were asked: a 28 ms stream no longer has to
    # outrun the second dispatch's start on a loaded machine (run in turn, neither would stream)
    asked, both = [], asyncio.Event()

    def member(text: str, usage: Usage) -> Any:
        def answer(request: Any) -> Any:
            asked.append(text)
            if len(asked) == 2:
                both.set()
            return reply(text, chunk_chars=2, delay_s=0.004, usage=usage, wait=both)
        return answer

    router = Router(
        commander=[reply("Asking both.", call("dispatch_to", agent="researcher", task="A"),
                         call("dispatch_to", agent="writer", task="B"),
                         call("run_worker", task="secret"),
                         call("run_worker", task="check", name="checker"), usage=C_USAGE),
                   reply("Both reported.", usage=C_USAGE)],
        researcher=member("found\nthe fact", R_USAGE), writer=member("wrote it", W_USAGE),
        worker=lambda request: reply("hidden worker text" if "secret" in request.messages[-1].text
                                     else "checked", usage=C_USAGE))
    # a hang here: the dispatches ran in turn
    return await asyncio.wait_for(team_run(workspace, router, price=("researcher", MEMBER_MODEL)),
                                  120)


def test_the_lanes_of_two_parallel_dispatches_stream_at_once(parallel) -> None:
    events, _ = parallel
    members = [(e.member, e.event.type) for e in events if isinstance(e, MemberEvent)]
    first_writer = next(i for i, (m, _) in enumerate(members) if m == "writer")
    researcher_done = members.index(("researcher", "done"))
    assert first_writer < researcher_done  # both lanes were open together: the run is parallel


def test_the_saved_transcript_keeps_each_lane_in_place_with_its_own_messages(parallel) -> None:
    _, t = parallel
    assert [(x.member, x.kind, x.status) for x in t.lanes] == [
        ("researcher", "dispatch", "done"), ("writer", "dispatch", "done"),
        ("checker", "worker", "done")]  # the anonymous worker is not saved
    by = {x.member: x for x in t.lanes}
    assert [m.text for m in by["researcher"].messages] == ["found\nthe fact"]
    assert [m.text for m in by["writer"].messages] == ["wrote it"]
    # the commander's loop is cut at the dispatch: its first answer, the lanes, then the rest
    assert all(x.after == 2 for x in t.lanes)
    text = t.to_text()
    # the anonymous worker has no lane (its report is the commander's tool result, as any tool's)
    assert "[worker-" not in text and "worker-1 ·" not in t.to_markdown()
    order = [text.index(s) for s in ("Asking both.", "[researcher] found", "[researcher] the fact",
                                     "[writer] wrote it", "[checker] checked", "Both reported.")]
    assert order == sorted(order), text
    assert "[researcher] [dispatch · done · 1 model requests · 1,000 in / 100 out tokens · $0.0035]" in text
    # each lane at its member's price; the total is the commander's plus each lane's
    assert by["researcher"].cost_usd == pytest.approx(cost_of(R_USAGE, MEMBER_MODEL))
    assert by["writer"].cost_usd == pytest.approx(cost_of(W_USAGE, COMMANDER_MODEL))
    commander = 2 * cost_of(C_USAGE, COMMANDER_MODEL)
    workers = 2 * cost_of(C_USAGE, COMMANDER_MODEL)
    assert t.cost_usd == pytest.approx(commander + workers + by["researcher"].cost_usd
                                       + by["writer"].cost_usd)
    # saved and reopened: the same lanes in the same order, the same reading
    bundle = json.loads(json.dumps(t.bundle()))
    again = Transcript.model_validate(bundle[TRANSCRIPT_MIME])
    assert [x.member for x in again.lanes] == ["researcher", "writer", "checker"]
    assert again.to_text() == bundle["text/plain"] and again.to_markdown() == bundle["text/markdown"]
    assert "<details><summary>researcher · dispatch · done" in bundle["text/markdown"]


def test_the_text_view_prices_each_lane_at_its_members_model(parallel) -> None:
    events, _ = parallel
    view = play(TextRenderer(Slot(), interval=0, cost=RunningCost()), events)
    lines = view.text.splitlines()
    assert "[researcher] [done · 1 model requests · 1,000 in / 100 out tokens · $0.0035]" in lines
    writer = f"${cost_of(W_USAGE, COMMANDER_MODEL):.4f}"
    assert f"[writer] [done · 1 model requests · 2,000 in / 50 out tokens · {writer}]" in lines
    total = view.lanes.total_cost()
    assert lines[-1].startswith("[done") and f"${total:.4f}" in lines[-1]
    assert "hidden worker text" not in view.text


def test_the_widget_view_draws_one_collapsible_lane_per_member_run(parallel) -> None:
    events, _ = parallel
    view = LiveRenderer(None, show=False, cost=RunningCost(), interval_s=0)
    view.start(RunInfo(agent="commander", model=COMMANDER_MODEL))
    seen_running_together = False
    for e in events[:-1]:
        view.render(e)
        running = [b for b in view.lanes.boxes.values() if b.lane.status == "running"]
        seen_running_together |= len(running) >= 2
    view._flush_text()
    assert seen_running_together
    kinds = [next(c for c in w._dom_classes if c.startswith("orkas-")) for w in view.body.children]
    # the commander's first words, its cards, a lane per visible member run, its last words
    assert kinds.count("orkas-lane") == 3 and kinds[0] == "orkas-text" and kinds[-1] == "orkas-text"
    assert kinds.index("orkas-lane") > kinds.index("orkas-tool")
    boxes = {b.lane.member: b for b in view.lanes.boxes.values()}
    assert set(boxes) == {"researcher", "writer", "checker"}

    def markdown(box: Any) -> str:
        return "".join(o["data"]["text/markdown"] for c in box.body.children
                       if "orkas-text" in c._dom_classes for o in c.outputs)

    assert markdown(boxes["researcher"]) == "found\nthe fact"
    assert markdown(boxes["writer"]) == "wrote it"
    assert boxes["researcher"].fold.titles == (
        "researcher · dispatch · done · 1,000 in / 100 out tokens · $0.0035",)
    assert "orkas-lane-done" in boxes["writer"].fold._dom_classes
    view.finish(events[-1].result)
    assert f"${view.lanes.tracker.total_cost():.4f}" in view.status_text()


def test_the_lab_view_sends_lanes_and_tags_each_lanes_items(parallel) -> None:
    events, _ = parallel
    view = LabRenderer(None, show=False, cost=RunningCost())
    sent: list[dict[str, Any]] = []
    view.widget.send = lambda content, buffers=None: sent.append(content)  # type: ignore[method-assign]
    play(view, events)
    items = [i for m in sent if m["type"] == "items" for i in m["items"]]
    lanes = [i for i in items if i["k"] == "lane"]
    assert {i["member"] for i in lanes} == {"researcher", "writer", "checker"}
    last = {i["member"]: i for i in lanes}
    assert last["researcher"]["status"] == "done" and last["researcher"]["tokens_in"] == 1000
    assert last["researcher"]["cost"] == pytest.approx(cost_of(R_USAGE, MEMBER_MODEL))
    task = {i["member"]: i["lane"] for i in lanes}
    texts: dict[str, str] = {}
    for i in items:
        if i["k"] == "text" and "lane" in i:
            texts[i["lane"]] = texts.get(i["lane"], "") + i["text"]
    assert texts[task["researcher"]] == "found\nthe fact" and texts[task["writer"]] == "wrote it"
    assert not [i for i in lanes if i["member"].startswith("worker-")]  # the anonymous worker
    # a lane opens before its own items; the run's own "done" comes once, at the end
    first = {i["lane"]: n for n, i in reversed(list(enumerate(items))) if "lane" in i}
    opened = {i["lane"]: n for n, i in reversed(list(enumerate(items))) if i["k"] == "lane"}
    assert all(opened[t] <= first[t] for t in first)
    assert [i["k"] for i in items].count("done") == 1 and items[-1]["k"] == "done"
    assert view.widget.cost == pytest.approx(view.lanes.total_cost())


async def test_a_floor_holders_handback_never_shows_raw(workspace: Path) -> None:
    router = Router(commander=[reply("", call("hand_off_to", agent="researcher")),
                               reply("Welcome back.")],
                    researcher=[reply("Lesson 1.\n<handback />\n", chunk_chars=3)])
    events, transcript = await team_run(workspace, router)
    text = play(TextRenderer(Slot(), interval=0), events).text
    live = LiveRenderer(None, show=False, interval_s=0)
    play(live, events[:-1])
    live._flush_text()
    lab = LabRenderer(None, show=False)
    sent: list[dict[str, Any]] = []
    lab.widget.send = lambda content, buffers=None: sent.append(content)  # type: ignore[method-assign]
    play(lab, events)
    (lane,) = transcript.lanes
    assert lane.kind == "floor" and lane.handed_back and lane.messages[0].text == "Lesson 1."
    markdown = transcript.to_markdown()
    lane_md = markdown[markdown.index("<details><summary>researcher"):]
    lane_md = lane_md[:lane_md.index("</details>")]
    in_lanes = {
        "transcript text": "\n".join(x for x in transcript.to_text().splitlines()
                                     if x.startswith("[researcher]")),
        "transcript markdown": lane_md,
        "text view": "\n".join(x for x in text.splitlines() if x.startswith("[researcher]")),
        "lab items": json.dumps([i for m in sent for i in m.get("items", []) if "lane" in i]),
    }
    for where, shown in in_lanes.items():
        assert "<handback" not in shown, where
        assert HANDED_BACK in shown or '"handed_back": true' in shown, where  # the lab says it in TS
    box = next(iter(live.lanes.boxes.values()))
    assert any(HANDED_BACK in getattr(c, "value", "") for c in box.body.children)
    assert "<handback" not in json.dumps([c.outputs for c in box.body.children if hasattr(c, "outputs")])
    assert "Lesson 1." in json.dumps([c.outputs for c in box.body.children if hasattr(c, "outputs")])


def test_a_handback_in_prose_or_code_stays_in_the_lane() -> None:
    tracker = LaneTracker()
    texts = {"prose": "Write <handback /> when done.", "code": "```\n<handback />\n```\n<handback",
             "fence": "```\n<handback />"}
    for name, text in texts.items():
        shown = []
        for n in range(0, len(text), 3):
            ev = MemberEvent(member="r", task_id=name, lane="floor", event=TextDelta(text=text[n:n + 3]))
            shown += [e.text for e in tracker.on(ev)[2]]
        done = MemberEvent(member="r", task_id=name, lane="floor", event=Done(result=RunResult(text=text)))
        shown += [e.text for e in tracker.on(done)[2] if e.type == "text_delta"]
        assert "".join(shown) == text and not tracker.lanes[name].handed_back


@pytest.mark.parametrize(("reason", "status"), [("end_turn", "done"), ("cancelled", "stopped"),
                                                ("max_steps", "stopped"), ("error", "error")])
def test_a_lanes_status_follows_how_its_run_ended(reason: str, status: str) -> None:
    tracker = LaneTracker(RunningCost(), model=COMMANDER_MODEL, members={"r": MEMBER_MODEL})
    start = MemberEvent(member="r", task_id="t", event=TextDelta(text="x"))
    assert tracker.on(start)[0].status == "running"
    end = MemberEvent(member="r", task_id="t", event=Done(result=RunResult(
        stop_reason=reason, usage=R_USAGE)))  # type: ignore[arg-type]
    lane = tracker.on(end)[0]
    assert lane.status == status
    # no usage event said which model answered: the model of the member's agent file
    assert lane.cost == pytest.approx(cost_of(R_USAGE, MEMBER_MODEL))
