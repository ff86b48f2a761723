"""What a command sees inside bubblewrap (SPEC §8 facts), and the environment builder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from orkas_nb.core.errors import ToolError
from orkas_nb.harness.approval import Decision
from orkas_nb.tools.sandbox import build_env, check_env_name

from .conftest import CANARIES, HAS_BWRAP, Recorder

isolated_only = pytest.mark.skipif(not HAS_BWRAP, reason="bubblewrap unavailable")


@isolated_only
async def test_inside_the_sandbox(world, make_caller) -> None:
    call = make_caller("isolated", approver=lambda r: Decision.ONCE)
    ok, text, _ = await call("bash", command=(
        "echo made > made.txt; "
        "ls -A .orkas | wc -l; "
        f"test -e {world.outside}/canary.txt && echo OUTSIDE-VISIBLE; "
        "(cat /etc/shadow 2>/dev/null | grep -c :) ; "
        "touch /usr/local/x 2>/dev/null || echo system-read-only; "
        "echo hook >> .git/hooks/pre-commit 2>/dev/null || echo hooks-read-only; "
        "cat /proc/1/cmdline | tr '\\0' ' ' | cut -c1-5"))
    lines = text.splitlines()
    assert ok, text
    assert (world.ws / "made.txt").read_text() == "made\n"  # the workspace is writable
    assert lines[0] == "0"  # .orkas is an empty mount inside
    assert "OUTSIDE-VISIBLE" not in text
    assert lines[1] == "0"  # /etc/shadow is masked (unreadable)
    assert "system-read-only" in text and "hooks-read-only" in text
    assert lines[-2].startswith("bwrap")  # its own PID namespace: the kernel is not visible
    assert not (world.ws / ".git" / "hooks" / "pre-commit").exists()


@isolated_only
async def test_secret_files_masked_until_consent(world, make_caller) -> None:
    recorder = Recorder(answer=Decision.DENY)
    call = make_caller("isolated", approver=recorder)
    # python builds the name at run time: the grader cannot see it, the mask does.
    code = "python3 -c \"print(repr(open('.e'+'nv').read()))\""
    ok, text, _ = await call("bash", command=code)
    assert not ok and "Permission denied" in text and CANARIES["env"] not in text
    assert "secret files" in text  # the sandbox note says why
    assert recorder.asked == []
    recorder.answer = Decision.ONCE
    ok, text, _ = await call("bash", command="cat .env")
    assert ok and CANARIES["env"] in text and recorder.asked[-1].category == "sensitive_path"


@isolated_only
async def test_network_only_when_allowed(world, make_caller) -> None:
    url = f"http://127.0.0.1:{world.server.port}/"
    cmd = f"python3 -c \"import urllib.request as u; print(u.urlopen('{url}', timeout=3).read())\""
    ok, text, _ = await make_caller("isolated")("bash", command=cmd)
    assert not ok and "there is no network" in text and world.server.hits == []
    recorder = Recorder(answer=Decision.DENY)
    ok, text, _ = await make_caller("isolated", network=True, approver=recorder)(
        "bash", command=f"curl -s {url}")
    assert not ok and "network_local" in text and world.server.hits == []
    from orkas_nb.tools import _netns

    ok, text, _ = await make_caller("isolated", network=True)("bash", command=cmd)
    if _netns.available():
        # The network goes through slirp4netns: loopback stays closed to code the grader
        # cannot read.
        assert not ok and "Connection refused" in text and world.server.hits == []
    else:
        # Host network: a loopback service is reachable (the status says so).
        assert ok and CANARIES["jupyter"] in text


def test_build_env_allow_list(monkeypatch) -> None:
    base = {"PATH": "/usr/bin", "LANG": "C.UTF-8", "LC_ALL": "C", "OPENAI_API_KEY": "sk",
            "AWS_SECRET_ACCESS_KEY": "x", "GITHUB_TOKEN": "t", "JPY_SESSION_NAME": "nb",
            "RANDOM_THING": "r", "PYENV_VERSION": "3.11"}
    env = build_env(base, Path("/home/u"), extra_names=["RANDOM_THING", "GITHUB_TOKEN"],
                    values={"MODE": "x"}, per_call={"RUN": "1"})
    assert env["PATH"] == "/usr/bin" and env["LC_ALL"] == "C" and env["RANDOM_THING"] == "r"
    assert env["HOME"] == "/home/u" and env["MODE"] == "x" and env["RUN"] == "1"
    for secret in ("OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY", "GITHUB_TOKEN", "JPY_SESSION_NAME"):
        assert secret not in env  # even when allowed by name
    for bad in ("LD_PRELOAD", "BASH_ENV", "GIT_SSH_COMMAND", "1X", "A-B", "PS4"):
        with pytest.raises(ToolError):
            check_env_name(bad)
    assert "OPENAI_API_KEY" not in build_env(os.environ, Path("/h"))


def test_mask_scan_cache_sees_new_links_and_secrets(tmp_path: Path) -> None:
    import time

    from orkas_nb.tools.sandbox import scan_masked

    ws = tmp_path / "ws"
    sub = ws / "sub"
    sub.mkdir(parents=True)
    (sub / "a.txt").write_text("a")
    outside = tmp_path / "outside.txt"
    outside.write_text("o")
    old = time.time_ns() - 10_000_000_000  # older than the two-second rescan window
    os.utime(sub, ns=(old, old))
    os.utime(ws, ns=(old, old))
    assert scan_masked(ws) == ([], [], [])
    os.link(outside, sub / "b.txt")
    os.utime(sub, ns=(old + 1, old + 1))  # a new name changes the folder's time: rescanned
    assert scan_masked(ws) == ([], [sub / "b.txt"], [])
    (sub / ".env").write_text("K=v")
    os.utime(sub, ns=(old + 2, old + 2))
    assert scan_masked(ws) == ([sub / ".env"], [sub / "b.txt"], [])
    (sub / ".SSH").mkdir()  # a credential folder by name, any case: masked, not descended
    (sub / ".SSH" / "id_ed25519").write_text("k")
    os.utime(sub, ns=(old + 3, old + 3))
    assert scan_masked(ws) == ([sub / ".env"], [sub / "b.txt"], [sub / ".SSH"])


@isolated_only
async def test_filtered_network_reaches_out_but_not_loopback(world, make_caller) -> None:
    """With slirp4netns the sandbox has a real link: a service on the machine's own non-loopback
    address answers (standing in for the internet), the same service on loopback does not."""
    import http.server
    import socket
    import threading

    from orkas_nb.tools import _netns

    if not _netns.available():
        pytest.skip("slirp4netns is not installed")
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))  # no packet is sent: this only picks the outgoing address
        address = probe.getsockname()[0]
    finally:
        probe.close()
    if address.startswith("127."):
        pytest.skip("no non-loopback address on this machine")

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"OUTSIDE-REACHED")

        def log_message(self, *args) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("0.0.0.0", 0), Handler)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    port = server.server_address[1]
    try:
        call = make_caller("isolated", network=True, approver=lambda r: Decision.ONCE)
        fetch = "python3 -c \"import urllib.request as u; print(u.urlopen('http://{}:{}/', timeout=3).read())\""
        ok, text, _ = await call("bash", command=fetch.format(address, port))
        assert ok and "OUTSIDE-REACHED" in text, text
        for host in ("127.0.0.1", "10.0.2.2"):  # loopback, and slirp's gateway to it
            ok, text, _ = await call("bash", command=fetch.format(host, port))
            assert not ok and "OUTSIDE-REACHED" not in text, (host, text)
        ok, text, _ = await call("bash", command=fetch.format(address, port), background=True)
        job = text.split()[3].rstrip(";")
        import asyncio
        import time

        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            ok, text, _ = await call("bash_poll", job_id=job)
            if "exited" in text:
                break
            await asyncio.sleep(0.1)
        assert "exited with code 0" in text and "OUTSIDE-REACHED" in text, text
    finally:
        server.shutdown()
        server.server_close()


def test_toolchain_folders_are_bound_as_themselves(tmp_path: Path) -> None:
    """Each PATH entry is bound as itself plus what its programs provably need; never a parent
    (other projects, a team's data, the workspace's neighbours), the home, /tmp or a credential
    folder, whatever PATH says."""
    from orkas_nb.tools._binds import toolchain_dirs
    from orkas_nb.tools.credentials import credential_paths
    from orkas_nb.tools.sandbox import SYSTEM_RO

    home = tmp_path / "home"
    ws = home / "work" / "ws"
    venv = home / "work" / ".venv"
    pipx = home / ".local" / "pipx" / "venvs" / "black"
    team = tmp_path / "data" / "team" / "tools" / "bin"
    beside = home / "work" / "tools" / "bin"
    for d in (ws, venv / "bin", venv / "lib", pipx / "bin", pipx / "lib", home / ".local" / "bin",
              team, beside, home / ".ssh" / "bin", home / ".cargo" / "bin"):
        d.mkdir(parents=True)
    for cfg in (venv / "pyvenv.cfg", pipx / "pyvenv.cfg"):
        cfg.write_text("home = /usr/bin\ninclude-system-site-packages = false\n")
    (pipx / "bin" / "black").write_text("#!/bin/sh\n")
    (home / ".local" / "bin" / "black").symlink_to(pipx / "bin" / "black")
    notes = home / "work" / "notes"  # a program linked from a folder of user data
    notes.mkdir()
    (notes / "run.sh").write_text("#!/bin/sh\n")
    (notes / "diary.txt").write_text("private")
    (home / ".local" / "bin" / "run").symlink_to(notes / "run.sh")
    (home / ".local" / "bin" / "key").symlink_to(home / ".cargo" / "credentials.toml")
    (home / ".cargo" / "credentials.toml").write_text("token")
    node = home / ".nvm" / "versions" / "node" / "v20"  # npm links into its own lib/
    (node / "lib" / "node_modules" / "npm" / "bin").mkdir(parents=True)
    (node / "bin").mkdir()
    (node / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js").write_text("")
    (node / "bin" / "npm").symlink_to(node / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js")
    (node / "share").mkdir()
    (home / ".cargo" / "bin" / "rustup").write_text("")  # rustup's proxies need ~/.rustup
    (home / ".rustup" / "toolchains").mkdir(parents=True)
    pyenv = home / ".pyenv"  # pyenv's shims need its libexec/ (and versions/)
    (pyenv / "libexec").mkdir(parents=True)
    (pyenv / "libexec" / "pyenv").write_text("")
    (pyenv / "shims").mkdir()
    path = [venv / "bin", team, beside, home / ".local" / "bin", home / ".ssh" / "bin",
            home / ".cargo" / "bin", home, tmp_path, home / "work", Path("/"), Path("/tmp"),
            node / "bin", pyenv / "shims"]
    env = {"PATH": ":".join(map(str, path)) + ":relative/bin", "VIRTUAL_ENV": str(home / "work")}
    got = {p for p in toolchain_dirs(env, home, [ws], credential_paths(home, {}), SYSTEM_RO)
           if tmp_path in p.parents or p == tmp_path}
    assert got == {venv / "bin", venv / "lib", venv / "pyvenv.cfg", team, beside,
                   home / ".local" / "bin", pipx / "bin", pipx / "lib", pipx / "pyvenv.cfg",
                   home / ".cargo" / "bin", notes / "run.sh", node / "bin", node / "lib",
                   home / ".rustup", pyenv / "shims", pyenv}


def test_masks_come_after_every_bind(world) -> None:
    """Every credential an extra, a toolchain folder or a symlink brings in is masked at its real
    path, and no bind comes after a mask."""
    from orkas_nb.tools.paths import PathPolicy
    from orkas_nb.tools.sandbox import bwrap_argv

    policy = PathPolicy(world.ws)
    argv = bwrap_argv(policy, world.ws, build_env(os.environ, world.home), network=False,
                      readonly_extra=world.extras)
    ops = [(i, argv[i], argv[i + 1], argv[i + 2] if argv[i] != "--tmpfs" else None)
           for i in range(len(argv) - 2) if argv[i] in ("--bind", "--ro-bind", "--ro-bind-try", "--tmpfs")]
    masks = {i: dest for i, op, src, dest in ops if op == "--ro-bind" and src == "/dev/null"}
    masks.update({i: src for i, op, src, _ in ops if op == "--tmpfs"})
    for cred in (world.home / ".config" / "gh", world.home / "dotfiles" / "docker",
                 world.root / "xdg" / "gh"):
        at = [i for i, dest in masks.items() if dest == str(cred)]
        assert at, f"{cred} is not masked"
        binds = [i for i, op, src, _ in ops if op != "--tmpfs" and src != "/dev/null"]
        assert min(at) > max(binds), f"{cred} is masked before a later bind"
    bound = {src for _, op, src, _ in ops if op in ("--ro-bind-try", "--bind")}
    for parent in (world.home / "projects", world.home / ".cargo", world.root, world.root / "team"):
        assert str(parent) not in bound  # ~/.cargo/bin is bound, ~/.cargo (credentials) is not
    assert str(world.home / "projects" / ".venv" / "bin") in bound


@isolated_only
async def test_home_as_workspace_keeps_credentials_masked(world, make_caller) -> None:
    """The workspace may be the home folder: its credential folders stay masked, even after the
    user approves reading them."""
    from orkas_nb.tools import default_tools

    from .conftest import Caller

    tools = default_tools(world.home, approver=lambda r: Decision.ONCE,
                          settings={"isolation": "bubblewrap"})
    call = Caller(tools, world.home)
    ok, text, _ = await call("bash", command=(
        "cat .cargo/credentials.toml .config/gh/hosts.yml dotfiles/docker/config.json "
        ".docker/config.json .ssh/id_rsa .aws/credentials 2>&1; cat .config/tool/settings.ini"))
    assert not any(c in text for c in CANARIES.values()), text
    assert "colour = blue" in text  # the rest of the home (the workspace here) is there


@isolated_only
async def test_data_tool_logins_stay_masked_when_the_user_approves(world, make_caller) -> None:
    """The home as workspace, every command approved: warehouse, Kaggle and Sheets logins, the
    IPython history and other agents' tokens are still unreadable in the sandbox."""
    from orkas_nb.tools import default_tools

    from .conftest import Caller
    from .test_paths import DATA_TOOL_LOGINS

    for i, rel in enumerate(DATA_TOOL_LOGINS):
        (world.home / rel).parent.mkdir(parents=True, exist_ok=True)
        (world.home / rel).write_text(f"CANARY-DATA-LOGIN-{i}\n")
    tools = default_tools(world.home, approver=lambda r: Decision.ONCE,
                          settings={"isolation": "bubblewrap"})
    call = Caller(tools, world.home)
    ok, text, _ = await call("bash", command=" ".join(["cat", *DATA_TOOL_LOGINS, "2>&1;",
                                                       "grep -rs CANARY-DATA . | head -3"]))
    assert "CANARY-DATA-LOGIN" not in text, text


@isolated_only
async def test_proc_shows_only_the_sandbox(world, make_caller) -> None:
    """A fresh /proc in its own PID namespace: no kernel process, no kernel environment."""
    import subprocess

    kernel = subprocess.Popen(["sleep", "60"], env={"OPENAI_API_KEY": CANARIES["kernel_env"]})
    try:
        call = make_caller("isolated", approver=lambda r: Decision.ONCE)
        ok, text, _ = await call("bash", command=(
            f"ls /proc/{kernel.pid} 2>&1; ls -d /proc/[0-9]* | wc -l; "
            "cat /proc/self/environ /proc/1/environ | tr '\\0' '\\n'"))
    finally:
        kernel.kill()
        kernel.wait()
    assert "No such file" in text and CANARIES["kernel_env"] not in text, text
    assert int(text.split("\n")[1]) < 10  # bwrap, bash and its children only
    assert "API_KEY" not in text and f"HOME={world.home}" in text


@isolated_only
async def test_binds_ignore_the_env_the_model_passes(world, make_caller) -> None:
    """PATH or a tool home set for one call does not decide what is bound."""
    call = make_caller("isolated", approver=lambda r: Decision.ONCE)
    for env in ({"PATH": f"{world.outside}:/usr/bin:/bin"}, {"VIRTUAL_ENV": str(world.outside)},
                {"CONDA_PREFIX": str(world.root / "team")}, {"HOME": str(world.outside)}):
        ok, text, _ = await call("bash", command=(
            f"cat {world.outside}/canary.txt {world.root}/team/secret.txt"), env=env)
        assert not ok and not any(c in text for c in CANARIES.values()), (env, text)


@isolated_only
@pytest.mark.parametrize("where", ["kernel", "settings"])
async def test_a_tool_home_is_bound_without_its_credentials(world, make_caller, monkeypatch,
                                                            where: str) -> None:
    """CARGO_HOME outside the home, set in the kernel's environment or in the tool settings:
    bound for its programs, its credentials.toml masked."""
    cargo = world.root / "cargo-home"
    (cargo / "bin").mkdir(parents=True)
    (cargo / "bin" / "hello").write_text("#!/bin/sh\necho hello-from-cargo\n")
    (cargo / "bin" / "hello").chmod(0o755)
    (cargo / "credentials.toml").write_text(CANARIES["cargo"])
    env = {"CARGO_HOME": str(cargo), "PATH": f"{cargo / 'bin'}:{os.environ['PATH']}"}
    settings: dict = {}
    if where == "kernel":
        for k, v in env.items():
            monkeypatch.setenv(k, v)
    else:
        settings["env"] = env
    call = make_caller("isolated", approver=lambda r: Decision.ONCE, **settings)
    ok, text, _ = await call("bash", command=f"hello; ls {cargo}; cat {cargo}/credentials.toml")
    assert "hello-from-cargo" in text and CANARIES["cargo"] not in text, text


@isolated_only
async def test_planted_symlinks_neither_break_nor_open_the_sandbox(world, make_caller) -> None:
    """A start-up file or git hooks folder replaced by a symlink: bash still runs, what the link
    points to outside stays invisible, and a target inside the workspace stays read-only."""
    (world.ws / ".bashrc").symlink_to(world.outside / "canary.txt")
    (world.ws / ".ssh").symlink_to("/usr", target_is_directory=True)  # not a copy: not masked
    (world.ws / ".kube").symlink_to(world.home / ".ssh", target_is_directory=True)
    real_hooks = world.ws / "hooks-real"
    real_hooks.mkdir()
    (world.ws / ".git" / "hooks").rmdir()
    (world.ws / ".git" / "hooks").symlink_to(real_hooks, target_is_directory=True)
    call = make_caller("isolated", approver=lambda r: Decision.ONCE)
    ok, text, _ = await call("bash", command=(
        "cat .bashrc ../outside/canary.txt .kube/id_rsa 2>/dev/null; echo x > hooks-real/pre-commit "
        "|| echo hooks-read-only; echo ran"))
    assert "ran" in text and "hooks-read-only" in text, text
    assert CANARIES["outside"] not in text and not (real_hooks / "pre-commit").exists()
    assert CANARIES["ssh"] not in text


@isolated_only
async def test_allowed_folder_holding_credentials_keeps_them_masked(world, make_caller) -> None:
    """An allowed (writable) folder that holds a credential folder: the folder is there, the
    credential is masked, and what a command writes in the mask never reaches the disk."""
    call = make_caller("isolated", approver=lambda r: Decision.ONCE,
                       allowed_paths=[str(world.home / ".config")])
    ok, text, _ = await call("bash", command=(
        "cat ~/.config/tool/settings.ini ~/.config/gh/hosts.yml 2>&1; "
        "echo planted > ~/.config/gh/new.yml; ls ~/.config/gh"))
    assert "colour = blue" in text and CANARIES["gh"] not in text, text
    assert not (world.home / ".config" / "gh" / "new.yml").exists()
