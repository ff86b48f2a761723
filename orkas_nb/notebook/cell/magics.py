"""The ``%%agent`` cell magic and the ``%agent`` line magics.

The cell magic here is the path IPython takes when a ``%%agent`` cell was *not* turned into an
awaited call (``cell/transform.py``); the line magics manage sessions, configuration and background
runs. Each prints plain text; a mistake in their arguments is a one-line ``UsageError``.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, line_magic, magics_class, no_var_expand

from .. import plugins
from .arguments import CELL_HELP, LINE_USAGE, split

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

    from ...core.messages import Message
    from ..state import ActiveRun, NotebookState

# This module loads at %load_ext, which stays free of pydantic and the engine: each
# subcommand imports the part it needs when it runs (bench_magic_overhead.py measures it).


def _size(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GB"


def _ago(ts: float) -> str:
    s = max(0.0, time.time() - ts)
    if s < 60:
        return f"{s:.0f} s ago"
    if s < 3600:
        return f"{s / 60:.0f} min ago"
    if s < 86400:
        return f"{s / 3600:.1f} h ago"
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(ts))


def _keys_set() -> list[str]:
    """Endpoints whose key is in the environment, as ``name (VARIABLE)``; never the key."""
    endpoints: dict[str, str | None] = {"openai": None, "anthropic": None}
    try:  # the registry knows the named OpenAI-compatible endpoints
        from ...providers.registry import BUILTIN_ENDPOINTS

        endpoints.update({name: ep.api_key_env for name, ep in BUILTIN_ENDPOINTS.items()})
    except Exception:  # noqa: BLE001, S110 - the registry is optional here
        pass
    found = []
    for name, env in endpoints.items():
        for var in filter(None, (env, f"{name.upper()}_API_KEY")):
            if os.environ.get(var):
                found.append(f"{name} ({var})")
                break
    return found


def _conversation_text(messages: list[Message]) -> str:
    from ..views.transcript import TAssistant, TUser, convert_messages

    lines = []
    for m in convert_messages(messages):
        if isinstance(m, TUser):
            lines.append(("steer> " if m.origin == "steer" else "you> ") + m.text)
        elif isinstance(m, TAssistant):
            if m.text:
                lines.append("agent> " + m.text)
            lines += [f"  → {c.name}({', '.join(f'{k}={v!r}' for k, v in c.arguments.items())})"
                      for c in m.tool_calls]
        else:
            first = (m.text.splitlines() or [""])[0][:100]
            lines.append(f"  ← {m.name} [{m.status}] {first}")
    return "\n".join(lines)


@magics_class
class AgentMagics(Magics):
    def __init__(self, shell: InteractiveShell, state: NotebookState) -> None:
        super().__init__(shell)
        self.state = state

    @no_var_expand
    @cell_magic("agent")
    def agent_cell(self, line: str, cell: str) -> None:
        """%%agent [-m MODEL] [-s SESSION] [--new] [--no-tools] [--background] [@NAME]: run a turn."""
        from .run import run_cell_sync

        run_cell_sync(line, cell)

    @no_var_expand
    @line_magic("agent")
    def agent_line(self, line: str) -> None:
        """%agent sessions | show [SESSION] | new | clear | use SESSION | config | allow PATH |
        steer TEXT | stop [SESSION] | kb … | memory … | agents [new NAME] | skills | plan | mcp … |
        packages … | help"""
        words = split(line, LINE_USAGE)
        if not words:
            raise UsageError(f"a subcommand is needed; usage: {LINE_USAGE}")
        command, args = words[0], words[1:]
        handler = getattr(self, f"_cmd_{command}", None)
        if handler is None:
            raise UsageError(f"unknown subcommand {command!r}; usage: {LINE_USAGE}")
        rest = line.strip()[len(command):].strip()
        handler(args, rest)

    # -- subcommands --------------------------------------------------------------------------

    def _no_args(self, name: str, args: list[str]) -> None:
        if args:
            raise UsageError(f"%agent {name} takes no arguments; usage: {LINE_USAGE}")

    def _cmd_help(self, args: list[str], rest: str) -> None:
        print(CELL_HELP)

    def _cmd_sessions(self, args: list[str], rest: str) -> None:
        self._no_args("sessions", args)
        from ...harness.session import list_sessions

        rows = list_sessions(self.state.workspace)
        current = self.state.current
        if not rows:
            print(f"no sessions yet in {self.state.workspace} (current: {current})")
            return
        width = max(len(str(r["name"])) for r in rows)
        for r in rows:
            mark = "*" if r["name"] == current else " "
            running = "  (running in the background)" if self.state.busy(str(r["name"])) else ""
            print(f"{mark} {str(r['name']).ljust(width)}  {_size(float(r['bytes'])):>9}  "
                  f"{_ago(float(r['modified']))}{running}")

    def _cmd_show(self, args: list[str], rest: str) -> None:
        if len(args) > 1:
            raise UsageError(f"%agent show takes at most one session name; usage: {LINE_USAGE}")
        name = args[0] if args else self.state.current
        if not self.state.session_file(name).exists() and name not in self.state._sessions:
            raise UsageError(f"no session named {name!r}; see %agent sessions")
        session = self.state.read_session(name)
        messages = session.messages
        print(f"session {name}: {len(messages)} messages")
        text = _conversation_text(messages)
        if text:
            print(text)

    def _cmd_new(self, args: list[str], rest: str) -> None:
        self._no_args("new", args)
        name = self.state.new_session_name()
        self.state.use(name)
        self.state.forget_providers()
        self.state.close_teams()
        print(f"new session: {name} (the next %%agent cell starts it)")

    def _cmd_clear(self, args: list[str], rest: str) -> None:
        self._no_args("clear", args)
        name = self.state.current
        if self.state.busy(name):
            raise UsageError(f"session {name!r} has a run in progress: %agent stop first")
        session = self.state.open_session(name)
        count = len(session.messages)
        session.rewrite([])
        self.state.forget_providers()
        print(f"cleared session {name} ({count} messages)")

    def _cmd_use(self, args: list[str], rest: str) -> None:
        if len(args) != 1:
            raise UsageError(f"%agent use needs one session name; usage: {LINE_USAGE}")
        self.state.use(args[0])
        exists = self.state.session_file(args[0]).exists()
        print(f"using session {args[0]}" + ("" if exists else " (new)"))

    def _cmd_config(self, args: list[str], rest: str) -> None:
        self._no_args("config", args)
        c, s = self.state.config, self.state
        keys = _keys_set()
        rows = [
            ("model", c.model or "(none: pass -m, or %config Agent.model = ...)"),
            ("keys set", ", ".join(keys) if keys else "(none: replay: cassettes and local servers need none)"),
            ("workspace", str(s.workspace)),
            ("allowed folders", ", ".join(s.all_allowed_paths()) or "(none)"),
            ("sandbox", _sandbox_mode()),
            ("approval", c.approval + (f"; allowed: {', '.join(c.allow)}" if c.allow else "")),
            ("session", f"{s.current} ({s.session_file(s.current).relative_to(s.workspace)})"),
            ("renderer", f"{c.renderer} (known: {', '.join(plugins.renderer_names())})"),
            *[(f"  {spec.split(':')[0].rsplit('.', 1)[-1]} view", f"unavailable: {why}")
              for spec, why in plugins.load_builtin().items() if why != "ok"],
            ("transcript", "on" if c.transcript else "off"),
            ("top-level await", "on" if c.top_level_await and getattr(self.shell, "autoawait", False) else "off"),
        ]
        width = max(len(k) for k, _ in rows)
        for k, v in rows:
            print(f"{k.ljust(width)}  {v}")

    def _cmd_allow(self, args: list[str], rest: str) -> None:
        if len(args) != 1:
            raise UsageError(f"%agent allow needs one folder; usage: {LINE_USAGE}")
        folder = Path(args[0]).expanduser()
        if not folder.is_absolute():
            folder = self.state.workspace / folder
        folder = folder.resolve()
        if not folder.is_dir():
            raise UsageError(f"{args[0]!r} is not a folder")
        problem = _refused_folder(folder, self.state.workspace)
        if problem:
            raise UsageError(problem)
        if str(folder) not in self.state.allowed_paths:
            self.state.allowed_paths.append(str(folder))
        print(f"allowed: {folder} (from the next run)")

    def _cmd_kb(self, args: list[str], rest: str) -> None:
        from .memory_magics import kb_command

        kb_command(Path(self.state.workspace), args, rest, self.state.config.kb_embedder)

    def _cmd_memory(self, args: list[str], rest: str) -> None:
        from .memory_magics import memory_command

        memory_command(Path(self.state.workspace), args, rest)

    def _cmd_agents(self, args: list[str], rest: str) -> None:
        from .team_magics import agents_command

        agents_command(self.state, args)

    def _cmd_mcp(self, args: list[str], rest: str) -> None:
        from .mcp_magics import mcp_command

        mcp_command(self.state, rest)

    def _cmd_skills(self, args: list[str], rest: str) -> None:
        from .team_magics import skills_command

        skills_command(self.state, args)

    def _cmd_packages(self, args: list[str], rest: str) -> None:
        from .packages_magics import packages_command

        packages_command(self.state, args)

    def _cmd_evolve(self, args: list[str], rest: str) -> None:
        from .evolve_magics import evolve_command

        evolve_command(self.state, args)

    def _cmd_plan(self, args: list[str], rest: str) -> None:
        from .plan_cell import plan_command

        plan_command(self.state, args)

    def _cmd_steer(self, args: list[str], rest: str) -> None:
        if not rest:
            raise UsageError(f"%agent steer needs a message; usage: {LINE_USAGE}")
        runs = self._background_runs("steer")
        # The current session's run; else the only one; with several, the user says which.
        run = runs.get(self.state.current) or (next(iter(runs.values())) if len(runs) == 1 else None)
        if run is None:
            raise UsageError(f"background runs in sessions {', '.join(sorted(runs))}: "
                             "%agent use SESSION, then %agent steer TEXT")
        try:
            run.agent.steer(rest)
        except RuntimeError:  # the background run ended meanwhile
            raise UsageError("the background run has ended; send this as a new %%agent prompt") from None
        print(f"steer message queued for session {run.session}: folded in at the next tool boundary")

    def _cmd_stop(self, args: list[str], rest: str) -> None:
        if len(args) > 1:
            raise UsageError(f"%agent stop takes at most one session name; usage: {LINE_USAGE}")
        runs = self._background_runs("stop")
        if args:
            if args[0] not in runs:
                raise UsageError(f"no background run in session {args[0]!r} "
                                 f"(running: {', '.join(sorted(runs))})")
            runs = {args[0]: runs[args[0]]}
        for name, run in sorted(runs.items()):
            run.abort.abort("stopped by the user (%agent stop)")
            print(f"stopping the background run in session {name}")

    def _background_runs(self, verb: str) -> dict[str, ActiveRun]:
        runs = self.state.running_in_background()
        if not runs:
            raise UsageError(f"no background run to {verb} (a busy %%agent cell has its own "
                             "controls; %%agent --background starts one)")
        return runs


def _sandbox_mode() -> str:
    try:
        from ...tools import ToolSettings, isolation_status
        from ...tools.limits import describe

        status = isolation_status()
        return f"{status.mode} ({status.detail}); {describe(ToolSettings())}"
    except Exception as exc:  # noqa: BLE001 - the tools layer reports; the magic only shows
        return f"unknown ({type(exc).__name__}: {exc})"


def _refused_folder(folder: Path, workspace: Path) -> str | None:
    """Why the tools would refuse ``folder`` (credentials, system folders, our own state)."""
    from ...core.errors import ConfigError
    from ...tools.paths import PathPolicy

    try:
        PathPolicy(workspace, [folder])
    except ConfigError as exc:
        return str(exc)
    return None
