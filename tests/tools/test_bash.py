"""The bash executor: timeouts that kill grandchildren, Stop, output caps, the environment,
background jobs that outlive the kernel, approvals and what the logs keep."""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import psutil
import pytest

from orkas_nb.harness.approval import Decision
from orkas_nb.tools.bash import OutputBuffer

from .conftest import CANARIES, MODES, Recorder


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


async def _poll_until(call, job: str, needle: str, timeout_s: float) -> str:  # type: ignore[no-untyped-def]
    """bash_poll a background job until its text holds ``needle`` (or the time is up)."""
    deadline = time.monotonic() + timeout_s
    while True:
        _, text, _ = await call("bash_poll", job_id=job, max_chars=5000)
        if needle in text or time.monotonic() > deadline:
            return text
        await asyncio.sleep(0.1)


def _pid_from(ws: Path, name: str, timeout: float = 30.0) -> int:
    """The host PID a command recorded (through /proc, which is the host's in degraded mode;
    in the sandbox the command writes a marker and we find it by its command line)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for p in psutil.process_iter(["cmdline"]):
            if (p.info["cmdline"] or [""])[0] == name:  # exec -a sets argv[0]
                return p.pid
        time.sleep(0.05)
    raise AssertionError(f"no process {name!r} appeared")


async def _dies(pid: int, within_s: float) -> bool:
    """Whether the process ``pid`` is gone (or a zombie) within ``within_s`` seconds."""
    deadline = time.monotonic() + within_s
    while _alive(pid) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    return not _alive(pid)


@pytest.fixture
def held_spawn(monkeypatch: pytest.MonkeyPatch) -> asyncio.Event:
    """``asyncio.create_subprocess_exec`` held, once the process runs, until the test sets the
    event this returns: a Stop in between lands while asyncio still connects the pipes (as on
    a loaded machine), where asyncio's own clean-up kills only the direct child (the reaper)."""
    real = asyncio.create_subprocess_exec
    release = asyncio.Event()

    async def held(*args, **kwargs):  # type: ignore[no-untyped-def]
        proc = await real(*args, **kwargs)
        await release.wait()
        return proc

    monkeypatch.setattr(asyncio, "create_subprocess_exec", held)
    return release


@pytest.mark.parametrize("mode", MODES)
async def test_timeout_kills_grandchildren(world, make_caller, mode: str) -> None:
    call = make_caller(mode, approver=lambda r: Decision.ONCE)
    marker = f"orkas-grandchild-{mode}-{uuid.uuid4().hex[:12]}"
    # A grandchild that escapes the shell's wait (subshell + background) and sleeps long.
    task = asyncio.ensure_future(call(
        "bash", command=f"(exec -a {marker} sleep 300 &) ; sleep 300", timeout_s=1.5))
    pid = await asyncio.to_thread(_pid_from, world.ws, marker)
    ok, text, _ = await task
    assert not ok and "timed out after 1.5s" in text and "killed" in text
    assert await _dies(pid, 5), "the sleeping grandchild survived the timeout"


@pytest.mark.parametrize("mode", MODES)
async def test_timeout_kills_orphans_that_left_the_group(world, make_caller, mode: str) -> None:
    """setsid + double fork leaves the process group; the PID namespace (isolated) or the
    subreaper (degraded) still finds and kills it."""
    call = make_caller(mode, approver=lambda r: Decision.ONCE)
    marker = f"orkas-orphan-{mode}-{uuid.uuid4().hex[:12]}"
    task = asyncio.ensure_future(call(
        "bash", command=f"(setsid bash -c 'exec -a {marker} sleep 300' &) ; sleep 300",
        timeout_s=1.5))
    pid = await asyncio.to_thread(_pid_from, world.ws, marker)
    assert os.getpgid(pid) == pid  # it has left the command's process group
    ok, text, _ = await task
    assert not ok and "timed out" in text
    assert await _dies(pid, 5), "an orphan in its own session survived the timeout"


@pytest.mark.parametrize("mode", MODES)
async def test_leftover_background_processes_die_with_the_call(world, make_caller, mode: str) -> None:
    call = make_caller(mode, approver=lambda r: Decision.ONCE)
    marker = f"orkas-leftover-{mode}-{uuid.uuid4().hex[:12]}"
    ok, text, _ = await call("bash", command=f"(setsid bash -c 'exec -a {marker} sleep 300' &) ; echo started")
    assert ok and "started" in text

    def left() -> list[psutil.Process]:
        return [p for p in psutil.process_iter(["cmdline"])
                if (p.info["cmdline"] or [""])[0] == marker and _alive(p.pid)]

    deadline = time.monotonic() + 10  # killed with the call; reaped however loaded the machine
    while left() and time.monotonic() < deadline:  # it would sleep 300 s
        await asyncio.sleep(0.05)
    assert not left()


@pytest.mark.parametrize("mode", MODES)
async def test_stop_cancels_and_kills_the_group(world, make_caller, mode: str) -> None:
    """The runner cancels the tool's task on Stop; the executor kills everything it started."""
    call = make_caller(mode, approver=lambda r: Decision.ONCE)
    marker = f"orkas-stop-{mode}-{uuid.uuid4().hex[:12]}"
    task = asyncio.ensure_future(call("bash", command=f"(exec -a {marker} sleep 300 &); sleep 300"))
    pid = await asyncio.to_thread(_pid_from, world.ws, marker)
    started = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - started < 3.0  # Stop is felt within a second or so
    assert await _dies(pid, 5)


async def test_stop_while_the_process_is_being_set_up_still_kills_the_group(
        world, make_caller, held_spawn: asyncio.Event) -> None:
    """A Stop that lands while asyncio still connects the new process's pipes (a loaded
    machine: the command already runs): asyncio's own clean-up kills only the direct child
    (the reaper), orphaning the command's processes, unless the executor takes the process."""
    call = make_caller("degraded", approver=lambda r: Decision.ONCE)
    marker = f"orkas-setup-stop-{uuid.uuid4().hex[:12]}"
    task = asyncio.ensure_future(call("bash", command=f"(exec -a {marker} sleep 300 &); sleep 300"))
    pid = await asyncio.to_thread(_pid_from, world.ws, marker)
    task.cancel()
    for _ in range(20):  # the Stop lands while the set-up is held
        await asyncio.sleep(0)
    held_spawn.set()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await _dies(pid, 10), "the command outlived a Stop during its set-up"


@pytest.mark.parametrize("mode", MODES)
async def test_a_second_stop_during_the_set_up_clean_up_still_kills_the_group(
        world, make_caller, mode: str, held_spawn: asyncio.Event) -> None:
    """An impatient user presses Stop again while the executor is still taking the process
    whose set-up the first Stop interrupted: the clean-up must finish regardless."""
    call = make_caller(mode, approver=lambda r: Decision.ONCE)
    marker = f"orkas-setup-stop2-{mode}-{uuid.uuid4().hex[:12]}"
    task = asyncio.ensure_future(call("bash", command=f"(exec -a {marker} sleep 300 &); sleep 300"))
    pid = await asyncio.to_thread(_pid_from, world.ws, marker)
    task.cancel()
    for _ in range(20):  # let the first Stop reach the clean-up, which waits for the set-up
        await asyncio.sleep(0)
    assert not task.done()
    task.cancel()  # the second Stop lands inside the clean-up
    await asyncio.sleep(0.1)
    held_spawn.set()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await _dies(pid, 10), "the command outlived a second Stop during the set-up's clean-up"


@pytest.mark.parametrize("mode", MODES)
async def test_output_cap_keeps_head_and_tail_with_a_note(world, make_caller, mode: str) -> None:
    call = make_caller(mode, output_cap_chars=1000)
    ok, text, _ = await call("bash", command="seq 1 100000")
    assert ok
    assert text.startswith("1\n2\n3\n")
    assert "100000\n[exit code 0]" in text
    assert "bytes cut from the middle" in text
    assert len(text) < 1400


def test_output_buffer_counts_what_it_cut() -> None:
    buf = OutputBuffer(10)
    for _ in range(10):
        buf.feed(b"0123456789")
    text = buf.text()
    assert text.startswith("01234") and text.endswith("56789")
    assert "90 bytes cut from the middle of 100" in text
    small = OutputBuffer(100)
    small.feed(b"abc")
    assert small.text() == "abc"


@pytest.mark.parametrize("mode", MODES)
async def test_environment_is_an_allow_list_and_the_kernel_env_is_untouched(
    world, make_caller, mode: str, monkeypatch
) -> None:
    monkeypatch.setenv("MY_SERVICE_TOKEN", "tok-" + CANARIES["kernel_env"])
    before = dict(os.environ)
    call = make_caller(mode, env={"PROJECT_MODE": "test"})
    ok, text, _ = await call("bash", command="env", env={"RUN_LABEL": "x1"})
    assert ok
    assert CANARIES["kernel_env"] not in text  # OPENAI_API_KEY and *_TOKEN never passed
    assert "PROJECT_MODE=test" in text and "RUN_LABEL=x1" in text and "PATH=" in text
    assert dict(os.environ) == before
    ok, text, _ = await call("bash", command="true", env={"BASH_ENV": "/tmp/x"})
    assert not ok and "not allowed" in text


@pytest.mark.parametrize("mode", MODES)
async def test_exit_code_and_errors_are_reported(world, make_caller, mode: str) -> None:
    call = make_caller(mode)
    ok, text, _ = await call("bash", command="echo out; echo err >&2; exit 3")
    assert not ok and "out" in text and "err" in text and "[exit code 3]" in text
    ok, text, _ = await call("bash", command="   ")
    assert not ok and "empty" in text
    ok, text, _ = await call("bash", command="true", timeout_s=100000)
    assert not ok and "timeout_s" in text
    ok, text, _ = await call("bash", command="pwd", cwd="sub")
    assert ok and text.startswith(str(world.ws / "sub"))


@pytest.mark.parametrize("mode", MODES)
async def test_blocked_commands_never_run_even_when_approved(world, make_caller, mode: str) -> None:
    recorder = Recorder(answer=Decision.ONCE)
    call = make_caller(mode, approver=recorder)
    for cmd in ("rm -rf /", "mkfs.ext4 /dev/sda1", "shutdown -h now", "kill -9 -1",
                ":(){ :|:& };:", "dd if=/dev/zero of=/dev/sda"):
        ok, text, _ = await call("bash", command=cmd)
        assert not ok and "Blocked" in text, (cmd, text)
    assert recorder.asked == []


async def test_approval_once_run_and_deny(world, make_caller, caplog) -> None:
    """once: asked every time; run: remembered for the run (same abort signal); deny: refused."""
    recorder = Recorder(answer=Decision.ONCE)
    call = make_caller("degraded", approver=recorder)
    caplog.set_level(logging.INFO, logger="orkas_nb.harness.approval")
    secret_cmd = "mkdir -p d && rm -r d && echo removed-ok"
    ok, text, _ = await call("bash", command=secret_cmd)
    assert ok and "removed-ok" in text
    ok, _, _ = await call("bash", command=secret_cmd)
    assert ok and len(recorder.asked) == 2  # once means once
    recorder.answer = Decision.RUN
    await call("bash", command=secret_cmd)
    await call("bash", command=secret_cmd)
    assert len(recorder.asked) == 3  # the run answer was remembered
    from orkas_nb.harness.cancellation import AbortSignal

    call.ctx.abort = AbortSignal()  # a new run forgets
    recorder.answer = Decision.DENY
    ok, text, _ = await call("bash", command=secret_cmd)
    assert not ok and "Denied" in text and "destructive_delete" in text
    assert len(recorder.asked) == 4
    # Logs hold the category and the length, never the command's text.
    records = [r.getMessage() for r in caplog.records if r.name == "orkas_nb.harness.approval"]
    assert records and all("destructive_delete" in m for m in records)
    assert all(f"length={len(secret_cmd)}" in m for m in records)
    assert not any("mkdir" in m or "removed-ok" in m for m in records)


async def test_async_approver_and_services_approver(world, make_caller) -> None:
    asked = []

    async def approver(request):
        asked.append(request.category)
        await asyncio.sleep(0)
        return "deny"

    call = make_caller("degraded")
    call.ctx.services["approver"] = approver
    ok, text, _ = await call("bash", command="sudo true")
    assert not ok and "Denied" in text and asked == ["privilege_escalation"]


@pytest.mark.parametrize("mode", MODES)
async def test_background_start_poll_stop(world, make_caller, mode: str) -> None:
    call = make_caller(mode)
    ok, text, _ = await call("bash", command="for i in 1 2 3; do echo tick $i; sleep 0.2; done",
                             background=True)
    assert ok and "started background job" in text
    job = text.split()[3].rstrip(";")
    log = world.ws / ".orkas" / "jobs" / f"{job}.log"
    assert log.exists()
    text = await _poll_until(call, job, "exited with code 0", timeout_s=10)
    assert "exited with code 0" in text and "tick 3" in text
    ok, text, _ = await call("bash_poll", job_id=job, offset=-7)
    assert text.rstrip().endswith("tick 3") and "tick 1" not in text
    ok, text, _ = await call("bash", command="echo begin; exec sleep 300", background=True)
    job2 = text.split()[3].rstrip(";")
    ok, text, _ = await call("bash_poll", job_id=job2)
    assert "running" in text
    ok, text, _ = await call("bash_stop", job_id=job2)
    assert ok and "stopped" in text
    ok, text, _ = await call("bash_poll", job_id=job2)
    assert "stopped" in text
    ok, text, _ = await call("bash_poll", job_id="nope")
    assert not ok and "unknown job" in text
    ok, text, _ = await call("bash_poll", job_id="../../x")
    assert not ok and "unknown job" in text


@pytest.mark.parametrize("mode", MODES)
async def test_bash_stop_kills_orphans_of_a_background_job(world, make_caller, mode: str) -> None:
    call = make_caller(mode, approver=lambda r: Decision.ONCE)
    marker = f"orkas-bg-orphan-{mode}-{uuid.uuid4().hex[:12]}"
    ok, text, _ = await call(
        "bash", command=f"(setsid bash -c 'exec -a {marker} sleep 300' &) ; sleep 300",
        background=True)
    assert ok, text
    job = text.split()[3].rstrip(";")
    pid = await asyncio.to_thread(_pid_from, world.ws, marker)
    ok, text, _ = await call("bash_stop", job_id=job)
    assert ok and "stopped" in text
    assert await _dies(pid, 5), "an orphan of the background job survived bash_stop"


async def test_background_log_is_capped(world, make_caller) -> None:
    call = make_caller("degraded", job_log_max_bytes=1000)
    ok, text, _ = await call("bash", command="seq 1 100000; echo finished", background=True)
    job = text.split()[3].rstrip(";")
    text = await _poll_until(call, job, "exited with code 0", timeout_s=10)
    assert "exited with code 0" in text  # the job was not blocked by the cap
    log = (world.ws / ".orkas" / "jobs" / f"{job}.log").read_bytes()
    assert log.startswith(b"1\n2\n") and b"log capped at 1000 bytes" in log
    assert len(log) < 1100 and b"finished" not in log


RESTART_SCRIPT = """
import asyncio, sys
from orkas_nb.tools import default_tools
from orkas_nb.harness.tool_protocol import ToolContext
from orkas_nb.harness.cancellation import AbortSignal
ws, mode, action, job = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
tools = {t.name: t for t in default_tools(ws, settings={"isolation": "bubblewrap" if mode == "isolated" else "off"})}
ctx = ToolContext(workspace=ws, abort=AbortSignal())
async def main():
    if action == "start":
        out = await tools["bash"].execute({"command": "echo first; sleep 1.5; echo second; sleep 300", "background": True, "timeout_s": None, "cwd": ".", "env": None}, ctx)
        print(out.text.split()[3].rstrip(";"))
    else:
        out = await tools["bash_" + action].execute(tools["bash_" + action].validate({"job_id": job}), ctx)
        print(out.text)
asyncio.run(main())
"""


@pytest.mark.parametrize("mode", MODES)
def test_background_job_and_log_survive_a_kernel_restart(world, mode: str, tmp_path: Path) -> None:
    """One process (a kernel) starts a job and dies; a new one polls its log and stops it."""
    script = tmp_path / "kernel.py"
    script.write_text(RESTART_SCRIPT)

    def run(*a: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, str(script), str(world.ws), mode, *a], capture_output=True,
            text=True, timeout=60, env=os.environ)

    started = run("start", "-")
    assert started.returncode == 0, started.stderr
    job = started.stdout.strip()
    time.sleep(2.0)  # the first kernel is gone; the job goes on
    polled = run("poll", job)
    assert "running" in polled.stdout and "first" in polled.stdout and "second" in polled.stdout
    stopped = run("stop", job)
    assert "stopped" in stopped.stdout
    again = run("poll", job)
    assert "stopped" in again.stdout and "second" in again.stdout
    assert (world.ws / ".orkas" / "jobs" / f"{job}.log").read_text().startswith("first")
    survivors = [p for p in psutil.process_iter(["cmdline"])
                 if "echo second; sleep 300" in " ".join(p.info["cmdline"] or [])]
    assert not [p for p in survivors if _alive(p.pid)]


def test_isolation_status_is_reported() -> None:
    from orkas_nb.tools import isolation_status

    off = isolation_status("off")
    assert not off.isolated and "off" in off.detail
    auto = isolation_status("auto")
    assert auto.mode in ("bubblewrap", "none") and auto.detail
    if auto.isolated:
        assert "Jupyter server" in isolation_status("auto", network=True).detail



ALLOCATE = """import sys
b = bytearray(int(sys.argv[1]) * 1024 * 1024)
b[-1] = 1
print("allocated", sys.argv[1], "MB")
"""


def _allocator(world) -> None:  # type: ignore[no-untyped-def]
    (world.ws / "alloc.py").write_text(ALLOCATE)


@pytest.mark.parametrize("mode", MODES)
async def test_a_command_past_the_memory_limit_fails_on_its_own(world, make_caller, mode: str) -> None:
    _allocator(world)
    call = make_caller(mode, approver=Recorder(answer=Decision.RUN), bash_memory_mb=256)
    ok, text, _ = await call("bash", command="python3 alloc.py 64")
    assert ok and "allocated 64 MB" in text
    ok, text, _ = await call("bash", command="python3 alloc.py 1024")
    assert not ok and "MemoryError" in text and "allocated" not in text
    # Per process and inherited: a grandchild of the command is held to it too.
    ok, text, _ = await call("bash", command="bash -c 'python3 alloc.py 1024'")
    assert not ok and "MemoryError" in text


@pytest.mark.parametrize("mode", MODES)
async def test_a_background_job_runs_under_the_limits(world, make_caller, mode: str) -> None:
    _allocator(world)
    call = make_caller(mode, approver=Recorder(answer=Decision.RUN), bash_memory_mb=256)
    ok, text, _ = await call("bash", command="python3 alloc.py 1024", background=True)
    assert ok, text
    text = await _poll_until(call, text.split()[3].rstrip(";"), "exited with code", timeout_s=20)
    assert "MemoryError" in text and "exited with code 1" in text


async def test_limits_can_be_turned_off_and_are_described(world, make_caller) -> None:
    from orkas_nb.tools.limits import describe, limit_argv, memory_limit_mb
    from orkas_nb.tools.settings import ToolSettings

    assert limit_argv(ToolSettings(bash_memory_mb=0, bash_max_processes=0)) == []
    assert describe(ToolSettings(bash_memory_mb=0, bash_max_processes=0)).startswith("no resource limits")
    default = ToolSettings()
    assert 256 <= memory_limit_mb(default) <= psutil.virtual_memory().total // 2**20
    argv = limit_argv(default)
    assert argv[-1] == "--" and f"--data={memory_limit_mb(default) * 2**20}" in argv
    assert "--nproc=4096" in argv
    _allocator(world)
    call = make_caller("degraded", approver=Recorder(answer=Decision.RUN), bash_memory_mb=0)
    ok, text, _ = await call("bash", command="python3 alloc.py 300")
    assert ok and "allocated 300 MB" in text
