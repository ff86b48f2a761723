"""External packages (issue 17): cloned from a real git server on loopback (``git daemon`` on
127.0.0.1, stopped by its PID), refused with a symlink anywhere or from a disallowed source,
their skills at the external tier, their CLIs run through the one sandboxed bash executor."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from orkas_nb.connectors.packages import PackageRefused, Packages
from orkas_nb.core.errors import ConfigError
from orkas_nb.harness.approval import Decision
from tests.fakes.git_server import GitDaemon

HELLO = "#!/bin/sh\necho \"hello from the package: $*\"\n"
PREFIX = "#!/usr/bin/env python3\nimport sys\nprint('prefix', sys.prefix)\n"
SKILL = "---\nname: {name}\ndescription: Says {name} things.\n---\nRun `{name}` and report.\n"


@pytest.fixture
def git_server(tmp_path: Path):
    server = GitDaemon(tmp_path / "served").start()
    yield server
    server.stop()


@pytest.fixture
def managed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Packages:
    monkeypatch.setenv("ORKAS_PACKAGES_DIR", str(tmp_path / "managed"))
    return Packages()


def _leftovers(packages: Packages) -> list[str]:
    root = packages.root
    return sorted(str(p.relative_to(root)) for p in root.rglob("*")
                  if p.name not in (".lock",) and p.is_file()) if root.exists() else []


def test_install_a_cli_package_and_run_its_relay(git_server, managed) -> None:
    url = git_server.publish("hello-cli", {"bin/hello": (HELLO, 0o755), "README.md": "x"})
    record = managed.install(url)
    assert record.name == "hello-cli" and record.kinds == ["cli"] and record.relays == ["hello"]
    assert len(record.commit) == 40
    # The registry is outside the package folder; the clone is as it was published.
    saved = json.loads(managed.registry_path.read_text())
    assert saved["packages"][0]["url"] == url
    assert not (managed.source("hello-cli") / "registry.json").exists()
    assert (managed.source("hello-cli") / "bin" / "hello").read_text() == HELLO
    assert not list((managed.source("hello-cli") / ".git").glob("hooks/*"))  # no hooks at all
    out = subprocess.run([str(managed.bin_dir / "hello"), "a", "b"], capture_output=True, text=True)
    assert out.stdout == "hello from the package: a b\n"


@pytest.mark.parametrize("where", ["top", "deep/inside/a/folder", "skills/s"])
def test_a_symlink_anywhere_is_refused_and_nothing_is_kept(git_server, managed, tmp_path,
                                                           where) -> None:
    files = {"bin/hello": (HELLO, 0o755), f"{where}/link": ("->", "/etc/passwd")}
    url = git_server.publish("linked", files)
    with pytest.raises(PackageRefused, match="symbolic link"):
        managed.install(url)
    assert managed.list() == []
    assert _leftovers(managed) == []
    assert not (managed.root / "src" / "linked").exists()
    assert not (managed.bin_dir / "hello").exists()


@pytest.mark.parametrize("url", [
    "file:///tmp/some/repo.git", "/tmp/some/repo", "ext::sh -c touch% /tmp/pwned",
    "fd::17", "git://example.com/repo.git", "http://example.com/repo.git", "ftp://h/r.git",
    "--upload-pack=touch /tmp/pwned", "",
])
def test_disallowed_sources_are_refused_before_git_runs(managed, url) -> None:
    with pytest.raises(PackageRefused):
        managed.install(url, name="x")
    assert managed.list() == [] and _leftovers(managed) == []


def test_git_is_held_to_the_checked_protocol(git_server, tmp_path, monkeypatch) -> None:
    """A file:// repository reached through a git:// one (a submodule) is never fetched: git
    itself refuses the protocol, whatever the URL check let through."""
    from orkas_nb.connectors import package_git

    inner = tmp_path / "inner"
    subprocess.run(["git", "init", "-q", str(inner)], check=True)
    with pytest.raises(ConfigError, match="transport 'file' not allowed|not allowed"):
        package_git._git(["ls-remote", f"file://{inner}"], "git")


def test_skills_of_a_package_join_at_the_external_tier(git_server, managed, tmp_path) -> None:
    from orkas_nb.agent.skills_wiring import discover

    one = git_server.publish("solo-skill", {"SKILL.md": SKILL.format(name="solo-skill")})
    many = git_server.publish("bundle", {
        "skills/alpha/SKILL.md": SKILL.format(name="alpha"),
        "skills/beta/SKILL.md": SKILL.format(name="beta")})
    assert managed.install(one).kinds == ["skill"]
    assert managed.install(many).kinds == ["skill"]
    ws = tmp_path / "ws"
    (ws / ".orkas" / "skills" / "alpha").mkdir(parents=True)
    (ws / ".orkas" / "skills" / "alpha" / "SKILL.md").write_text(SKILL.format(name="alpha"))
    skills, problems = discover(ws, open_tier=False, user_dir=tmp_path / "user")
    by_name = {s.name: s for s in skills}
    assert by_name["solo-skill"].tier == "external" and by_name["beta"].tier == "external"
    assert by_name["alpha"].tier == "workspace"  # the workspace wins a name (priority)
    assert any("shadowed" in p.message for p in problems)


def test_update_and_remove(git_server, managed) -> None:
    url = git_server.publish("tool", {"bin/hello": (HELLO, 0o755)})
    first = managed.install(url)
    git_server.publish("tool", {"bin/bye": ("#!/bin/sh\necho bye\n", 0o755)})
    second = managed.update("tool")
    assert second.commit != first.commit and sorted(second.relays) == ["bye", "hello"]
    # A new version with a symlink is refused; the installed one stays as it was.
    git_server.publish("tool", {"docs/link": ("->", "../../../../etc/shadow")})
    with pytest.raises(PackageRefused, match="symbolic link"):
        managed.update("tool")
    assert managed.get("tool").commit == second.commit
    assert not (managed.source("tool") / "docs" / "link").exists()
    managed.remove("tool")
    assert managed.list() == [] and not managed.source("tool").exists()
    assert not (managed.bin_dir / "hello").exists() and not (managed.bin_dir / "bye").exists()
    with pytest.raises(ConfigError, match="no package named"):
        managed.remove("tool")


def test_a_command_name_owned_by_another_package_is_refused(git_server, managed) -> None:
    managed.install(git_server.publish("one", {"bin/hello": (HELLO, 0o755)}))
    with pytest.raises(ConfigError, match="already provides"):
        managed.install(git_server.publish("two", {"bin/hello": (HELLO, 0o755)}))
    assert [p.name for p in managed.list()] == ["one"]


def test_dependencies_ask_once_and_remember(git_server, managed) -> None:
    asked: list[str] = []

    def ask(name: str, question: str) -> bool:
        asked.append(question)
        return True

    files = {"bin/where": (PREFIX, 0o755), "requirements.txt": "# nothing to fetch\n"}
    url = git_server.publish("deps", files)
    record = managed.install(url, ask_deps=ask)
    assert record.deps == "installed" and len(asked) == 1 and "pip" in asked[0]
    env = managed.env("deps")
    # The package's script runs in the package's own environment.
    out = subprocess.run([str(managed.bin_dir / "where")], capture_output=True, text=True)
    assert out.stdout.strip() == f"prefix {env}"
    git_server.publish("deps", {"README.md": "new docs"})
    managed.update("deps", ask_deps=ask)
    assert len(asked) == 1  # same manifest: remembered
    git_server.publish("deps", {"requirements.txt": "# changed\n"})
    assert managed.update("deps", ask_deps=lambda n, q: asked.append(q) or False).deps == "declined"
    assert len(asked) == 2  # a changed manifest asks again
    managed.update("deps", ask_deps=ask)
    assert len(asked) == 2  # and the refusal is remembered too


def test_python_entry_points_run_without_an_install(git_server, managed) -> None:
    files = {"pyproject.toml": "[project]\nname='greet'\nversion='0'\n[project.scripts]\n"
                               "greet = 'greetpkg.cli:main'\n",
             "src/greetpkg/__init__.py": "",
             "src/greetpkg/cli.py": "import sys\ndef main():\n    print('greet', sys.argv[1:])\n"}
    record = managed.install(git_server.publish("greet", files))
    assert record.relays == ["greet"] and record.deps == "none"
    out = subprocess.run([str(managed.bin_dir / "greet"), "x"], capture_output=True, text=True)
    assert out.stdout.strip() == "greet ['x']", out.stderr


def test_a_repository_with_nothing_to_offer_is_refused(git_server, managed) -> None:
    with pytest.raises(PackageRefused, match="neither a skill"):
        managed.install(git_server.publish("empty", {"README.md": "nothing"}))
    assert _leftovers(managed) == []


def test_a_damaged_registry_is_a_clear_error(managed) -> None:
    managed.root.mkdir(parents=True)
    managed.registry_path.write_text("{not json")
    with pytest.raises(ConfigError, match="cannot be read"):
        managed.list()
    assert managed.skill_roots() == [] and managed.has_commands() is False


# -- through the one sandboxed bash executor ---------------------------------------------------

MODES = ["auto", "off"]


@pytest.mark.parametrize("isolation", MODES)
async def test_the_cli_runs_through_the_sandboxed_bash(git_server, managed, tmp_path,
                                                       isolation) -> None:
    from orkas_nb.agent.assembly import assemble_tools
    from orkas_nb.harness.cancellation import AbortSignal
    from orkas_nb.harness.tool_protocol import ToolContext
    from orkas_nb.tools.sandbox import isolation_status

    if isolation == "auto" and not isolation_status("auto").isolated:
        pytest.skip("bubblewrap unavailable")
    files = {"bin/hello": (HELLO, 0o755), "bin/write-here": (
        "#!/bin/sh\ntouch \"$(dirname \"$0\")/../planted\" 2>/dev/null && echo WROTE || echo "
        "read-only\n", 0o755)}
    managed.install(git_server.publish("hello-cli", files))
    ws = tmp_path / "ws"
    ws.mkdir()
    asked = []

    def approve(request):
        asked.append(request.category)
        return Decision.ONCE

    tools = {t.name: t for t in assemble_tools(ws, approver=approve,
                                               settings={"isolation": isolation})}
    ctx = ToolContext(workspace=ws, call_id="c1", agent="agent", abort=AbortSignal())
    out = await tools["bash"].execute({"command": "hello world; write-here"}, ctx)
    assert "hello from the package: world" in out.text, out.text
    if isolation == "auto":
        # Inside bubblewrap the package folder is bound read-only and nothing was asked.
        assert "read-only" in out.text and asked == []
        assert not (managed.source("hello-cli") / "planted").exists()
    else:
        # Degraded mode: the grader asks before it runs a program it cannot read.
        assert "unconfined_code" in asked


def test_a_managed_folder_the_sandbox_must_hide_is_left_out(git_server, managed, tmp_path,
                                                            monkeypatch, caplog) -> None:
    from orkas_nb.agent.assembly import assemble_tools

    managed.install(git_server.publish("hello-cli", {"bin/hello": (HELLO, 0o755)}))
    # The same packages, seen from inside a credential folder (~/.ssh): never bound.
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    moved = home / ".ssh" / "managed"
    managed.root.rename(moved)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("ORKAS_PACKAGES_DIR", str(moved))
    ws = tmp_path / "ws"
    ws.mkdir()
    tools = assemble_tools(ws)  # builds: the packages are left out, with a warning
    assert "bash" in [t.name for t in tools]
    assert "left out" in caplog.text
