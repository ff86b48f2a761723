"""The static transcript: schema stability, conversion from session messages, the three views."""

from __future__ import annotations

import json
from pathlib import Path

from orkas_nb.core.events import Done, MemberEvent, RunResult, ToolEnd, ToolStart, Warning
from orkas_nb.core.messages import (
    AssistantMessage,
    ImageBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultMessage,
    Usage,
    user_message,
)
from orkas_nb.notebook.views.renderer import RunInfo
from orkas_nb.notebook.views.transcript import (
    RESULT_CHARS,
    TRANSCRIPT_MIME,
    Provenance,
    Transcript,
    TranscriptBuilder,
    transcript_json_schema,
)

SCHEMA = Path(__file__).with_name("transcript.schema.json")


def test_the_schema_is_stable() -> None:
    # The labextension renders this data: a change here must be additive and deliberate
    # (regenerate the file; bump SCHEMA_VERSION if an existing field changes meaning).
    assert transcript_json_schema() == json.loads(SCHEMA.read_text())


def _run() -> tuple[list, RunResult]:
    call = ToolCallBlock(id="c1", name="read_file", arguments={"path": "a.md", "blob": "x" * 5000})
    messages = [
        user_message("read a.md"),
        AssistantMessage(content=[ThinkingBlock(text="hmm", signature="sig"), TextBlock(text="Reading."), call],
                         provider="p", model="m", usage=Usage(input_tokens=10, output_tokens=3)),
        ToolResultMessage(tool_call_id="c1", name="read_file",
                          content=[TextBlock(text="y" * (RESULT_CHARS + 10)), ImageBlock(data="AAAA")]),
        AssistantMessage(content=[TextBlock(text="Done: <b>fine</b> ```x```")], provider="p", model="m"),
    ]
    result = RunResult(text="Done", usage=Usage(input_tokens=10, output_tokens=3), duration_s=1.5,
                       output_files=["a.md"])
    return messages, result


def test_builder_converts_the_runs_messages_and_events() -> None:
    messages, result = _run()
    published = []
    b = TranscriptBuilder(lambda: messages, publish=published.append,
                          provenance=Provenance(session="s", model="m", replay="c.jsonl"))
    b.start(RunInfo(prompt="read a.md", model="m", session="s"))
    b.render(ToolEnd(call_id="c1", name="read_file", status="ok", duration_s=0.25, output_files=["a.md"]))
    b.render(Warning(code="reference", message="{Out[9]} does not exist"))
    b.finish(result)
    (t,) = published
    assert b.build(result) is t  # built once
    assert [m.role for m in t.messages] == ["user", "assistant", "tool", "assistant"]
    assistant, tool = t.messages[1], t.messages[2]
    assert assistant.thinking == "hmm" and "signature" not in json.dumps(t.model_dump())
    assert assistant.tool_calls[0].arguments["blob"].endswith("[3000 more characters]")
    assert tool.truncated and len(tool.text) == RESULT_CHARS and tool.images == 1
    assert tool.duration_s == 0.25 and tool.output_files == ["a.md"]
    assert t.notices[0].kind == "reference" and t.provenance.replay == "c.jsonl"
    assert t.provenance.version and t.provenance.created_at.endswith("Z")


def test_views_read_well_and_escape_html() -> None:
    messages, result = _run()
    t = TranscriptBuilder(lambda: messages).build(result)
    bundle = t.bundle()
    assert set(bundle) == {TRANSCRIPT_MIME, "text/markdown", "text/plain"}
    md = bundle["text/markdown"]
    assert md.splitlines()[0] == "**orkas** · model? · 0 model requests · 0 tool calls · 10 in / 3 out tokens · 1.5 s"
    assert "> **you:** read a.md" in md
    assert '<details><summary>✓ read_file — ok</summary>' in md
    assert "```text\n" + "y" * 50 in md and "\n…\n```" in md  # cut results say so
    assert "Done: <b>fine</b>" in md  # the model's own Markdown is kept as written
    plain = bundle["text/plain"]
    assert "you> read a.md" in plain and "  → read_file(path=\"a.md\"" in plain
    assert "\x1b" not in plain + md
    assert Transcript.model_validate(json.loads(json.dumps(bundle[TRANSCRIPT_MIME]))) == t


def test_readers_ignore_fields_they_do_not_know() -> None:
    data = {"schema_version": 1, "messages": [{"role": "user", "text": "hi", "future": 1}],
            "future_field": {"x": 1}}
    assert Transcript.model_validate(data).messages[0].text == "hi"


def test_the_cost_is_recorded_on_the_model_that_answered_and_none_when_unknown() -> None:
    from orkas_nb.core.events import UsageUpdate
    from orkas_nb.providers.catalog import cost_of

    # Under Sonnet 4.5's 200K long-prompt threshold: $3 in, $15 out per million.
    usage = Usage(input_tokens=100_000, output_tokens=10_000)
    b = TranscriptBuilder(list, cost=lambda model, u: cost_of(u, model))
    b.start(RunInfo(model="sonnet", session="s"))  # an alias: the catalog does not know it
    b.render(UsageUpdate(usage=usage, model_requests=1, model="claude-sonnet-4-5-20250929"))
    t = b.build(RunResult(usage=usage))
    assert t.cost_usd == 0.45 and "$0.4500" in t.to_markdown() and "$0.4500" in t.to_text()
    assert t.model_dump(mode="json")["cost_usd"] == 0.45
    unknown = TranscriptBuilder(list, cost=lambda model, u: cost_of(u, model))
    unknown.start(RunInfo(model="ollama/llama3.2:3b"))
    t2 = unknown.build(RunResult(usage=usage))
    assert t2.cost_usd is None and "$" not in t2.to_markdown()
    # A transcript saved before the field existed still loads (schema_version 1, additive field).
    old = t2.model_dump(mode="json")
    del old["cost_usd"]
    assert Transcript.model_validate(old).cost_usd is None


SAVED = Path(__file__).parent / "data" / "transcript_v1.json"


def test_a_transcript_saved_in_a_notebook_reads_back_to_the_same_json_and_views() -> None:
    # A cell output written by schema version 1 (every kind of message, an error, notices and
    # stats): it must load, dump to the very same JSON (no field added, renamed or dropped),
    # and render the same Markdown and plain text.
    saved = json.loads(SAVED.read_text())
    t = Transcript.model_validate(saved[TRANSCRIPT_MIME])
    assert t.model_dump(mode="json") == saved[TRANSCRIPT_MIME]
    assert t.bundle() == saved


def test_the_transcript_saves_cores_types_in_the_schema_1_shape() -> None:
    # One vocabulary (issue 14): the run's usage, counters, error and calls are core's types;
    # the two that differ in the saved shape say so as subclasses, and the JSON does not change.
    from orkas_nb.core.errors import ErrorInfo
    from orkas_nb.core.events import RunStats
    from orkas_nb.notebook.views.transcript import TStats, TToolCall

    fields = Transcript.model_fields
    assert fields["usage"].annotation is Usage and fields["error"].annotation == ErrorInfo | None
    assert issubclass(TStats, RunStats) and issubclass(TToolCall, ToolCallBlock)
    result = RunResult(stats=RunStats(tool_calls=2, denials=1),
                       error=ErrorInfo(kind="ToolDenied", message="no", action="observe"))
    data = TranscriptBuilder(lambda: _run()[0]).build(result).model_dump(mode="json")
    assert data["stats"] == {"model_requests": 0, "tool_calls": 2, "tool_failures": 0,
                             "rejections": 0, "compactions": 0, "retries": 0}
    assert data["error"] == {"kind": "ToolDenied", "message": "no", "action": "observe"}
    assert set(data["messages"][1]["tool_calls"][0]) == {"id", "name", "arguments", "raw_arguments"}
    data["messages"][1]["tool_calls"][0]["future"] = 1  # a later writer's field: ignored on reading
    assert Transcript.model_validate(data).messages[1].tool_calls[0].name == "read_file"


def test_parallel_members_lanes_are_kept_in_the_order_they_were_dispatched() -> None:
    """Members dispatched together finish in any order; the saved cell must read the same every
    run, so their lanes follow the commander's dispatch_to calls, whatever came back first."""
    def member(name: str, lane: str = "dispatch") -> MemberEvent:
        return MemberEvent(member=name, task_id=f"t-{name}", lane=lane,
                           event=Done(result=RunResult(text=f"{name} says hi")))

    def lanes(*finished: MemberEvent) -> list[str]:
        b = TranscriptBuilder(list)
        b.start(RunInfo(prompt="p", model="m", session="s"))
        for n, name in enumerate(("researcher", "writer", "checker")):
            b.render(ToolStart(call_id=f"c{n}", name="dispatch_to", arguments={"agent": name, "task": "x"}))
        for event in finished:
            b.render(event)
        t = b.build(RunResult(text=""))
        assert not [n for n in t.notices if n.kind == "member"]  # lanes, not notices
        return [x.member for x in t.lanes]

    order = ["researcher", "writer", "checker"]
    assert lanes(member("researcher"), member("writer"), member("checker")) == order
    assert lanes(member("checker"), member("researcher"), member("writer")) == order
    assert lanes(member("writer"), member("checker"), member("researcher")) == order
    # a member speaking to the user (the floor) was not dispatched: after the dispatched ones
    assert lanes(member("writer"), member("checker", lane="floor"), member("researcher")) == [
        "researcher", "writer", "checker"]
