"""The commander's ``save_skill``: a bash solution kept as a custom skill, with the user's consent.

The format is the one the catalog reads (team/skills.py); nothing is written without approval,
outside the skill folder, or over an existing skill unless asked; a kill -9 at any point of the
write leaves the old skill or the new one, never half of one; the next run's catalog has it.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
from pathlib import Path

import pytest

from orkas_nb import Agent
from orkas_nb.agent.team import build_team
from orkas_nb.harness.approval import ApprovalRequest, Decision
from orkas_nb.harness.cancellation import AbortSignal
from orkas_nb.harness.tool_protocol import ToolContext
from orkas_nb.team import skill_save
from orkas_nb.team.skill_save import SaveSkill, SkillSaveError, check_skill, write_skill
from orkas_nb.team.skills import default_skill_roots, discover_skills
from orkas_nb.testing import call, reply
from tests.team.teamkit import Router, write_agents

SCRIPT = {"scripts/count.py": "import sys\nprint(len(sys.stdin.read().split()))\n"}
GOOD = {"name": "count-words", "description": "Counts the words of a text file with a script.",
        "body": "Run `python3 scripts/count.py < FILE`.", "files": SCRIPT}


class Asked:
    def __init__(self, answer: Decision) -> None:
        self.answer, self.requests = answer, []

    def __call__(self, request: ApprovalRequest) -> Decision:
        self.requests.append(request)
        return self.answer


def catalog(ws: Path) -> dict[str, str]:
    roots, _ = default_skill_roots(ws, ws / "no-user-dir", open_tier=False, entry_points=False)
    skills, problems = discover_skills(roots)
    assert problems == []
    return {s.name: s.description for s in skills}


def run_tool(ws: Path, answer: Decision, **arguments) -> tuple[object, Asked]:
    asked = Asked(answer)
    ctx = ToolContext(workspace=ws, abort=AbortSignal(), agent="commander", call_id="c1")
    return asyncio.run(SaveSkill(ws, approver=asked).execute(arguments, ctx)), asked


def test_the_commander_saves_a_skill_after_approval_and_the_next_run_lists_it(workspace):
    write_agents(workspace, researcher="Finds facts.")
    router = Router(commander=[reply("It works; saving it as you asked.", call("save_skill", **GOOD)),
                               reply("Saved as count-words.")])
    asked = Asked(Decision.ONCE)
    agent = Agent(router.model(), workspace=workspace, approver=asked)
    team = build_team(agent, user_dir=workspace / "none")
    assert "save_skill" in agent.tools and "save_skill" in agent.runner.system_text()
    assert "count-words" not in agent.system_prompt
    assert asyncio.run(team.arun("count the words of notes.txt, and keep the script")).text == (
        "Saved as count-words.")
    team.close()
    (request,) = asked.requests
    assert (request.kind, request.category, request.tool) == ("path", "save_skill", "save_skill")
    assert "count-words" in request.subject and "scripts/count.py" in request.subject
    folder = workspace / ".orkas" / "skills" / "count-words"
    assert (folder / "scripts" / "count.py").read_text() == SCRIPT["scripts/count.py"]
    assert catalog(workspace) == {"count-words": GOOD["description"]}
    later = Agent(Router().model(), workspace=workspace)  # the next run (a cell) builds anew
    assert "count-words" in later.system_prompt and GOOD["description"] in later.system_prompt
    assert sorted(os.listdir(folder.parent)) == ["count-words"]  # no temporary left


def test_a_denied_save_writes_nothing(workspace):
    out, asked = run_tool(workspace, Decision.DENY, **GOOD)
    assert out.is_error and out.denied and "did not approve" in out.text
    assert len(asked.requests) == 1
    assert not (workspace / ".orkas" / "skills").exists() or catalog(workspace) == {}
    assert not (workspace / ".orkas" / "skills" / "count-words").exists()


@pytest.mark.parametrize("name", ["", "Count", "-count", "count-", "count--words", "a" * 65,
                                  "../count", "count/words", "count words", "cöunt", ".count"])
def test_a_bad_name_is_refused_before_anyone_is_asked(workspace, name):
    out, asked = run_tool(workspace, Decision.ONCE, **{**GOOD, "name": name})
    assert out.is_error and out.text.startswith("Not saved: skill name:") and asked.requests == []
    assert not (workspace / ".orkas" / "skills").exists()


@pytest.mark.parametrize("description,why", [("", "empty"), ("  \n ", "empty"),
                                             ("x" * 1025, "over the limit of 1024")])
def test_a_bad_description_or_body_is_refused(workspace, description, why):
    with pytest.raises(SkillSaveError, match=why):
        check_skill("ok", description, "body")
    with pytest.raises(SkillSaveError, match="body: empty"):
        check_skill("ok", "fine", " \n")
    assert check_skill("ok", "x" * 1024, "body") == {}


@pytest.mark.parametrize("path", ["../evil.py", "scripts/../../evil.py", "/etc/evil", "./x",
                                  ".hidden", "scripts/.env", "scripts\\evil.py", "C:evil.py",
                                  "a//b/../..", "SKILL.md", "skill.md", "scripts/\nx", ""])
def test_file_names_stay_inside_the_skill_folder(workspace, path):
    out, asked = run_tool(workspace, Decision.ONCE, **{**GOOD, "files": {path: "print(1)"}})
    assert out.is_error and "Not saved: file" in out.text and asked.requests == []
    assert not (workspace / ".orkas").exists() and not (workspace.parent / "evil.py").exists()


def test_an_existing_skill_is_replaced_only_when_asked(workspace):
    out, _ = run_tool(workspace, Decision.ONCE, **GOOD)
    assert not out.is_error
    again, asked = run_tool(workspace, Decision.ONCE, **{**GOOD, "description": "Another."})
    assert again.is_error and "already exists" in again.text and asked.requests == []
    assert catalog(workspace) == {"count-words": GOOD["description"]}
    denied, asked = run_tool(workspace, Decision.DENY, **{**GOOD, "description": "Another.",
                                                          "overwrite": True})
    assert denied.denied and asked.requests[0].subject.startswith("replace the skill")
    assert catalog(workspace) == {"count-words": GOOD["description"]}
    replaced, _ = run_tool(workspace, Decision.ONCE, **{**GOOD, "description": "Another.",
                                                        "files": {}, "overwrite": True})
    assert not replaced.is_error and catalog(workspace) == {"count-words": "Another."}
    folder = workspace / ".orkas" / "skills" / "count-words"
    assert not (folder / "scripts").exists()  # the old version's files went with it
    assert sorted(os.listdir(folder.parent)) == ["count-words"]
    with pytest.raises(SkillSaveError, match="already exists"):
        write_skill(folder.parent, "count-words", "x", "y")


@pytest.mark.slow
def test_a_kill_during_the_write_leaves_the_old_skill_or_the_new_one(workspace):
    """SIGKILL at the k-th fsync or rename of a save (a new skill, then overwrites)."""
    skills = workspace / ".orkas" / "skills"
    versions = [f"Version {n} of the word counter." for n in range(40)]
    rng, kills = random.Random(7), 0
    for n, description in enumerate(versions):
        die_at = rng.randint(1, 8)
        pid = os.fork()
        if pid == 0:
            try:
                steps = [0]
                real_fsync, real_rename = os.fsync, os.rename

                def step(fn):
                    def wrapped(*a):
                        # the forked child runs one iteration of the loop, then dies
                        steps[0] += 1  # noqa: B023
                        if steps[0] == die_at:  # noqa: B023
                            os.kill(os.getpid(), signal.SIGKILL)
                        return fn(*a)
                    return wrapped

                skill_save.os.fsync = step(real_fsync)  # type: ignore[attr-defined]
                skill_save.os.rename = step(real_rename)  # type: ignore[attr-defined]
                write_skill(skills, "count-words", description, f"Body {n}.",
                            {"scripts/count.py": f"print({n})\n"}, overwrite=True)
            finally:
                os._exit(0)
        _, status = os.waitpid(pid, 0)
        kills += os.WIFSIGNALED(status)
        found = catalog(workspace) if skills.exists() else {}
        held = {k: v for k, v in found.items()}
        assert set(held) <= {"count-words"}
        if held:  # whole: the SKILL.md and its script are of one version
            got = versions.index(held["count-words"])
            assert (skills / "count-words" / "scripts" / "count.py").read_text() == f"print({got})\n"
            assert got <= n
        visible = [e for e in os.listdir(skills) if not e.startswith(".")] if skills.exists() else []
        assert visible in ([], ["count-words"])
    assert kills >= 20
    write_skill(skills, "count-words", "Final.", "Body.", overwrite=True)  # a save cleans up
    assert catalog(workspace) == {"count-words": "Final."}
    assert [e for e in os.listdir(skills) if e.startswith(".save-")] == []
