"""Read-only roots: the folders of the skills an agent may use, read by the file tools and seen
by bash, never written — including the ``skills/`` folder of orkas_nb's own state folders, the
one part of them that opens, and only when a root there is granted."""

from __future__ import annotations

from pathlib import Path

import pytest

from orkas_nb.core.errors import ConfigError
from orkas_nb.harness.approval import Decision
from orkas_nb.tools.paths import PathPolicy, PathRefused
from orkas_nb.tools.risk import Context, grade

from .conftest import CANARIES, MODES


def _skill(folder: Path, text: str = "SKILL-BODY-31ab") -> Path:
    (folder / "scripts").mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(f"---\nname: {folder.name}\ndescription: d\n---\n{text}\n")
    (folder / "scripts" / "run.sh").write_text("#!/bin/sh\necho skill-script-ran\n")
    (folder / "scripts" / "run.sh").chmod(0o755)
    return folder


def test_state_skill_folder_opens_read_only_and_the_rest_of_state_stays_shut(world) -> None:
    skill = _skill(world.ws / ".orkas" / "skills" / "pdf")
    other = _skill(world.ws / ".orkas" / "skills" / "other")
    policy = PathPolicy(world.ws, readonly=[skill])
    assert policy.check(".orkas/skills/pdf/SKILL.md").read_only
    assert policy.check(str(skill / "scripts" / "run.sh")).path == skill / "scripts" / "run.sh"
    with pytest.raises(PathRefused, match="read-only"):
        policy.check(".orkas/skills/pdf/SKILL.md", write=True)
    for shut in (".orkas/sessions/main.jsonl", ".orkas/skills/other/SKILL.md", ".orkas/skills",
                 ".orkas/skills/pdf/../../sessions/main.jsonl", ".orkas/agents/x.md"):
        with pytest.raises(PathRefused, match="state folder"):
            policy.check(shut)
    assert other.is_dir()
    # Without a granted root nothing under .orkas opens.
    with pytest.raises(PathRefused, match="state folder"):
        PathPolicy(world.ws).check(".orkas/skills/pdf/SKILL.md")


def test_readonly_roots_refuse_state_and_credentials_outside_skills(world) -> None:
    policy = PathPolicy(world.ws)
    (world.ws / ".orkas" / "agents").mkdir()
    (world.root / "xdg" / "orkas_nb" / "providers").mkdir(parents=True)
    for bad in (world.ws / ".orkas", world.ws / ".orkas" / "sessions", world.ws / ".orkas" / "agents",
                world.root / "xdg" / "orkas_nb", world.root / "xdg" / "orkas_nb" / "providers",
                world.home / ".ssh", world.root / "xdg" / "gh"):
        with pytest.raises(ConfigError):
            policy.check_readonly_extras([bad])
    # A credential folder inside a skill folder stays refused.
    skill = _skill(world.ws / ".orkas" / "skills" / "keys")
    (skill / ".ssh").mkdir()
    (skill / ".ssh" / "id_rsa").write_text(CANARIES["ssh"])
    with pytest.raises(PathRefused, match="credential folder"):
        PathPolicy(world.ws, readonly=[skill]).check(str(skill / ".ssh" / "id_rsa"))


def test_user_config_skills_folder_opens_but_not_the_config(world) -> None:
    # $XDG_CONFIG_HOME/orkas_nb is a credential store (provider settings); its skills/ is not.
    config = world.root / "xdg" / "orkas_nb"
    skill = _skill(config / "skills" / "notes")
    (config / "providers.toml").write_text(CANARIES["gh"])
    policy = PathPolicy(world.ws, readonly=[skill])
    assert policy.check(str(skill / "SKILL.md")).read_only
    with pytest.raises(PathRefused, match="outside the workspace|credential"):
        policy.check(str(config / "providers.toml"))
    with pytest.raises(PathRefused, match="read-only"):
        policy.check(str(skill / "new.txt"), write=True)


def test_readonly_root_inside_the_workspace_stays_writable(world) -> None:
    (world.ws / ".agents" / "skills" / "x").mkdir(parents=True)
    policy = PathPolicy(world.ws, readonly=[world.ws / ".agents" / "skills" / "x"])
    assert policy.readonly_roots == ()
    assert not policy.check(".agents/skills/x/f.txt", write=True).read_only


async def test_file_tools_read_a_granted_skill_and_never_write_it(world, make_caller) -> None:
    skill = _skill(world.ws / ".orkas" / "skills" / "pdf")
    outside = _skill(world.outside / "skills" / "csv", "OUTSIDE-SKILL-77")
    call = make_caller("degraded", extra_readonly_paths=[str(skill), str(outside)])
    ok, text, _ = await call("read_file", path=".orkas/skills/pdf/SKILL.md")
    assert ok and "SKILL-BODY-31ab" in text
    ok, text, _ = await call("read_file", path=str(outside / "SKILL.md"))
    assert ok and "OUTSIDE-SKILL-77" in text
    ok, text, _ = await call("write_file", path=str(outside / "SKILL.md"), content="x")
    assert not ok and "read-only" in text
    ok, text, _ = await call("read_file", path=".orkas/sessions/main.jsonl")
    assert not ok and CANARIES["state"] not in text
    ok, text, _ = await call("read_file", path=str(world.outside / "canary.txt"))
    assert not ok and CANARIES["outside"] not in text
    assert "OUTSIDE-SKILL-77" in (outside / "SKILL.md").read_text()


@pytest.mark.parametrize("mode", [m for m in MODES if getattr(m, "values", [m])[0] == "isolated"])
async def test_bash_runs_a_state_skill_script_read_only_and_state_stays_hidden(
        world, make_caller, mode) -> None:
    skill = _skill(world.ws / ".orkas" / "skills" / "pdf")
    _skill(world.ws / ".orkas" / "skills" / "other")
    asked: list[str] = []
    call = make_caller(mode, extra_readonly_paths=[str(skill)],
                       approver=lambda r: asked.append(r.subject) or Decision.ONCE)
    script = skill / "scripts" / "run.sh"
    ok, text, _ = await call("bash", command=f"{script}")
    assert ok and "skill-script-ran" in text, text
    assert asked == []  # the granted skill's own script runs without a question
    # Approved, the command still finds the state hidden and the skill folder read-only.
    ok, text, _ = await call("bash", command=f"cat {world.ws}/.orkas/sessions/main.jsonl; "
                                             f"echo x > {skill}/new.txt; ls {world.ws}/.orkas/skills")
    assert asked and CANARIES["state"] not in text and not (skill / "new.txt").exists()
    assert "pdf" in text and "other" not in text, text


def test_grader_lets_a_granted_skill_path_through_and_no_other_state_path(world) -> None:
    skill = _skill(world.ws / ".orkas" / "skills" / "pdf")
    policy = PathPolicy(world.ws, readonly=[skill])
    ctx = Context(policy=policy, env={"HOME": str(world.home), "PATH": "/usr/bin"},
                  cwd=world.ws, isolated=True, network=False)
    assert "credential_path" not in grade(f"sh {skill}/scripts/run.sh", ctx).categories
    for other in (f"cat {world.ws}/.orkas/sessions/main.jsonl",
                  f"cat {skill}/../../sessions/main.jsonl", "cat .orkas/skills/other/SKILL.md"):
        assert "credential_path" in grade(other, ctx).categories, other


async def test_without_isolation_a_skill_script_asks_and_a_denial_runs_nothing(world, make_caller) -> None:
    # Degraded mode has no read-only bind: the skill's own file is no credential (never blocked),
    # but the user decides, since nothing would stop the command from changing it.
    skill = _skill(world.ws / ".orkas" / "skills" / "pdf")
    asked: list[str] = []
    call = make_caller("degraded", extra_readonly_paths=[str(skill)],
                       approver=lambda r: asked.append(r.category) or (
                           Decision.DENY if len(asked) == 1 else Decision.ONCE))
    ok, text, _ = await call("bash", command=f"cat {skill}/SKILL.md; touch {world.ws}/ran")
    assert not ok and "Denied, nothing was run" in text and not (world.ws / "ran").exists(), text
    ok, text, _ = await call("bash", command=f"cat {skill}/SKILL.md")
    assert ok and "SKILL-BODY-31ab" in text, text
    assert "skill_file" in asked[1:] and "credential_path" not in asked, asked
    ctx = Context(policy=PathPolicy(world.ws, readonly=[skill]), env={"HOME": str(world.home)},
                  cwd=world.ws, isolated=False, network=False)
    for other in (f"cat {world.ws}/.orkas/sessions/main.jsonl", f"cat {skill}/../../sessions/main.jsonl"):
        assert [f.category for f in grade(other, ctx).blocked] == ["credential_path"], other
