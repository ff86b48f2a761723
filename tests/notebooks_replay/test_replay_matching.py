"""What a cassette matches: everything the model sees except what the host alone decides.

Tool descriptions and the system prompt name no capability of the machine, so a change to a
tool's name, schema or description, to a message or to a tool result still fails the replay;
the one text skipped is a host note ending a tool result (bash says there whether the command
ran in the sandbox).
"""

from __future__ import annotations

import sysconfig
from pathlib import Path
from typing import Any

import pytest

from orkas_nb import Agent
from orkas_nb.core.errors import ReplayMismatchError
from orkas_nb.core.messages import (
    AssistantMessage,
    ToolCallBlock,
    ToolResultMessage,
    tool_result,
    user_message,
)
from orkas_nb.harness.tool_protocol import ToolRegistry
from orkas_nb.providers.base import ModelRequest, ToolSpec
from orkas_nb.providers.cassette import (
    HOST_NOTE,
    RecordingProvider,
    ReplayProvider,
    normalise_request,
)
from orkas_nb.testing import ScriptedModel, call, reply
from orkas_nb.tools import default_tools, sandbox
from orkas_nb.tools.bash import SANDBOX_NOTE, UNCONFINED_NOTE
from orkas_nb.tools.sandbox import IsolationStatus

SCHEMA = {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]}
SANDBOXED = "\n" + SANDBOX_NOTE.format(allowed="", net="; there is no network")
UNCONFINED = "\n" + UNCONFINED_NOTE


def request(*, result: str = "done\n[exit code 1]", prompt: str = "clean up", name: str = "bash",
            description: str = "Run a command.", schema: dict[str, Any] | None = None) -> ModelRequest:
    asked = ToolCallBlock(id="c-9f2", name=name, arguments={"command": "make clean"})
    return ModelRequest(
        model="m", system="You work here.",
        tools=[ToolSpec(name=name, description=description, input_schema=schema or SCHEMA)],
        messages=[user_message(prompt), AssistantMessage(content=[asked]), tool_result(asked, result)])


@pytest.fixture
def cassette(tmp_path: Path) -> Path:
    """A cassette of one call, recorded where bash ran in the sandbox and a command failed."""
    import asyncio

    path = tmp_path / "c.jsonl"
    asyncio.run(RecordingProvider(ScriptedModel(["ok"]), path).complete(
        request(result="done\n[exit code 1]" + SANDBOXED)))
    return path


@pytest.mark.parametrize("note", [SANDBOXED, UNCONFINED, ""], ids=["sandboxed", "unconfined", "none"])
async def test_a_host_note_is_the_one_difference_a_replay_skips(cassette: Path, note: str) -> None:
    done = await ReplayProvider(cassette).complete(request(result="done\n[exit code 1]" + note))
    assert done.message.text == "ok"


@pytest.mark.parametrize("changed", [
    {"name": "shell"},
    {"schema": {**SCHEMA, "required": []}},
    {"description": "Run a command in a sandbox."},
    {"prompt": "clean up everything"},
    {"result": "done\n[exit code 2]" + SANDBOXED},
    # a note is skipped only as the last line: text after it is still the result
    {"result": "done\n[exit code 1]" + SANDBOXED + "\nrm: cannot remove 'build'"},
    {"result": "[host: the command ran in the sandbox]\n[exit code 1]"},
], ids=["tool name", "schema", "description", "message", "result", "text after a note",
        "note replacing the result"])
async def test_any_other_change_still_fails_the_replay(cassette: Path, changed: dict[str, Any]) -> None:
    with pytest.raises(ReplayMismatchError, match="call 1 of 1 does not match"):
        await ReplayProvider(cassette).complete(request(**changed))


def test_a_note_in_what_the_user_wrote_is_matched() -> None:
    plain = normalise_request(request(prompt="clean up"))
    noted = normalise_request(request(prompt="clean up" + UNCONFINED))
    assert plain != noted


def _specs(workspace: Path, **settings: Any) -> list[dict[str, Any]]:
    registry = ToolRegistry()
    for t in default_tools(workspace, settings=settings):
        registry.add(t)
    return [spec.model_dump() for spec in registry.specs()]


@pytest.mark.parametrize("network", [False, True])
def test_tool_descriptions_are_the_same_with_or_without_bubblewrap(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, network: bool) -> None:
    seen = {}
    for host, status in {
        "bubblewrap runs": IsolationStatus("bubblewrap", "bubblewrap (/usr/bin/bwrap)"),
        "bubblewrap refused": IsolationStatus("none", "bubblewrap is installed but refused to run "
                                              "here (bwrap: No permissions to create new namespace)"),
        "no bubblewrap": IsolationStatus("none", "bubblewrap is not installed"),
    }.items():
        monkeypatch.setattr(sandbox, "_probe", lambda status=status: status)
        seen[host] = _specs(tmp_path, network=network)
    assert seen["bubblewrap runs"] == seen["bubblewrap refused"] == seen["no bubblewrap"]
    bash = next(s for s in seen["no bubblewrap"] if s["name"] == "bash")
    assert ("there is no network" in bash["description"]) is not network  # a setting, not the host


async def test_a_failing_command_says_how_it_ran_in_a_note_matching_skips(tmp_path: Path) -> None:
    model = ScriptedModel([reply("", call("bash", command="echo partial; exit 3")), reply("done")])
    agent = Agent(model, workspace=tmp_path, tool_settings={"isolation": "off"})
    await agent.arun("go")
    result = next(m for m in agent.messages if isinstance(m, ToolResultMessage))
    assert result.text.endswith(UNCONFINED) and result.text.splitlines()[-1].startswith(HOST_NOTE)
    asked = next(m for m in agent.messages if isinstance(m, AssistantMessage)).tool_calls[0]
    here = ModelRequest(model="m", messages=[AssistantMessage(content=[asked]), result])
    sandboxed = result.model_copy(update={"content": [
        b.model_copy(update={"text": b.text.replace(UNCONFINED, SANDBOXED)}) for b in result.content]})
    there = ModelRequest(model="m", messages=[AssistantMessage(content=[asked]), sandboxed])
    assert normalise_request(here) == normalise_request(there)
    assert "partial\n[exit code 3]" in normalise_request(here)["messages"][1]["content"][0]["text"]


@pytest.mark.parametrize("folder", ['it\'s "quoted"', "back\\slash", "données"])
def test_workspace_paths_with_any_characters_are_normalised(tmp_path: Path, folder: str) -> None:
    ws = tmp_path / folder
    ws.mkdir()
    seen = normalise_request(request(result=f"wrote {ws}/out.csv"), roots=[ws])
    assert seen["messages"][-1]["content"][0]["text"] == "wrote <ROOT>/out.csv"


def test_this_pythons_library_paths_are_normalised() -> None:
    site, stdlib = sysconfig.get_paths()["purelib"], sysconfig.get_paths()["stdlib"]
    trace = f'File "{site}/pkg/mod.py", line 3\nFile "{stdlib}/json/decoder.py", line 9'
    text = normalise_request(request(result=trace))["messages"][-1]["content"][0]["text"]
    assert text == 'File "<SITE>/pkg/mod.py", line 3\nFile "<STDLIB>/json/decoder.py", line 9'


def test_variable_sizes_do_not_depend_on_the_python_version() -> None:
    import numpy as np

    from orkas_nb.notebook.kernel_tools import describe

    assert describe({"Jan": 120, "Feb": 95}) == ("dict", "len 2", "")
    assert describe("x" * 50) == ("str", "len 50", "")
    assert describe(np.arange(12.0).reshape(3, 4)) == ("numpy.ndarray", "3×4", "96 B")
