"""Skill discovery: the matrix of roots × precedence × malformed files, entry points, open tier."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

import pytest

from orkas_nb.team.skills import (
    OPEN_TIER_FOLDERS,
    Skill,
    SkillRoot,
    default_skill_roots,
    discover_skills,
    entry_point_roots,
    open_tier_roots,
)


@dataclass
class Machine:
    """A workspace, a user folder, a home with other tools' folders and a package, all in tmp."""

    workspace: Path
    user: Path
    home: Path
    package_root: Path

    def roots(self, *, open_tier: bool = True) -> list[SkillRoot]:
        roots, problems = default_skill_roots(self.workspace, self.user, open_tier=open_tier,
                                              entry_points=False, home=self.home, env={},
                                              external=[SkillRoot(path=self.package_root, tier="package",
                                                                  label="package demo")])
        assert problems == []
        return roots


@pytest.fixture
def machine(tmp_path: Path) -> Machine:
    return Machine(tmp_path / "ws", tmp_path / "cfg", tmp_path / "home", tmp_path / "site" / "demo_skills")


# Where a skill can live, in priority order; the fixture's roots must come out in this order.
PLACES: dict[str, Callable[[Machine], Path]] = {
    "workspace .orkas": lambda m: m.workspace / ".orkas" / "skills",
    "workspace .agents": lambda m: m.workspace / ".agents" / "skills",
    "user": lambda m: m.user / "skills",
    "package": lambda m: m.package_root,
    "open .agents": lambda m: m.home / ".agents" / "skills",
    "open claude": lambda m: m.home / ".claude" / "skills",
    "open codex": lambda m: m.home / ".codex" / "skills",
    "open opencode": lambda m: m.home / ".config" / "opencode" / "skills",
    "open gemini": lambda m: m.home / ".gemini" / "skills",
}
TIERS = {"workspace .orkas": "workspace", "workspace .agents": "workspace", "user": "user",
         "package": "package"}


def make_skill(root: Path, folder: str, text: str | None = None, *, raw: bytes | None = None,
               files: dict[str, str] | None = None) -> Path:
    d = root / folder
    d.mkdir(parents=True, exist_ok=True)
    path = d / "SKILL.md"
    if raw is not None:
        path.write_bytes(raw)
    else:
        path.write_text(text if text is not None else
                        f"---\nname: {folder}\ndescription: Does {folder} things.\n---\nSteps for {folder}.\n",
                        encoding="utf-8", newline="")
    for rel, content in (files or {}).items():
        (d / rel).parent.mkdir(parents=True, exist_ok=True)
        (d / rel).write_text(content, encoding="utf-8")
    return path


def test_the_fixture_roots_are_in_priority_order(machine: Machine) -> None:
    paths = [r.path for r in machine.roots()]
    order = [paths.index(place(machine)) for place in PLACES.values()]
    assert order == sorted(order)


@pytest.mark.parametrize("place", list(PLACES))
def test_a_skill_is_found_in_every_root_with_its_tier(machine: Machine, place: str) -> None:
    path = make_skill(PLACES[place](machine), "pdf-tools")
    skills, problems = discover_skills(machine.roots())
    assert problems == []
    (skill,) = skills
    assert (skill.name, skill.location, skill.description) == ("pdf-tools", path, "Does pdf-tools things.")
    assert skill.tier == TIERS.get(place, "open")
    assert skill.open_tier == place.startswith("open")


@pytest.mark.parametrize("higher,lower", list(combinations(PLACES, 2)), ids="{0[0]}>{0[1]}".format)
def test_a_higher_root_shadows_a_lower_one_with_a_warning(machine: Machine, higher: str, lower: str) -> None:
    winner = make_skill(PLACES[higher](machine), "review")
    loser = make_skill(PLACES[lower](machine), "review",
                       "---\nname: review\ndescription: The other copy.\n---\nOther.\n")
    make_skill(PLACES[lower](machine), "only-low")
    skills, problems = discover_skills(machine.roots())
    by_name = {s.name: s for s in skills}
    assert by_name["review"].location == winner and by_name["only-low"].tier == TIERS.get(lower, "open")
    assert [(p.path, p.field, p.level) for p in problems] == [(str(loser), "name", "warning")]
    assert str(winner) in problems[0].message and "shadowed" in problems[0].message


def test_open_tier_off_reads_none_of_the_other_tools_folders(machine: Machine) -> None:
    for place, where in PLACES.items():
        make_skill(where(machine), place.replace(" ", "-").replace(".", ""))
    skills, _ = discover_skills(machine.roots(open_tier=False))
    assert sorted(s.name for s in skills) == ["package", "user", "workspace-agents", "workspace-orkas"]
    assert all(r.tier != "open" for r in machine.roots(open_tier=False))


# -- malformed files, in every root ------------------------------------------------------------

LONG = "x" * 1100


@dataclass
class Case:
    text: str | None  # None: ``raw`` bytes, or a dangling link when raw is None too
    field: str | None = None  # the field the one problem names (None: no problem at all)
    kept: bool = True
    raw: bytes | None = None
    name: str = "my-skill"


CASES = {
    "good": Case("---\nname: my-skill\ndescription: Fine.\n---\nBody.\n"),
    "crlf": Case(None, raw=b"---\r\nname: my-skill\r\ndescription: Fine.\r\n---\r\nBody.\r\n"),
    "bom": Case(None, raw=b"\xef\xbb\xbf---\nname: my-skill\ndescription: Fine.\n---\nBody.\n"),
    "bom+crlf": Case(None, raw=b"\xef\xbb\xbf---\r\nname: my-skill\r\ndescription: Fine.\r\n---\r\nB\r\n"),
    "bad yaml": Case("---\nname: my-skill\ndescription: [unclosed\n---\nBody.\n", "front matter", False),
    "colon in value": Case("---\nname: my-skill\ndescription: Use when: the user asks\n---\nB\n",
                           "front matter"),
    "not a mapping": Case("---\njust text\n---\nBody.\n", "front matter", False),
    "no front matter": Case("# My skill\nBody.\n", "front matter", False),
    "unclosed": Case("---\nname: my-skill\ndescription: Fine.\nBody.\n", "front matter", False),
    "missing name": Case("---\ndescription: Fine.\n---\nBody.\n", "name"),
    "name mismatch": Case("---\nname: other-name\ndescription: Fine.\n---\nBody.\n", "name",
                          name="other-name"),
    "name not text": Case("---\nname: [a, b]\ndescription: Fine.\n---\nBody.\n", "name", False),
    "name control chars": Case('---\nname: "my\\nskill"\ndescription: Fine.\n---\nB\n', "name", False),
    "missing description": Case("---\nname: my-skill\n---\nBody.\n", "description", False),
    "empty description": Case("---\nname: my-skill\ndescription: ''\n---\nBody.\n", "description", False),
    "description too long": Case(f"---\nname: my-skill\ndescription: {LONG}\n---\nBody.\n", "description"),
    "empty body": Case("---\nname: my-skill\ndescription: Fine.\n---\n", "body"),
    "metadata not a map": Case("---\nname: my-skill\ndescription: F.\nmetadata: [1]\n---\nB\n", "metadata"),
    "compatibility too long": Case(f"---\nname: my-skill\ndescription: F.\ncompatibility: {LONG}\n---\nB\n",
                                   "compatibility"),
    "not utf-8": Case(None, "file", False, raw=b"---\nname: my-skill\ndescription: caf\xe9\n---\nB\n"),
    "dangling link": Case(None, "file", False),
}
# Names that break the rule in the folder of the same name: warned, kept.
BAD_NAMES = {"upper": "My-Skill", "underscore": "my_skill", "leading hyphen": "-my-skill",
             "trailing hyphen": "my-skill-", "doubled hyphen": "my--skill", "too long": "a" * 65}


def place_case(root: Path, case: Case) -> Path:
    if case.text is None and case.raw is None:
        (root / "my-skill").mkdir(parents=True)
        path = root / "my-skill" / "SKILL.md"
        path.symlink_to(root / "nowhere.md")
        return path
    return make_skill(root, "my-skill", case.text, raw=case.raw)


@pytest.mark.parametrize("place", list(PLACES))
@pytest.mark.parametrize("case_id", list(CASES))
def test_malformed_files_in_every_root(machine: Machine, place: str, case_id: str) -> None:
    case = CASES[case_id]
    root = PLACES[place](machine)
    path = place_case(root, case)
    make_skill(root, "neighbour")
    skills, problems = discover_skills(machine.roots())
    names = sorted(s.name for s in skills)
    assert names == sorted(["neighbour", *([case.name] if case.kept else [])])  # the neighbour always loads
    if case.field is None:
        assert problems == []
    else:
        assert len(problems) == 1, problems
        p = problems[0]
        assert (p.path, p.field, p.level) == (str(path), case.field, "warning" if case.kept else "error")
        line = str(p)
        assert "\n" not in line and line.startswith(f"{path}: {case.field}: ")
        assert case.kept or "skipped" in line  # a skipped skill says so
    if case.kept:
        skill = next(s for s in skills if s.name == case.name)
        assert len(skill.warnings) == (0 if case.field is None else 1)


@pytest.mark.parametrize("bad", list(BAD_NAMES.values()), ids=list(BAD_NAMES))
def test_names_that_break_the_rule_are_kept_with_a_warning(tmp_path: Path, bad: str) -> None:
    root = tmp_path / "skills"
    path = make_skill(root, bad, f"---\nname: '{bad}'\ndescription: Fine.\n---\nBody.\n")
    skills, problems = discover_skills([SkillRoot(path=root, tier="workspace", label="ws")])
    assert [s.name for s in skills] == [bad]
    assert [(p.path, p.field, p.level) for p in problems] == [(str(path), "name", "warning")]


def test_optional_fields_are_read(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    make_skill(root, "pdf", "---\nname: pdf\ndescription: >-\n  Reads PDFs\n  and forms.\nlicense: MIT\n"
                            "compatibility: Needs poppler\nmetadata:\n  version: 1.0\n  author: me\n"
                            "allowed-tools: Bash(git:*) Read\nuser-invocable: false\n---\nBody\n")
    (skill,), problems = discover_skills([SkillRoot(path=root, tier="workspace", label="ws")])
    assert problems == []  # fields other tools add are ignored quietly
    assert skill == Skill(name="pdf", description="Reads PDFs and forms.", location=root / "pdf" / "SKILL.md",
                          root=skill.root, license="MIT", compatibility="Needs poppler",
                          metadata={"version": "1.0", "author": "me"},
                          allowed_tools=("Bash(git:*)", "Read"))


def test_two_folders_declaring_one_name_in_one_root_keep_the_first(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    first = make_skill(root, "alpha", "---\nname: shared\ndescription: A.\n---\nA\n")
    second = make_skill(root, "beta", "---\nname: shared\ndescription: B.\n---\nB\n")
    skills, problems = discover_skills([SkillRoot(path=root, tier="workspace", label="ws")])
    assert [s.location for s in skills] == [first]
    assert [(p.path, p.field) for p in problems] == [(str(first), "name"), (str(second), "name"),
                                                     (str(second), "name")]
    assert "shadowed" in problems[-1].message


def test_folders_without_skill_md_hidden_folders_and_files_are_ignored(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    make_skill(root, "real")
    (root / "notes").mkdir()
    (root / "README.md").write_text("not a skill", encoding="utf-8")
    make_skill(root, ".hidden")
    make_skill(root, "node_modules")
    skills, problems = discover_skills([SkillRoot(path=root, tier="workspace", label="ws")])
    assert [s.name for s in skills] == ["real"] and problems == []


def test_a_root_that_is_a_file_is_skipped(tmp_path: Path) -> None:
    (tmp_path / "skills").write_text("oops", encoding="utf-8")
    assert discover_skills([SkillRoot(path=tmp_path / "skills", tier="user", label="u")]) == ([], [])


# -- the open tier's folders -----------------------------------------------------------------


def test_open_tier_folders_follow_the_tools_environment_variables(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "claude"), "CODEX_HOME": str(tmp_path / "codex"),
           "XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    paths = [r.path for r in open_tier_roots(home=home, env=env)]
    assert tmp_path / "claude" / "skills" in paths and tmp_path / "codex" / "skills" in paths
    assert tmp_path / "xdg" / "opencode" / "skills" in paths and home / ".agents" / "skills" in paths
    assert home / ".claude" / "skills" not in paths
    assert len(paths) == len(OPEN_TIER_FOLDERS)
    assert all(r.tier == "open" and "global folder" in r.label for r in open_tier_roots(home=home, env=env))


def test_two_tools_sharing_a_folder_yield_one_root(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {"CODEX_HOME": str(home / ".agents")}  # Codex pointed at the cross-tool folder
    paths = [r.path for r in open_tier_roots(home=home, env=env)]
    assert paths.count(home / ".agents" / "skills") == 1 and len(paths) == len(OPEN_TIER_FOLDERS) - 1


def test_user_folder_defaults_to_orkas_config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ORKAS_CONFIG_DIR", str(tmp_path / "cfg"))
    roots, _ = default_skill_roots(tmp_path / "ws", open_tier=False, entry_points=False)
    assert [r.path for r in roots] == [tmp_path / "ws" / ".orkas" / "skills",
                                       tmp_path / "ws" / ".agents" / "skills", tmp_path / "cfg" / "skills"]


# -- installed packages (a real dist-info on sys.path) ---------------------------------------

ENTRY_POINTS = """\
[orkas_nb.skills]
a-folder = demo_skillpkg:FOLDER
b-callable = demo_skillpkg:roots
c-package = demo_skillpkg.bundled
d-broken = demo_skillpkg:missing
e-wrong-type = demo_skillpkg:NUMBER
"""
PACKAGE = """\
from pathlib import Path
HERE = Path(__file__).parent
FOLDER = str(HERE / "skills_a")
NUMBER = 42
def roots():
    return [HERE / "skills_b1", HERE / "skills_b2"]
"""


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    site = tmp_path / "site"
    pkg = site / "demo_skillpkg"
    (pkg / "bundled").mkdir(parents=True)
    (pkg / "__init__.py").write_text(PACKAGE, encoding="utf-8")
    (pkg / "bundled" / "__init__.py").write_text("", encoding="utf-8")
    info = site / "demo_skillpkg-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: demo-skillpkg\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(ENTRY_POINTS, encoding="utf-8")
    for sub, name in [("skills_a", "from-folder"), ("skills_b1", "from-callable"),
                      ("skills_b2", "second-root"), ("bundled", "from-package")]:
        make_skill(pkg / sub, name)
    make_skill(tmp_path / "ws" / ".orkas" / "skills", "from-folder")  # the workspace wins this one
    monkeypatch.syspath_prepend(str(site))
    importlib.invalidate_caches()
    yield pkg
    for mod in [m for m in sys.modules if m.startswith("demo_skillpkg")]:
        del sys.modules[mod]


def test_installed_packages_declare_roots_through_the_entry_point_group(installed: Path, tmp_path: Path) -> None:
    roots, problems = entry_point_roots()
    assert [r.path for r in roots] == [installed / "skills_a", installed / "skills_b1",
                                       installed / "skills_b2", installed / "bundled"]
    assert all(r.tier == "package" and r.label == "package demo-skillpkg" for r in roots)
    assert [(p.field, p.level) for p in problems] == [("orkas_nb.skills", "error")] * 2
    assert "'d-broken'" in problems[0].path and "demo-skillpkg" in problems[0].path
    assert "'e-wrong-type'" in problems[1].path and "42" in problems[1].message
    all_roots, root_problems = default_skill_roots(tmp_path / "ws", tmp_path / "cfg", open_tier=False)
    assert root_problems == problems
    skills, found = discover_skills(all_roots)
    assert {s.name: s.tier for s in skills} == {"from-folder": "workspace", "from-callable": "package",
                                                "second-root": "package", "from-package": "package"}
    assert [p.field for p in found] == ["name"] and "shadowed" in found[0].message
