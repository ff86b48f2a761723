"""Skills wired into agents: the catalog in the request's system prompt, the skill tool's body,
bundled files read through the file tools, the open tier kept from members, the cut warned."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from orkas_nb import Agent
from orkas_nb.agent.skills_wiring import agent_skills, discover
from orkas_nb.core.events import Warning
from orkas_nb.team.factory import MemberSpec
from orkas_nb.testing import ScriptedModel, call, reply


def _skill(root: Path, name: str, description: str, body: str = "") -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {description}\n---\n{body or name.upper() + '-BODY'}\n")
    return folder


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for var in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("ORKAS_CONFIG_DIR", str(tmp_path / "cfg"))
    ws = tmp_path / "ws"
    pdf = _skill(ws / ".orkas" / "skills", "pdf-forms", "Fill PDF forms.", "Run scripts/fill.py.")
    (pdf / "scripts").mkdir()
    (pdf / "scripts" / "fill.py").write_text("print('FILL-SCRIPT-5150')\n")
    _skill(ws / ".agents" / "skills", "csv-clean", "Clean CSV files.")
    _skill(home / ".claude" / "skills", "web-scrape", "Scrape the web (another tool's skill).")
    return ws


async def test_catalog_in_the_system_prompt_and_the_skill_tool_returns_the_body(world: Path) -> None:
    model = ScriptedModel([reply("", call("skill", name="pdf-forms")),
                           reply("", call("read_file", path=".orkas/skills/pdf-forms/scripts/fill.py")),
                           reply("done")])
    agent = Agent(model, workspace=world, open_tier_skills=True)
    await agent.arun("fill the form")
    system = model.requests[0].system
    assert "## Skills" in system and "<name>pdf-forms</name>" in system
    assert "<name>csv-clean</name>" in system and "<name>web-scrape</name>" in system
    assert str(world / ".orkas" / "skills" / "pdf-forms" / "SKILL.md") in system
    tool = next(t for t in model.requests[0].tools if t.name == "skill")
    assert set(tool.input_schema["properties"]["name"]["enum"]) == {"pdf-forms", "csv-clean", "web-scrape"}
    loaded = model.requests[1].messages[-1].text
    assert "Run scripts/fill.py." in loaded and "scripts/fill.py" in loaded.split("<skill_resources>")[1]
    # A bundled file under .orkas/skills is read through the normal file tools.
    assert "FILL-SCRIPT-5150" in model.requests[2].messages[-1].text


async def test_open_tier_switch_and_skills_off(world: Path) -> None:
    model = ScriptedModel([reply("x")])
    await Agent(model, workspace=world, open_tier_skills=False).arun("hi")
    assert "web-scrape" not in model.requests[0].system and "pdf-forms" in model.requests[0].system
    model = ScriptedModel([reply("", call("read_file", path=".orkas/skills/pdf-forms/SKILL.md")),
                           reply("x")])
    await Agent(model, workspace=world, skills=False).arun("hi")
    assert "## Skills" not in model.requests[0].system
    assert "skill" not in {t.name for t in model.requests[0].tools}
    # Without skills nothing under .orkas opens.
    assert "state folder" in model.requests[1].messages[-1].text


async def test_a_member_never_gets_an_open_tier_skill_even_when_listed(world: Path) -> None:
    parent = Agent(ScriptedModel([]), workspace=world, open_tier_skills=True)
    model = ScriptedModel([reply("", call("skill", name="web-scrape")), reply("ok")])
    member = parent.member_factory()(MemberSpec(name="reviewer", skills=("web-scrape", "csv-clean")))
    member.runner.provider = model
    await member.arun("review")
    system = model.requests[0].system
    assert "<name>csv-clean</name>" in system and "web-scrape" not in system
    tool = next(t for t in model.requests[0].tools if t.name == "skill")
    assert tool.input_schema["properties"]["name"]["enum"] == ["csv-clean"]
    assert "no skill named 'web-scrape'" in model.requests[1].messages[-1].text
    assert any("open tier" in p.message for p in member.skills.problems)
    # A member without a skills list gets none.
    bare = parent.member_factory()(MemberSpec(name="plain"))
    assert bare.skills.tool is None and "## Skills" not in bare.system_prompt


async def test_a_member_cannot_read_open_tier_folders_through_tools_its_parent_was_given(
        world: Path) -> None:
    # The notebook builds the workspace tools once (with the commander's read-only skill folders,
    # the open tier's included) and hands them to the Agent; a member must not inherit them.
    from orkas_nb.agent.assembly import assemble_tools

    skills = agent_skills(world, True, open_tier=True)
    scraped = Path(os.environ["HOME"]) / ".claude" / "skills" / "web-scrape" / "SKILL.md"
    prebuilt = assemble_tools(world, readonly_paths=skills.readonly_paths)
    parent = Agent(ScriptedModel([]), workspace=world, tools=prebuilt, default_tools=False,
                   open_tier_skills=True)
    asks = [reply("", call("read_file", path=str(scraped))), reply("done")]
    parent.runner.provider = own = ScriptedModel(list(asks))
    await parent.arun("read it")
    assert "Scrape the web" in own.requests[1].messages[-1].text  # the commander may
    member = parent.member_factory()(MemberSpec(name="reviewer", skills=("csv-clean",)))
    member.runner.provider = model = ScriptedModel(list(asks))
    await member.arun("read it")
    assert "Scrape the web" not in model.requests[1].messages[-1].text
    assert model.requests[1].messages[-1].status != "ok"


async def test_a_cut_catalog_is_told_to_the_user_as_a_warning(world: Path) -> None:
    for i in range(30):
        _skill(world / ".orkas" / "skills", f"big-{i:02d}", "word " * 180)
    model = ScriptedModel([reply("x")])
    events = [e async for e in Agent(model, workspace=world).run("hi")]
    warnings = [e for e in events if isinstance(e, Warning) and e.code == "skills_cut"]
    assert len(warnings) == 1 and "big-29" in warnings[0].message
    assert "did not fit in this list" in model.requests[0].system
    tool = next(t for t in model.requests[0].tools if t.name == "skill")
    assert "big-29" in tool.input_schema["properties"]["name"]["enum"]


def test_discovery_is_kept_until_a_skill_changes(world: Path) -> None:
    first, _ = discover(world, open_tier=False)
    again, _ = discover(world, open_tier=False)
    assert [s.name for s in first] == [s.name for s in again] and first[0] is again[0]
    path = world / ".orkas" / "skills" / "pdf-forms" / "SKILL.md"
    path.write_text("---\nname: pdf-forms\ndescription: Now fills XFA forms too.\n---\nbody\n")
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    changed, _ = discover(world, open_tier=False)
    assert changed[0].description == "Now fills XFA forms too."
    _skill(world / ".orkas" / "skills", "zz-new", "A new skill.")
    assert "zz-new" in [s.name for s in discover(world, open_tier=False)[0]]


def test_readonly_paths_are_the_hidden_and_outside_skill_folders(world: Path) -> None:
    wired = agent_skills(world, True, open_tier=True)
    paths = {p.name for p in wired.readonly_paths}
    assert paths == {"pdf-forms", "web-scrape"}  # .agents/skills is the workspace's own
