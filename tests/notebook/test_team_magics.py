"""%agent agents, %agent agents new and %agent skills in a real kernel, and what a %%agent run
then gets of the skills (catalog, skill tool, bundled files, the open-tier switch)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import SETUP
from .kernel import Kernel

pytestmark = [pytest.mark.kernel, pytest.mark.slow]


def _skill(root: Path, name: str, description: str, body: str) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\n{body}\n")
    return folder


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Kernel, Path]]:
    base = tmp_path_factory.mktemp("team")
    ws, home = base / "project", base / "home"
    pdf = _skill(ws / ".orkas" / "skills", "pdf-forms", "Fill PDF forms.", "Use scripts/fill.py.")
    (pdf / "scripts").mkdir()
    (pdf / "scripts" / "fill.py").write_text("print('FILL-5150')\n")
    _skill(ws / ".orkas" / "skills", "Bad_Name", "A skill whose name breaks the rule.", "b")
    (ws / ".orkas" / "skills" / "broken").mkdir()
    (ws / ".orkas" / "skills" / "broken" / "SKILL.md").write_text("---\nname: broken\n---\nno description\n")
    _skill(home / ".claude" / "skills", "web-scrape", "Scrape pages.", "scrape")
    env = {"ORKAS_RENDERER": "text", "ORKAS_CONFIG_DIR": str(base / "config"), "HOME": str(home),
           "ORKAS_OPEN_TIER_SKILLS": "1"}
    with Kernel(ws, env=env) as k:
        k.run(SETUP)
        yield k, ws


def test_agents_new_list_and_problems(kernel: tuple[Kernel, Path]) -> None:
    k, ws = kernel
    assert "no named agents" in k.run("%agent agents").stream()
    out = k.run("%agent agents new reviewer").stream()
    path = ws / ".orkas" / "agents" / "reviewer.md"
    assert f"wrote {path}" in out and path.is_file()
    again = k.run("%agent agents new reviewer", allow_error=True).stream("stderr")
    assert again.startswith("UsageError: ") and "already exists" in again and "\n" not in again.strip()
    bad = k.run("%agent agents new commander", allow_error=True).stream("stderr")
    assert "reserved" in bad
    (ws / ".orkas" / "agents" / "writer.md").write_text(
        "---\nname: writer\ndescription: Writes the report.\nmodel: nowhere/x\n"
        "tools: [read_file, teleport]\nskills: [pdf-forms, web-scrape]\n---\nYou write.\n")
    (ws / ".orkas" / "agents" / "tester.md").write_text(
        "---\nname: tester\ndescription: Runs the tests.\nmodel: openai/gpt-4o-mini\n"
        "skills: [pdf-forms, web-scrape]\n---\nYou test.\n")
    listed = k.run("%agent agents").stream()
    assert "reviewer  (project:" in listed and "tester  (project:" in listed
    assert "model       openai/gpt-4o-mini" in listed and "skills      pdf-forms, web-scrape" in listed
    lines = listed.splitlines()
    assert any("writer.md: model: unknown model 'nowhere/x'" in line for line in lines)
    assert any("writer.md: tools: unknown tool 'teleport'" in line for line in lines)
    assert any("tester.md: skills: skill 'web-scrape' comes from" in line and "open tier" in line
               for line in lines)
    assert "writer  (project" not in listed  # a definition with errors is not loaded


def test_skills_listing_by_root_with_problems_and_the_switch(kernel: tuple[Kernel, Path]) -> None:
    k, ws = kernel
    out = k.run("%agent skills").stream()
    assert "workspace .orkas/skills" in out and "pdf-forms: Fill PDF forms." in out
    assert "Claude Code global folder" in out and "web-scrape: open tier" in out
    assert "broken/SKILL.md: description: missing or empty" in out
    assert "Bad_Name/SKILL.md: name:" in out and "breaks the name rule" in out
    try:
        k.run("%config Agent.open_tier_skills = False")
        off = k.run("%agent skills").stream()
        assert "web-scrape" not in off and "not read (Agent.open_tier_skills is off)" in off
    finally:
        k.run("%config Agent.open_tier_skills = True")
    assert k.run("%agent skills x", allow_error=True).stream("stderr").startswith("UsageError: ")


def test_a_cell_gets_the_catalog_the_skill_and_its_files(kernel: tuple[Kernel, Path]) -> None:
    k, ws = kernel
    k.run("m = ScriptedModel([reply('', call('skill', name='pdf-forms')), "
          "reply('', call('read_file', path='.orkas/skills/pdf-forms/scripts/fill.py')), reply('done')])")
    k.run("%%agent -m $m\nfill the form")
    system = k.value("m.requests[0].system")
    assert "<name>pdf-forms</name>" in system and "<name>web-scrape</name>" in system
    assert "Use scripts/fill.py." in k.value("last_prompt(m, 1)")
    assert "FILL-5150" in k.value("last_prompt(m, 2)")
    try:
        k.run("%config Agent.skills = False")
        k.run("m2 = ScriptedModel([reply('x')])")
        k.run("%%agent -m $m2\nhi")
        assert "## Skills" not in k.value("m2.requests[0].system")
        assert "skill" not in k.value("[t.name for t in m2.requests[0].tools]")
    finally:
        k.run("%config Agent.skills = True")
