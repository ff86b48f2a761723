"""Agent definitions: Markdown files with front matter, project over user, one line per mistake."""

from __future__ import annotations

from pathlib import Path

import pytest

from orkas_nb.team.definitions import (
    DEFAULT_AGENT_TOOLS,
    AgentDefinition,
    load_agent_definitions,
    write_agent_template,
)

TOOLS = {"read_file", "stat_file", "search_files", "grep_files", "write_file", "edit_file", "bash"}


def write(folder: Path, name: str, text: str, *, raw: bytes | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.md"
    if raw is not None:
        path.write_bytes(raw)
    else:
        path.write_text(text, encoding="utf-8", newline="")
    return path


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    ws, user = tmp_path / "ws", tmp_path / "config"
    return ws, user, ws / ".orkas" / "agents", user / "agents"


def load(ws: Path, user: Path, **kw) -> tuple[list[AgentDefinition], list]:  # type: ignore[no-untyped-def]
    return load_agent_definitions(ws, user, known_tools=kw.pop("known_tools", TOOLS), **kw)


GOOD = """---
name: reviewer
description: Reviews a diff for bugs and style.
model: openai/gpt-4o-mini
tools: [read_file, grep_files]
skills: [code-review]
max_steps: 12
---
You review code.
Be terse.
"""


def test_a_full_definition_is_read_with_its_body_as_system_prompt(dirs) -> None:  # type: ignore[no-untyped-def]
    ws, user, project, _ = dirs
    path = write(project, "reviewer", GOOD)
    defs, problems = load(ws, user)
    assert problems == []
    assert defs == [AgentDefinition(
        name="reviewer", description="Reviews a diff for bugs and style.", model="openai/gpt-4o-mini",
        tools=("read_file", "grep_files"), skills=("code-review",), max_steps=12,
        system_prompt="You review code.\nBe terse.", path=path, scope="project")]


def test_defaults_are_the_read_only_workspace_tools_and_the_file_name(dirs) -> None:  # type: ignore[no-untyped-def]
    ws, user, project, _ = dirs
    write(project, "scout", "---\ndescription: Finds things.\n---\nLook around.\n")
    (d,), problems = load(ws, user)
    assert problems == []
    assert (d.name, d.tools, d.skills, d.model, d.max_steps) == ("scout", DEFAULT_AGENT_TOOLS, (), None, None)
    assert set(DEFAULT_AGENT_TOOLS) == {"read_file", "stat_file", "search_files", "grep_files"}


@pytest.mark.parametrize("encode", [
    lambda t: t.replace("\n", "\r\n").encode(),
    lambda t: b"\xef\xbb\xbf" + t.encode(),
    lambda t: b"\xef\xbb\xbf" + t.replace("\n", "\r\n").encode(),
    lambda t: t.replace("\n", "\r").encode(),
], ids=["crlf", "bom", "bom+crlf", "cr"])
def test_crlf_and_bom_are_tolerated(dirs, encode) -> None:  # type: ignore[no-untyped-def]
    ws, user, project, _ = dirs
    write(project, "reviewer", "", raw=encode(GOOD))
    (d,), problems = load(ws, user)
    assert problems == []
    assert d.name == "reviewer" and d.tools == ("read_file", "grep_files")
    assert d.system_prompt == "You review code.\nBe terse."


def test_tools_as_a_comma_separated_string(dirs) -> None:  # type: ignore[no-untyped-def]
    ws, user, project, _ = dirs
    write(project, "w", "---\ndescription: d\ntools: read_file, write_file bash\n---\nx\n")
    (d,), problems = load(ws, user)
    assert d.tools == ("read_file", "write_file", "bash") and problems == []


def test_project_shadows_user_with_a_warning(dirs) -> None:  # type: ignore[no-untyped-def]
    ws, user, project, user_agents = dirs
    mine = write(project, "reviewer", GOOD)
    theirs = write(user_agents, "reviewer", GOOD.replace("Reviews a diff", "User copy"))
    only_user = write(user_agents, "helper", "---\ndescription: Helps.\n---\nHelp.\n")
    defs, problems = load(ws, user)
    assert [(d.name, d.path, d.scope) for d in defs] == [("reviewer", mine, "project"),
                                                          ("helper", only_user, "user")]
    assert [(p.path, p.field, p.level) for p in problems] == [(str(theirs), "name", "warning")]
    assert str(mine) in problems[0].message and "shadowed" in problems[0].message


# Each mistake: (file text, the field the problem names, words the message holds).
MISTAKES = {
    "bad yaml": ("---\nname: x\ndescription: [unclosed\n---\nbody\n", "front matter", "not valid YAML"),
    "not a mapping": ("---\n- a\n- b\n---\nbody\n", "front matter", "mapping"),
    "no front matter": ("just a prompt\n", "front matter", "missing"),
    "unclosed front matter": ("---\nname: x\ndescription: d\n", "front matter", "not closed"),
    "unknown tool": ("---\ndescription: d\ntools: [read_file, rm_rf]\n---\nb\n", "tools", "'rm_rf'"),
    "unknown field": ("---\ndescription: d\ntool: [bash]\n---\nb\n", "tool", "unknown field"),
    "tools not a list": ("---\ndescription: d\ntools: 3\n---\nb\n", "tools", "list"),
    "missing description": ("---\nname: x\n---\nb\n", "description", "missing"),
    "blank description": ("---\ndescription: '   '\n---\nb\n", "description", "missing"),
    "reserved user": ("---\nname: user\ndescription: d\n---\nb\n", "name", "reserved"),
    "reserved commander": ("---\nname: Commander\ndescription: d\n---\nb\n", "name", "reserved"),
    "bad name": ("---\nname: my agent!\ndescription: d\n---\nb\n", "name", "not a valid agent name"),
    "name not text": ("---\nname: [a]\ndescription: d\n---\nb\n", "name", "non-empty string"),
    "max_steps zero": ("---\ndescription: d\nmax_steps: 0\n---\nb\n", "max_steps", "positive"),
    "max_steps text": ("---\ndescription: d\nmax_steps: many\n---\nb\n", "max_steps", "positive"),
    "max_steps bool": ("---\ndescription: d\nmax_steps: true\n---\nb\n", "max_steps", "positive"),
    "model not text": ("---\ndescription: d\nmodel: 4\n---\nb\n", "model", "model string"),
    "not utf-8": (None, "file", "not UTF-8"),
}


@pytest.mark.parametrize("case", list(MISTAKES), ids=list(MISTAKES))
def test_every_mistake_is_one_line_naming_file_and_field(dirs, case: str) -> None:  # type: ignore[no-untyped-def]
    ws, user, project, _ = dirs
    text, field, words = MISTAKES[case]
    path = write(project, "agent1", text or "", raw=b"---\ndescription: caf\xe9\n---\n" if text is None else None)
    good = write(project, "zeta", "---\ndescription: fine\n---\nok\n")
    defs, problems = load(ws, user)
    assert [d.path for d in defs] == [good]  # the bad file is skipped, the others still load
    errors = [p for p in problems if p.level == "error"]
    assert len(errors) == 1, problems
    line = str(errors[0])
    assert "\n" not in line
    assert line.startswith(f"{path}: {field}: ") and words in line, line


def test_unknown_model_uses_the_check_and_its_message(dirs) -> None:  # type: ignore[no-untyped-def]
    ws, user, project, _ = dirs
    path = write(project, "a", "---\ndescription: d\nmodel: nowhere/model-x\n---\nb\n")
    write(project, "b", "---\ndescription: d\nmodel: openai/gpt-4o\n---\nb\n")
    write(project, "c", "---\ndescription: d\nmodel: other/m\n---\nb\n")

    def check(model: str) -> object:
        if model.startswith("nowhere/"):
            raise ValueError("unknown provider 'nowhere'")
        return model != "other/m"

    defs, problems = load(ws, user, check_model=check)
    assert [d.name for d in defs] == ["b"]
    assert [str(p) for p in problems] == [
        f"{path}: model: unknown model 'nowhere/model-x': unknown provider 'nowhere'",
        f"{project / 'c.md'}: model: unknown model 'other/m'",
    ]


def test_duplicate_names_in_one_folder_keep_the_first_and_name_both_files(dirs) -> None:  # type: ignore[no-untyped-def]
    ws, user, project, _ = dirs
    first = write(project, "alpha", "---\nname: shared\ndescription: d\n---\nb\n")
    second = write(project, "beta", "---\nname: Shared\ndescription: d\n---\nb\n")
    defs, problems = load(ws, user)
    assert [d.path for d in defs] == [first]
    dup = [p for p in problems if p.level == "error"]
    assert len(dup) == 1 and dup[0].path == str(second) and dup[0].field == "name"
    assert "duplicate" in dup[0].message and str(first) in dup[0].message
    # The two files' names differ from their stems: each says so, as a warning.
    assert {(p.path, p.field) for p in problems if p.level == "warning"} == {(str(first), "name"),
                                                                           (str(second), "name")}


def test_warnings_keep_the_definition(dirs) -> None:  # type: ignore[no-untyped-def]
    ws, user, project, _ = dirs
    path = write(project, "a", "---\ndescription: d\ntools: [read_file, read_file]\n---\n")
    (d,), problems = load(ws, user)
    assert d.tools == ("read_file",)
    assert sorted((p.field, p.level) for p in problems) == [("body", "warning"), ("tools", "warning")]
    assert all(p.path == str(path) for p in problems)


def test_missing_folders_are_not_a_problem(tmp_path: Path) -> None:
    assert load(tmp_path / "nothing", tmp_path / "none") == ([], [])


def test_user_folder_defaults_to_orkas_config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ORKAS_CONFIG_DIR", str(tmp_path / "cfg"))
    write(tmp_path / "cfg" / "agents", "helper", "---\ndescription: Helps.\n---\nHelp.\n")
    defs, _ = load_agent_definitions(tmp_path / "ws", known_tools=TOOLS)
    assert [(d.name, d.scope) for d in defs] == [("helper", "user")]


def test_unreadable_entries_are_reported_not_ignored(dirs) -> None:  # type: ignore[no-untyped-def]
    ws, user, project, _ = dirs
    (project / "odd.md").mkdir(parents=True)
    (project / "gone.md").symlink_to(project / "missing-target.md")
    defs, problems = load(ws, user)
    assert defs == []
    assert [(p.path, p.field, p.level) for p in problems] == [
        (str(project / "gone.md"), "file", "error"), (str(project / "odd.md"), "file", "error")]
    assert all("cannot be read" in p.message for p in problems)


def test_the_template_loads_clean_and_is_never_overwritten(dirs) -> None:  # type: ignore[no-untyped-def]
    ws, user, project, _ = dirs
    path = write_agent_template(project, "analyst")
    assert path == project / "analyst.md"
    (d,), problems = load(ws, user)
    assert problems == [] and d.name == "analyst" and d.tools == DEFAULT_AGENT_TOOLS
    assert d.description and d.system_prompt.startswith("You are analyst.")
    path.write_text("mine", encoding="utf-8")
    with pytest.raises(FileExistsError, match="already exists"):
        write_agent_template(project, "analyst")
    assert path.read_text(encoding="utf-8") == "mine"


@pytest.mark.parametrize("name,words", [("user", "reserved"), ("COMMANDER", "reserved"),
                                        ("a b", "not a valid"), ("../x", "not a valid"), ("", "non-empty")])
def test_the_template_refuses_bad_names(tmp_path: Path, name: str, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        write_agent_template(tmp_path / "agents", name)
    assert not (tmp_path / "agents").exists() or list((tmp_path / "agents").iterdir()) == []


@pytest.mark.parametrize("value, argv", [
    ('"my-agent --print {task}"', ("my-agent", "--print", "{task}")),
    ('["python3", "agent.py", "--fast"]', ("python3", "agent.py", "--fast")),
])
def test_an_external_agent_names_its_command(dirs, value, argv) -> None:
    ws, user, project, _ = dirs
    write(project, "outside", f"---\nname: outside\ndescription: An agent of another tool.\n"
                              f"command: {value}\n---\n")
    found, problems = load(ws, user)
    assert [d.command for d in found] == [argv]
    assert problems == []  # no body is needed: the program is the agent


@pytest.mark.parametrize("value", ['""', "[]", "[1, 2]", '"unclosed \'quote"', "{a: b}"])
def test_a_bad_command_is_one_problem_line(dirs, value) -> None:
    ws, user, project, _ = dirs
    write(project, "outside", f"---\nname: outside\ndescription: x\ncommand: {value}\n---\nbody\n")
    found, problems = load(ws, user)
    assert found == [] and [p.field for p in problems] == ["command"]


def test_an_external_agent_names_the_variables_it_is_given(dirs) -> None:
    ws, user, project, _ = dirs
    write(project, "outside", "---\nname: outside\ndescription: x\ncommand: my-agent\n"
                              "env: [HF_TOKEN, DATA_DIR]\n---\n")
    write(project, "inside", "---\nname: inside\ndescription: x\nenv: [HF_TOKEN]\n---\nbody\n")
    found, problems = load(ws, user)
    assert {d.name: d.env for d in found} == {"outside": ("HF_TOKEN", "DATA_DIR"), "inside": ()}
    assert [(p.field, p.level) for p in problems] == [("env", "warning")]  # inside: no command


@pytest.mark.parametrize("value", ['["bad-name"]', '["ORKAS_GATEWAY_TOKEN"]', "{a: b}", "[1]"])
def test_a_bad_env_entry_is_one_problem_line(dirs, value) -> None:
    ws, user, project, _ = dirs
    write(project, "outside", f"---\nname: outside\ndescription: x\ncommand: a\nenv: {value}\n---\n")
    found, problems = load(ws, user)
    assert found == [] and [p.field for p in problems] == ["env"]
