"""The one executor every shell call goes through, and the bash tools built on it.

Order of a call: parse and grade the command (blocked → refused; risky → the approver; no
approver → denied) → build the environment from an allow-list (the kernel's ``os.environ`` is
only read, never changed) → run ``bash -c`` in its own process group, inside bubblewrap when
available → stream the output into a head+tail buffer (a note says what was cut) → on timeout,
Stop (the runner cancels this task: ``CancelledError``) or completion, kill the whole group, so
grandchildren die too. Inside bubblewrap the PID namespace takes everything down with it; in
degraded mode the command runs under a small subreaper (``_reaper.py``) that also kills the
orphans which left the group (``setsid``, double fork).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import sys
from functools import lru_cache
from pathlib import Path

from ..core.errors import ToolDenied, ToolError
from ..core.messages import HOST_NOTE
from ..harness.approval import ApprovalRequest, Decision
from ..harness.tool_protocol import FunctionTool, ToolContext, ToolOutput
from ._job_supervisor import SLIRP_MARKER
from .jobs import JobStore, kill_group
from .limits import limit_argv
from .paths import STATE_DIR
from .risk import Context, Grade, grade
from .sandbox import IsolationStatus, build_env, bwrap_argv, isolation_status
from .settings import Toolbox

REAPER = Path(__file__).with_name("_reaper.py")
# Said to the model after a failing command: which of the two modes the description names this
# machine gave. It is a host note (see core.messages.HOST_NOTE): a replay on a machine without
# bubblewrap must not differ from the recording by it.
SANDBOX_NOTE = (
    HOST_NOTE + "the command ran in the sandbox: only the workspace{allowed} is writable; the "
    "home folder, credential folders, .orkas and /tmp of the machine are hidden, and secret "
    "files (.env, keys) are unreadable until the user consents{net}]"
)
UNCONFINED_NOTE = (
    HOST_NOTE + "the command ran without OS isolation: this machine offers no sandbox, so "
    "anything that reaches outside the workspace needs the user's approval]"
)


class OutputBuffer:
    """Keeps the first and last ``cap/2`` characters of a stream and counts what it drops."""

    def __init__(self, cap: int) -> None:
        self.half = max(1, cap // 2)
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def feed(self, data: bytes) -> None:
        self.total += len(data)
        room = self.half - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            if len(self.tail) > self.half:
                del self.tail[: len(self.tail) - self.half]

    def text(self) -> str:
        head = self.head.decode("utf-8", errors="replace")
        if self.total <= len(self.head) + len(self.tail):
            return head + self.tail.decode("utf-8", errors="replace")
        cut = self.total - len(self.head) - len(self.tail)
        return (f"{head}\n[... {cut:,} bytes cut from the middle of {self.total:,}; send long "
                f"output to a file and read it with read_file or grep_files ...]\n"
                f"{self.tail.decode('utf-8', errors='replace')}")


@lru_cache(maxsize=4)
def _shell(path: str | None) -> str:
    # which() stats every PATH folder (~0.2 ms), and every new agent builds an executor
    return shutil.which("bash", path=path) or "/bin/sh"


class ShellExecutor:
    """Runs shell commands for one agent's tools; see the module docstring."""

    def __init__(self, box: Toolbox) -> None:
        self.box = box
        self.status: IsolationStatus = isolation_status(box.settings.isolation,
                                                        box.settings.network)
        self.jobs = JobStore(box.workspace / STATE_DIR)
        from . import _netns

        self.filtered_net = self.status.isolated and box.settings.network and _netns.available()
        self.shell = _shell(os.environ.get("PATH"))
        # prlimit execs what follows: the pid stays the command's (see limits.py)
        self.limits = limit_argv(box.settings)

    def _cwd(self, cwd: str) -> Path:
        target = self.box.policy.check(cwd)
        if not target.path.is_dir():
            raise ToolError(f"{cwd!r} is not a folder")
        return target.path

    def _env(self, per_call: dict[str, str] | None) -> dict[str, str]:
        s = self.box.settings
        return build_env(os.environ, self.box.policy.home, s.env_allow, s.env, per_call)

    async def check(self, command: str, env: dict[str, str], cwd: Path, ctx: ToolContext) -> tuple[Grade, bool]:
        """Grade ``command`` and ask about its risks; raises ToolError when refused."""
        g = grade(command, Context(
            policy=self.box.policy, env=env, cwd=cwd, isolated=self.status.isolated,
            network=self.box.settings.network, kernel_pids=(os.getpid(), os.getppid()),
        ))
        if g.blocked:
            raise ToolError(
                "Blocked, nothing was run: " + "; ".join(f.reason for f in g.blocked)
                + ". This command is never run by the agent."
            )
        consent_secrets = False
        for category in sorted({f.category for f in g.risky}):
            reasons = [f.reason for f in g.risky if f.category == category]
            request = ApprovalRequest(
                kind="command", category=category, subject=command, reasons=reasons,
                scope_key=f"command:{category}",
                scope_text=f"every command with this risk ({category}) for the rest of this run",
                tool="bash", agent=ctx.agent, call_id=ctx.call_id,
            )
            decision = await self.box.gate.ask(
                request, run=ctx.abort, approver=self.box.approver_for(ctx.services))
            if decision is Decision.DENY:
                raise ToolDenied(
                    f"Denied, nothing was run: the command needs the user's approval ({category}: "
                    f"{'; '.join(reasons)}) and it was not given. Choose another way, or explain "
                    "to the user why this command is needed."
                )
            if category == "sensitive_path":
                consent_secrets = True
        return g, consent_secrets

    def argv(self, command: str, env: dict[str, str], cwd: Path, *, consent_secrets: bool,
             background: bool = False) -> list[str]:
        inner = [self.shell, "--noprofile", "--norc", "-c", command] if self.shell.endswith(
            "bash") else [self.shell, "-c", command]
        if not self.status.isolated:
            return [*self.limits, sys.executable, "-I", "-S", str(REAPER), "--", *inner]
        s = self.box.settings
        # The binds come from the kernel's environment, never from env the model passed.
        argv = bwrap_argv(self.box.policy, cwd, self._env(None),
                          network=s.network and not self.filtered_net,
                          readonly_extra=s.extra_readonly_paths, consented_secrets=consent_secrets,
                          die_with_parent=True)
        if self.filtered_net:
            argv.insert(1, SLIRP_MARKER)  # replaced by the link's descriptors at spawn time
        return [*self.limits, *argv, "--", *inner]

    async def _stop(self, proc: asyncio.subprocess.Process) -> None:
        if not self.status.isolated and proc.returncode is None:
            # The subreaper sweeps the orphans that left the process group (setsid, double fork).
            with contextlib.suppress(ProcessLookupError):
                os.kill(proc.pid, signal.SIGTERM)
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.shield(proc.wait()), 1.5)
        kill_group(proc.pid)

    async def _stop_spawned(self, spawn: asyncio.Future[asyncio.subprocess.Process]) -> None:
        """Stop the process whose set-up a Stop interrupted, once the set-up is done."""
        with contextlib.suppress(Exception):  # a failed spawn left nothing to stop
            started = await spawn
            await self._stop(started)
            await started.wait()

    async def run(self, command: str, *, timeout_s: float, env: dict[str, str], cwd: Path,
                  argv: list[str]) -> tuple[int | None, str, bool]:
        """Run in the foreground: (exit code or None on timeout, output, timed out)."""
        buf = OutputBuffer(self.box.settings.output_cap_chars)
        link = None
        if SLIRP_MARKER in argv:
            from ._netns import SlirpLink

            link = SlirpLink()
            at = argv.index(SLIRP_MARKER)
            argv = argv[:at] + link.bwrap_args() + argv[at + 1:]
        try:
            spawn = asyncio.ensure_future(asyncio.create_subprocess_exec(
                *argv, cwd=str(cwd), env=env, stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
                start_new_session=True, pass_fds=link.child_fds() if link else (),
            ))
            try:
                proc = await asyncio.shield(spawn)
            except asyncio.CancelledError:
                # Stop while asyncio still connected the pipes: the command may run already,
                # and asyncio's own clean-up would SIGKILL only the reaper, orphaning the rest.
                # Shielded like _collect's: a second Stop must not abandon the clean-up.
                await asyncio.shield(self._stop_spawned(spawn))
                raise
            if link is not None:
                try:
                    await asyncio.to_thread(link.attach)
                except BaseException as exc:  # a failed link, or Stop while it was coming up
                    kill_group(proc.pid)
                    await asyncio.shield(proc.wait())
                    if isinstance(exc, OSError):
                        raise ToolError(f"the sandbox's network could not start: {exc}") from None
                    raise
            return await self._collect(proc, buf, timeout_s)
        finally:
            if link is not None:
                await asyncio.to_thread(link.close)

    async def _collect(self, proc: asyncio.subprocess.Process, buf: OutputBuffer,
                       timeout_s: float) -> tuple[int | None, str, bool]:
        assert proc.stdout is not None

        async def pump() -> None:
            while True:
                chunk = await proc.stdout.read(65536)  # type: ignore[union-attr]
                if not chunk:
                    return
                buf.feed(chunk)

        reader = asyncio.ensure_future(pump())
        timed_out = False
        try:
            await asyncio.wait_for(proc.wait(), timeout_s)
        except asyncio.TimeoutError:
            timed_out = True
            await self._stop(proc)
        except BaseException:  # Stop: the runner cancelled us; nothing may outlive the call
            await asyncio.shield(self._stop(proc))
            reader.cancel()
            await asyncio.shield(proc.wait())
            raise
        finally:
            # Kill what the command left running (its background children): a foreground call
            # owns nothing after it returns; use background=true for long-lived processes.
            kill_group(proc.pid)
        try:
            await asyncio.wait_for(reader, 2.0)
        except asyncio.TimeoutError:
            reader.cancel()
        if timed_out:
            await proc.wait()
        return (None if timed_out else proc.returncode), buf.text(), timed_out


def make_bash_tools(box: Toolbox) -> list[FunctionTool]:
    executor = ShellExecutor(box)
    box.services.setdefault("shell_executor", executor)
    s = box.settings

    def sandbox_note() -> str:
        if not executor.status.isolated:
            return "\n" + UNCONFINED_NOTE
        allowed = " and allowed folders" if len(box.policy.roots) > 1 else ""
        net = "" if s.network else "; there is no network"
        return "\n" + SANDBOX_NOTE.format(allowed=allowed, net=net)

    async def bash(
        command: str, ctx: ToolContext, timeout_s: float | None = None, background: bool = False,
        cwd: str = ".", env: dict[str, str] | None = None,
    ) -> ToolOutput:
        """Run a bash command in the workspace and return its output and exit code.

        Args:
            command: the bash command line
            timeout_s: seconds before the command and all it started are killed (default 120)
            background: detach it (servers, long jobs): returns a job id for bash_poll/bash_stop
            cwd: working folder, relative to the workspace
            env: extra environment variables for this command only
        """
        if not command.strip():
            raise ToolError("the command is empty")
        timeout = s.bash_timeout_s if timeout_s is None else timeout_s
        if not 0 < timeout <= s.bash_max_timeout_s:
            raise ToolError(f"timeout_s must be between 0 and {s.bash_max_timeout_s:.0f} seconds")
        where = executor._cwd(cwd)
        full_env = executor._env(env)
        _grade, consent = await executor.check(command, full_env, where, ctx)
        argv = executor.argv(command, full_env, where, consent_secrets=consent)
        if background:
            info = executor.jobs.start(argv, full_env, where, command_length=len(command),
                                       isolated=executor.status.isolated,
                                       max_log_bytes=s.job_log_max_bytes)
            return ToolOutput(text=(
                f"started background job {info.id}; its output goes to "
                f"{STATE_DIR}/jobs/{info.id}.log. Check it with bash_poll(job_id={info.id!r}) "
                f"and end it with bash_stop(job_id={info.id!r})."))
        code, output, timed_out = await executor.run(
            command, timeout_s=timeout, env=full_env, cwd=where, argv=argv)
        if timed_out:
            text = (f"{output}\n[timed out after {timeout:g}s: the command and every process it "
                    "started were killed; use background=true for long jobs]")
            return ToolOutput(text=text.lstrip("\n"), is_error=True)
        note = sandbox_note() if code else ""
        body = output.rstrip("\n") if output.strip() else "(no output)"
        return ToolOutput(text=f"{body}\n[exit code {code}]{note}", is_error=code != 0)

    def bash_poll(job_id: str, offset: int = 0, max_chars: int = 20_000) -> str:
        """Status and output of a background job started with bash(background=true).

        Args:
            job_id: the id bash returned
            offset: first byte of the log to return; negative counts from the end (-2000 = tail)
            max_chars: at most this many bytes of log
        """
        info = executor.jobs.load(job_id)
        text, start, end, size = executor.jobs.read_log(
            info, offset, max(1, min(max_chars, s.output_cap_chars)))
        more = f"\n[log continues: poll again with offset={end}]" if end < size else ""
        return (f"job {job_id}: {executor.jobs.status(info)}\n--- log bytes {start}-{end} of "
                f"{size} ---\n{text}{more}")

    def bash_stop(job_id: str) -> str:
        """Stop a background job and everything it started.

        Args:
            job_id: the id bash returned
        """
        info = executor.jobs.load(job_id)
        return f"job {job_id}: {executor.jobs.stop(info)}"

    # The same words on every machine (whether bubblewrap runs here is not in them): a notebook
    # recorded on one machine replays on another, and a model sees one prompt everywhere. Which
    # mode this machine gives shows in %agent config and in the note after a failing command.
    summary = ("Run a bash command in the workspace and return its output and exit code. Where "
               "the machine allows it, commands run in a sandbox: the workspace is writable, the "
               "system is read-only, home and credential folders are hidden"
               + ("" if s.network else ", and there is no network") + "; elsewhere they run "
               "without OS isolation, and anything that reaches outside the workspace or runs "
               "unreadable code needs the user's approval. Risky commands (deletes, privilege, "
               "secrets, uploads) need the user's approval; use background=true for servers and "
               "long jobs.")
    return [
        FunctionTool(bash, description=summary),
        FunctionTool(bash_poll, read_only=True),
        FunctionTool(bash_stop),
    ]
