"""Pinned tool results (``pinned_output``) survive compaction verbatim, through the real runner."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from orkas_nb.core.events import Compaction, Done
from orkas_nb.core.messages import (
    AssistantMessage,
    Message,
    SummaryBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultMessage,
    UserMessage,
    user_message,
)
from orkas_nb.harness import Runner, ToolRegistry, tool
from orkas_nb.harness.compaction import PINNED_HEADER, pinned_results
from orkas_nb.harness.repair import pairing_problems
from orkas_nb.providers.base import ModelRequest
from orkas_nb.team.skill_tool import skill_tool
from orkas_nb.team.skills import SkillRoot, discover_skills
from orkas_nb.testing import ScriptedModel, call, reply

BODY = "# Checklist\n\nAlways end the report with the line DONE-MARKER-7731.\nQuote every figure."
WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet",
         "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango"]


def page(n: int, chars: int = 1800) -> str:
    out, i = [], n
    while sum(len(w) + 1 for w in out) < chars:
        out.append(WORDS[(i * 7 + len(out)) % len(WORDS)] + str(len(out) % 97))
        i += 1
    return " ".join(out)


def registry(tmp_path: Path, *, pinned: bool = True) -> ToolRegistry:
    folder = tmp_path / "skills" / "report-style"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: report-style\ndescription: How reports are written.\n---\n{BODY}\n", encoding="utf-8")
    skills, problems = discover_skills([SkillRoot(path=tmp_path / "skills", tier="workspace", label="ws")])
    assert problems == []
    skill = skill_tool(skills)
    if not pinned:
        skill.pinned_output = False  # type: ignore[misc]

    @tool(read_only=True)
    def fetch(step: int) -> str:
        """Fetch one page.

        Args:
            step: which page
        """
        return f"page {step}:\n" + page(step)

    return ToolRegistry([skill, fetch])


def model(steps: int, window: int) -> ScriptedModel:
    state = {"main": 0}

    def script(request: ModelRequest) -> Any:
        if request.purpose == "auxiliary":
            return reply("Summary: the user wants a report; pages read so far were routine. " * 2)
        state["main"] += 1
        n = state["main"]
        if n == 1:
            return reply("loading the style", ToolCallBlock(id="s1", name="skill", arguments={"name": "report-style"}))
        if n <= steps:
            return reply(f"step {n}", call("fetch", f"c{n}", step=n))
        return reply("Report. DONE-MARKER-7731")

    return ScriptedModel(script, context_window=window)


async def run(tmp_path: Path, *, pinned: bool) -> tuple[list[Any], ScriptedModel, Runner]:
    m = model(30, 8000)
    runner = Runner(m, "m", tools=registry(tmp_path, pinned=pinned), system_prompt="You write reports.")
    events = [e async for e in runner.run("Read the pages and write the report.")]
    assert isinstance(events[-1], Done) and events[-1].result.stop_reason == "end_turn", events[-1]
    return events, m, runner


def requests_after_first_compaction(m: ScriptedModel) -> list[ModelRequest]:
    first = next(i for i, r in enumerate(m.requests) if r.purpose == "auxiliary")
    return [r for r in m.requests[first:] if r.purpose == "main"]


def carries_body(request: ModelRequest) -> bool:
    return any(BODY in m.text for m in request.messages)


async def test_a_loaded_skill_survives_every_compaction_verbatim(tmp_path: Path) -> None:
    events, m, runner = await run(tmp_path, pinned=True)
    assert sum(isinstance(e, Compaction) for e in events) >= 2
    later = requests_after_first_compaction(m)
    assert later and all(carries_body(r) for r in later)
    head = runner.session.messages[0]
    assert isinstance(head, UserMessage) and head.origin == "summary"
    assert isinstance(head.content[0], SummaryBlock)
    pinned = [b.text for b in head.content[1:] if isinstance(b, TextBlock)]
    assert len(pinned) == 1 and pinned[0].startswith(PINNED_HEADER + 'skill {"name": "report-style"}]')
    assert BODY in pinned[0] and "<skill_content" in pinned[0]
    assert pairing_problems(runner.session.messages) == []
    # The carried blocks are not mistaken for the user's request on the next compaction.
    assert "Read the pages and write the report." in head.content[0].text
    assert BODY not in head.content[0].text.split("verbatim:\n", 1)[-1]


async def test_without_the_pin_the_skill_text_is_summarised_away(tmp_path: Path) -> None:
    events, m, _runner = await run(tmp_path, pinned=False)
    assert sum(isinstance(e, Compaction) for e in events) >= 2
    later = requests_after_first_compaction(m)
    assert later and not any(carries_body(r) for r in later)


def _call(i: str, tool_name: str, **args: Any) -> tuple[AssistantMessage, ToolResultMessage]:
    c = ToolCallBlock(id=i, name=tool_name, arguments=args)
    return (AssistantMessage(content=[c]), ToolResultMessage(
        tool_call_id=i, name=tool_name, content=[TextBlock(text=f"{tool_name} {args} #{i}")]))


def test_pinned_results_keep_the_latest_per_arguments_and_skip_what_the_tail_holds() -> None:
    a1, r1 = _call("1", "skill", name="a")
    b1, rb = _call("2", "skill", name="b")
    a2, r2 = _call("3", "skill", name="a")
    f1, rf = _call("4", "fetch", step=1)
    c1, _rc = _call("5", "skill", name="c")
    failed = ToolResultMessage(tool_call_id="5", name="skill", status="error",
                               content=[TextBlock(text="no")])
    head: list[Message] = [user_message("go"), a1, r1, b1, rb, a2, r2, f1, rf, c1, failed]
    tail: list[Message] = [user_message("more"), *_call("6", "skill", name="b")]
    got = pinned_results(head, tail, {"skill"})
    assert got == [f'{PINNED_HEADER}skill {{"name": "a"}}]\nskill {{\'name\': \'a\'}} #3']
    assert pinned_results(head, tail, set()) == []
    # A later compaction carries what the earlier one kept, and a fresh load replaces it.
    summary = UserMessage(origin="summary", content=[SummaryBlock(text="s"), TextBlock(text=got[0]),
                                                     TextBlock(text="not pinned")])
    again = pinned_results([summary, user_message("x"), *_call("7", "skill", name="d")], [], {"skill"})
    assert again == [got[0], f'{PINNED_HEADER}skill {{"name": "d"}}]\nskill {{\'name\': \'d\'}} #7']
    fresh = pinned_results([summary, user_message("x"), *_call("8", "skill", name="a")], [], {"skill"})
    assert fresh == [f'{PINNED_HEADER}skill {{"name": "a"}}]\nskill {{\'name\': \'a\'}} #8']
