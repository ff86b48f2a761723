"""External agents: a named agent whose definition names a program (``command:``), run by
``dispatch_to`` as a subprocess that calls back through the reverse gateway (SPEC §12).

Before the first launch the user sees the exact command, arguments and working folder, as for
a local MCP server, and approves; the approval is kept in the connectors' consent store
(outside the workspace: a cloned repository cannot approve its own agent), keyed by the agent's
name and that exact launch. A run then:

1. opens a :class:`~orkas_nb.connectors.gateway.Gateway` with a one-time credential;
2. starts the program in the workspace, in its own process group, with an environment free of
   the kernel's keys, plus the variables its definition names in ``env`` (taken from the
   kernel's environment; the names are part of what the user approved), plus
   ``ORKAS_GATEWAY_*`` (the socket, the credential, an ``mcpServers`` file naming the stdio
   bridge); the task goes on its stdin, or in place of ``{task}`` in its arguments;
3. streams its stdout as the member's answer (stderr goes to ``.orkas/logs/``), stops it on the
   group stop, and destroys the credential when it ends.

Through the gateway the program may list, read and run the skills its definition allows (all
the workspace's non-open-tier skills when it lists none; running goes through the one sandboxed
bash executor), search the knowledge base, and call the approved connectors — each call asked
per (agent, connector), as the agent's own connector calls are (:mod:`orkas_nb.connectors.tools`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.errors import ErrorInfo
from ..core.events import Done, RunEvent, RunResult, TextDelta

if TYPE_CHECKING:
    from ..team.definitions import AgentDefinition
    from .agent import Agent

__all__ = ["ExternalMember"]

RUN_LIMIT_S = 3600.0
_SECRET = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE|^AWS_|"
                     r"^AZURE_|^GOOGLE_|^OPENAI|^ANTHROPIC|^HF_|^JPY_|^JUPYTER|^GH_|^GITHUB_|"
                     r"^ORKAS_", re.IGNORECASE)


class ExternalMember:
    """A team member whose every task is one run of an external program."""

    def __init__(self, definition: AgentDefinition, parent: Agent,
                 run_limit_s: float = RUN_LIMIT_S) -> None:
        assert definition.command
        self.name = definition.name
        self.definition = definition
        self.parent = parent
        self.workspace = Path(parent.workspace)
        self.run_limit_s = run_limit_s
        self._abort: Any = None

    # -- consent --------------------------------------------------------------------------------

    def launch(self) -> Any:
        """The launch as the consent store knows it (a local-server config)."""
        from ..connectors.config import ServerConfig

        argv = self.definition.command or ()
        # the variable names are part of the launch: naming another one asks the user again
        return ServerConfig(name=f"external-agent:{self.name}", command=argv[0],
                            args=list(argv[1:]), cwd=str(self.workspace),
                            env={n: "(from the kernel)" for n in self.definition.env})

    def approver(self) -> Any:
        parts = self.parent._parts
        return parts.approver or (parts.services or {}).get("approver")

    async def approved(self) -> bool:
        from ..connectors.consent import ConsentStore
        from ..harness.approval import ApprovalGate, ApprovalRequest, Decision

        launch, store = self.launch(), ConsentStore()
        if store.record(launch) is not None:
            return True
        request = ApprovalRequest(
            kind="connector", category="external_agent", tool="dispatch_to", agent=self.name,
            subject=f"external agent {self.name!r}: {launch.describe()}",
            reasons=[f"defined in {self.definition.path}",
                     ("it runs as a program with your permissions, outside the sandbox, and may "
                      "call this workspace's skills, knowledge base and connectors back")],
            scope_key=f"external-agent:{self.name}", scope_text=f"the external agent {self.name!r}")
        decision = await ApprovalGate().ask(request, run=None, approver=self.approver())
        if decision is Decision.DENY:
            return False
        store.approve(launch, None)
        return True

    # -- a run ----------------------------------------------------------------------------------

    def run(self, prompt: Any, *, abort: Any = None) -> AsyncIterator[RunEvent]:
        return self._run(prompt if isinstance(prompt, str) else getattr(prompt, "text", str(prompt)),
                         abort)

    async def arun(self, prompt: Any, *, abort: Any = None) -> RunResult:
        result = RunResult()
        async for event in self.run(prompt, abort=abort):
            if isinstance(event, Done):
                result = event.result
        return result

    def stop(self, reason: str = "stopped by the user") -> None:
        if self._abort is not None:
            self._abort.abort(reason)

    def close(self) -> None:
        self.stop("closed")

    async def _run(self, task: str, abort: Any) -> AsyncIterator[RunEvent]:
        from ..connectors.gateway import Gateway
        from ..harness.cancellation import AbortSignal
        from .gateway_tools import gateway_tools

        started = time.monotonic()
        self._abort = abort = abort or AbortSignal()
        seq = 0

        def done(text: str, error: str | None = None, reason: str = "end_turn") -> Done:
            stop = "error" if error else reason
            return Done(agent=self.name, seq=seq + 1, result=RunResult(
                text=text, stop_reason=stop, duration_s=time.monotonic() - started,  # type: ignore[arg-type]
                error=ErrorInfo(kind="external_agent", message=error) if error else None))

        if not await self.approved():
            yield done("", f"the user did not approve running the external agent {self.name!r} "
                           f"({self.launch().describe()}); nothing was started")
            return
        async with Gateway() as gateway:
            credential = gateway.open_run(self.name, gateway_tools(self, abort), self.run_limit_s)
            try:
                proc = await self._start(task, credential.env())
            except OSError as exc:
                gateway.close_run(credential)
                yield done("", f"the external agent {self.name!r} could not start: {exc}")
                return
            chunks: list[str] = []
            stopper = abort.subscribe(lambda: _kill(proc))
            timer = asyncio.get_running_loop().call_later(self.run_limit_s, _kill, proc)
            try:
                assert proc.stdout is not None
                while data := await proc.stdout.read(4096):
                    text = data.decode(errors="replace")
                    chunks.append(text)
                    seq += 1
                    yield TextDelta(agent=self.name, seq=seq, text=text)
                code = await proc.wait()
            finally:
                timer.cancel()
                stopper()
                _kill(proc, group=True)  # what it left running (its bridge...) ends with it
                gateway.close_run(credential)
        output = "".join(chunks).strip()
        if abort.aborted:
            yield done(output, reason="cancelled")
        elif code != 0:
            yield done(output, f"the external agent {self.name!r} exited with code {code} "
                               f"(its stderr is in {self._log_path()})")
        else:
            yield done(output)

    def _log_path(self) -> Path:
        return self.workspace / ".orkas" / "logs" / f"external-{self.name}.log"

    async def _start(self, task: str, gateway_env: dict[str, str]) -> asyncio.subprocess.Process:
        argv = list(self.definition.command or ())
        by_arg = any("{task}" in a for a in argv[1:])
        if by_arg:
            argv = [argv[0], *(a.replace("{task}", task) for a in argv[1:])]
        env = {k: v for k, v in os.environ.items() if not _SECRET.search(k)}
        env.update({k: os.environ[k] for k in self.definition.env if k in os.environ})
        env.update(gateway_env)
        log = self._log_path()
        log.parent.mkdir(parents=True, exist_ok=True)
        with open(log, "ab") as err:
            proc = await asyncio.create_subprocess_exec(
                *argv, cwd=str(self.workspace), env=env, start_new_session=True,
                stdin=asyncio.subprocess.DEVNULL if by_arg else asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE, stderr=err)
        if not by_arg:
            assert proc.stdin is not None
            with contextlib.suppress(ConnectionError):
                proc.stdin.write(task.encode())
                await proc.stdin.drain()
            proc.stdin.close()
        return proc


def _kill(proc: asyncio.subprocess.Process, group: bool = False) -> None:
    if proc.returncode is None or group:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGTERM)
