"""%agent packages in a real kernel: install from a git daemon on loopback, list, a %%agent run
whose model calls the package's command through bash and sees its skill, update and remove."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.git_server import GitDaemon

from .conftest import SETUP
from .kernel import Kernel

pytestmark = [pytest.mark.kernel, pytest.mark.slow]

SKILL = "---\nname: greeting\ndescription: Greets people with the hello command.\n---\nRun hello.\n"


@pytest.fixture(scope="module")
def setup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Kernel, GitDaemon, Path]]:
    base = tmp_path_factory.mktemp("packages")
    ws = base / "project"
    ws.mkdir()
    server = GitDaemon(base / "served").start()
    env = {"ORKAS_RENDERER": "text", "ORKAS_CONFIG_DIR": str(base / "config"),
           "ORKAS_PACKAGES_DIR": str(base / "managed"),
           # Without bubblewrap a package's command cannot be confined and asks (unconfined_code);
           # nobody answers in a headless kernel, so the user's allow-list grants it, as a user
           # on such a machine would. With isolation the category never comes up.
           "ORKAS_ALLOW": "unconfined_code"}
    try:
        with Kernel(ws, env=env) as k:
            k.run(SETUP)
            yield k, server, base / "managed"
    finally:
        server.stop()


def test_install_list_use_and_remove(setup: tuple[Kernel, GitDaemon, Path]) -> None:
    k, server, managed = setup
    assert "no external packages" in k.run("%agent packages").stream()
    url = server.publish("greeter", {
        "bin/hello": ("#!/bin/sh\necho \"HELLO-7731 $*\"\n", 0o755),
        "skills/greeting/SKILL.md": SKILL})
    out = k.run(f"%agent packages install {url}").stream()
    assert "installed greeter (skill, cli)" in out and "commands (on the bash tool's PATH): hello" in out
    listed = k.run("%agent packages").stream()
    assert "greeter  skill, cli" in listed and url in listed
    k.run("m = ScriptedModel([reply('', call('bash', command='hello notebook')), reply('done')])")
    k.run("%%agent -m $m\ngreet the notebook")
    assert "HELLO-7731 notebook" in k.value("last_prompt(m, 1)")
    assert "<name>greeting</name>" in k.value("m.requests[0].system")
    skills = k.run("%agent skills").stream()
    assert "external package greeter" in skills and "greeting: Greets people" in skills
    again = k.run(f"%agent packages install {url}", allow_error=True).stream("stderr")
    assert again.startswith("UsageError: ") and "already installed" in again
    bad = k.run("%agent packages install file:///etc", allow_error=True).stream("stderr")
    assert bad.startswith("UsageError: ") and "not allowed" in bad
    assert "removed greeter" in k.run("%agent packages remove greeter").stream()
    k.run("m = ScriptedModel([reply('', call('bash', command='hello notebook')), reply('done')])")
    k.run("%%agent -m $m\ngreet the notebook")
    assert "HELLO-7731" not in k.value("last_prompt(m, 1)")
    assert not (managed / "src" / "greeter").exists()


def test_agents_lists_an_external_agents_command(setup: tuple[Kernel, GitDaemon, Path]) -> None:
    k, _, _ = setup
    ws = Path(k.value("str(__import__('os').getcwd())"))
    folder = ws / ".orkas" / "agents"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "outside.md").write_text("---\nname: outside\ndescription: Another tool's agent.\n"
                                       "command: [other-agent, --print, '{task}']\n---\n")
    listed = k.run("%agent agents").stream()
    assert "outside  (project:" in listed and "command     other-agent --print '{task}'" in listed


def test_dependencies_wait_when_no_one_can_answer(setup: tuple[Kernel, GitDaemon, Path]) -> None:
    k, server, managed = setup
    url = server.publish("needs", {"bin/needs": ("#!/bin/sh\necho needs\n", 0o755),
                                   "requirements.txt": "# nothing to fetch\n"})
    # A kernel without stdin cannot ask: nothing is installed and nothing is remembered.
    out = k.run(f"%agent packages install {url}").stream()
    assert "no answer could be asked" in out and "not installed yet" in out
    assert not (managed / "envs" / "needs").exists()
    out = k.run("%agent packages update needs --deps yes").stream()
    assert "installed in its own environment" in out and (managed / "envs" / "needs" / "bin").is_dir()
    k.run("%agent packages remove needs")
