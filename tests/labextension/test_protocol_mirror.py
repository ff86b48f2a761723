"""The TypeScript side reads what the kernel sends: team lanes on the run view's wire and in
saved transcripts (protocol.ts mirrors protocol.py; transcript.ts reads transcript_lanes.py)."""

from __future__ import annotations

import re
from pathlib import Path

from orkas_nb.core.events import MemberEvent, TextDelta, ToolStart
from orkas_nb.notebook.views.lab.protocol import lane_event_item, lane_item
from orkas_nb.notebook.views.lanes import LaneTracker
from orkas_nb.notebook.views.transcript_lanes import TLane

SRC = Path(__file__).resolve().parents[2] / "labextension" / "src"


def interface(file: str, name: str) -> dict[str, str]:
    """The fields of a TypeScript interface: name -> type text."""
    text = (SRC / file).read_text()
    m = re.search(rf"interface {name}(?: extends [\w, ]+)? \{{(.*?)\n\}}", text, re.DOTALL)
    assert m, f"{file} has no interface {name}"
    fields = re.findall(r"^\s+(\w+)\??: ([^;]+);", m.group(1), re.MULTILINE)
    return dict(fields)


def test_the_lane_item_has_exactly_the_fields_the_view_reads() -> None:
    tracker = LaneTracker()
    lane, _, _ = tracker.on(MemberEvent(member="researcher", task_id="t1", event=TextDelta(text="x")))
    item = lane_item(lane)
    ts = interface("protocol.ts", "ILaneItem")
    assert set(item) == set(ts)
    assert ts["k"] == "'lane'" and item["k"] == "lane"
    for field, value in item.items():
        kind = ts[field]
        if isinstance(value, bool):
            assert kind == "boolean", field
        elif isinstance(value, int):
            assert kind == "number", field
        elif isinstance(value, str) and "'" in kind:  # a union of literals: the value is one
            assert f"'{value}'" in kind.split(" | "), (field, value, kind)
    assert set(ts["status"].replace("'", "").split(" | ")) == {"running", "done", "stopped", "error"}
    assert "lane" in interface("protocol.ts", "ILaneTagged")


def test_a_members_items_are_tagged_with_their_lane_and_the_view_routes_on_it() -> None:
    tracker = LaneTracker()
    lane, _, _ = tracker.on(MemberEvent(member="writer", task_id="t2", event=TextDelta(text="x")))
    for event in (TextDelta(text="hello"), ToolStart(call_id="c", name="read_file")):
        item = lane_event_item(lane, event)
        assert item is not None and item["lane"] == "t2"
    run = (SRC / "run.ts").read_text()
    assert "'lane' in item && item.lane" in run and "case 'text'" in run
    union = re.search(r"export type RunItem =(.*?);", (SRC / "protocol.ts").read_text(), re.DOTALL)
    assert union and "ILaneItem" in union.group(1)


def test_the_transcript_renderer_reads_only_fields_a_saved_lane_has() -> None:
    ts = interface("transcript.ts", "ILane")
    assert set(ts) <= set(TLane.model_fields), set(ts) - set(TLane.model_fields)
    assert {"member", "kind", "status", "after", "usage", "cost_usd", "handed_back", "messages"} <= set(ts)
    assert "lanes?: ILane[]" in (SRC / "transcript.ts").read_text()


def test_the_approval_card_has_words_for_every_answer_the_kernel_resolves() -> None:
    """cards.ts shows an answered prompt in words: one for each Decision the approver can send
    in ``approval_done`` ("always" of a connector pair among them)."""
    from orkas_nb.harness.approval import Decision

    cards = (SRC / "cards.ts").read_text()
    m = re.search(r"ANSWER_WORDS: Record<string, string> = \{(.*?)\};", cards, re.DOTALL)
    assert m, "cards.ts has no ANSWER_WORDS"
    words = dict(re.findall(r"(\w+): '([^']+)'", m.group(1)))
    assert set(words) == {d.value for d in Decision}, words
    assert words["always"] == "always allowed"
    # The buttons are the kernel's options, whatever their ids: no list of answers in the view.
    assert "for (const option of item.options)" in cards and "answer(item.id, option.id)" in cards


def _ts_const(file: str, name: str) -> str:
    m = re.search(rf"export const {name} = '([^']*)';", (SRC / file).read_text())
    assert m, f"{file} has no constant {name}"
    return m.group(1)


def _in_caret_range(version: str, wanted: str) -> bool:
    """Whether ``version`` satisfies the npm range ``wanted`` (``^x.y.z`` or an exact one)."""
    have = [int(p) for p in version.split(".")]
    low = [int(p) for p in wanted.removeprefix("^").split(".")]
    if not wanted.startswith("^"):
        return have == low
    fixed = next((i for i, p in enumerate(low) if p), len(low) - 1) + 1  # ^0.1.0: 0.1 is fixed
    return have[:fixed] == low[:fixed] and have >= low


def test_every_lab_widget_asks_for_a_model_and_view_the_extension_registers() -> None:
    import orkas_nb.notebook.views.lab  # noqa: F401 - defines the widgets
    from orkas_nb.notebook.views.lab.extension_widget import ExtensionWidget

    index = (SRC / "index.ts").read_text()
    registered = re.search(r"exports: \{([^}]*)\}", index)
    assert registered and "name: MODULE_NAME" in index and "version: MODULE_VERSION" in index
    exported = {name.strip() for name in registered.group(1).split(",")}
    module, version = _ts_const("protocol.ts", "MODULE_NAME"), _ts_const("protocol.ts", "MODULE_VERSION")
    widgets = ExtensionWidget.__subclasses__()
    assert {w.__name__ for w in widgets} >= {"PlanWidget", "RunWidget"}
    for widget in widgets:
        traits = {k: t.default_value for k, t in widget.class_traits(sync=True).items()}
        assert {traits["_model_name"], traits["_view_name"]} <= exported, widget
        assert traits["_model_module"] == traits["_view_module"] == module, widget
        for wanted in (traits["_model_module_version"], traits["_view_module_version"]):
            assert _in_caret_range(version, wanted), (widget, wanted, version)


def test_the_caret_range_check_follows_npm() -> None:
    assert _in_caret_range("0.1.0", "^0.1.0") and _in_caret_range("0.1.7", "^0.1.0")
    assert not _in_caret_range("0.2.0", "^0.1.0") and not _in_caret_range("0.0.9", "^0.1.0")
    assert _in_caret_range("1.4.0", "^1.2.0") and not _in_caret_range("2.0.0", "^1.2.0")
    assert _in_caret_range("0.1.0", "0.1.0") and not _in_caret_range("0.1.1", "0.1.0")
