"""What the notebook adapter keeps between cells: the sessions, the current one, the active run.

One :class:`NotebookState` per IPython shell. The default session is one per notebook: named
from the notebook file in ``JPY_SESSION_NAME`` when the front end sets it (JupyterLab does,
nbclient does not), else from the working folder's name. Session files live in the workspace
(``.orkas/sessions/<name>.jsonl``) and stay open (and locked) while the kernel lives, so a
second kernel on the same notebook gets a clear error instead of interleaved lines.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # asyncio costs ~70 ms to import in a terminal IPython; keep loading light
    import asyncio

    from ..agent.assembly import SetupNotices
    from ..agent.models import ProviderPool

from .cell.config import Agent as AgentConfig


def default_session_name(environ: Any = None, cwd: str | None = None) -> str:
    environ = os.environ if environ is None else environ
    notebook = (environ.get("JPY_SESSION_NAME") or "").strip()
    if notebook:
        stem = Path(notebook).stem
        if stem:
            return stem
    return Path(cwd or os.getcwd()).name or "default"


@dataclass
class ActiveRun:
    """A run in progress: what ``%agent stop`` and ``%agent steer`` act on."""

    agent: Any
    abort: Any
    session: str
    background: bool
    task: asyncio.Task[Any] | None = None
    result: Any = None
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def done(self) -> bool:
        return self.task is not None and self.task.done()


class NotebookState:
    def __init__(self, shell: Any, config: AgentConfig) -> None:
        self.shell = shell
        self.config = config
        self._load_cwd = os.getcwd()
        self._current: str | None = None
        self._sessions: dict[str, Any] = {}
        self.allowed_paths: list[str] = []  # added with %agent allow (config ones come first)
        self.active: ActiveRun | None = None
        self.last: ActiveRun | None = None
        # The latest --background run of each session (several may run at once, each stoppable).
        self.background: dict[str, ActiveRun] = {}
        self._pool: ProviderPool | None = None
        self.tools: dict[tuple[Any, ...], list[Any]] = {}  # built tools, see prepare._tools
        # What the user and the model are told of those tools (SetupNotices: MCP servers not
        # approved, down, or approved but not started), per the same key.
        self.tool_notices: dict[tuple[Any, ...], SetupNotices] = {}
        # A team conversation's state (bus, ledger, member sessions) per session name: opened
        # once per kernel, as its files are locked to the process that holds them.
        self._teams: dict[str, Any] = {}
        self.plan_views: dict[str, Any] = {}  # the latest plan display of each session

    # -- where ------------------------------------------------------------------------------

    @property
    def workspace(self) -> Path:
        return Path(self.config.workspace or self._load_cwd).expanduser().resolve()

    @property
    def default_session(self) -> str:
        return self.config.session or default_session_name(cwd=self._load_cwd)

    @property
    def current(self) -> str:
        return self._current or self.default_session

    def use(self, name: str) -> None:
        self._current = name

    def all_allowed_paths(self) -> list[str]:
        seen: list[str] = []
        for p in [*self.config.allowed_paths, *self.allowed_paths]:
            if p not in seen:
                seen.append(p)
        return seen

    # -- models -----------------------------------------------------------------------------

    @property
    def pool(self) -> ProviderPool:
        """This conversation's providers, resolved once: connections, key cooldowns and a
        replayed cassette's position carry over from cell to cell."""
        if self._pool is None:
            from ..agent.models import ProviderPool

            self._pool = ProviderPool(keep_cassettes=True)
        return self._pool

    def forget_providers(self) -> None:
        """A fresh conversation starts its models (a cassette from its first call) and its
        tools (what was read) afresh."""
        self._pool = None
        self.tools.clear()
        self.tool_notices.clear()

    # -- sessions ---------------------------------------------------------------------------

    def session_file(self, name: str) -> Path:
        from ..harness.session import session_path

        return session_path(self.workspace, name)

    def open_session(self, name: str) -> Any:
        """The writable session ``name`` (opened once, kept open while the kernel lives)."""
        from ..harness.session import JsonlSession

        path = self.session_file(name)
        session = self._sessions.get(name)
        if session is not None and Path(session.path) == path:
            return session
        session = JsonlSession(path)
        self._sessions[name] = session
        return session

    def read_session(self, name: str) -> Any:
        """A session to look at: the open one, or a read-only view of the file."""
        from ..harness.session import JsonlSession

        path = self.session_file(name)
        open_one = self._sessions.get(name)
        if open_one is not None and Path(open_one.path) == path:
            return open_one
        return JsonlSession(path, readonly=True)

    def new_session_name(self) -> str:
        base = self.default_session
        n = 2
        while True:
            name = f"{base}-{n}"
            if name not in self._sessions and not self.session_file(name).exists():
                return name
            n += 1

    def busy(self, session: str) -> ActiveRun | None:
        for run in (self.background.get(session), self.active):
            if run is not None and not run.done and run.session == session:
                return run
        return None

    def running_in_background(self) -> dict[str, ActiveRun]:
        """The --background runs still going, by session."""
        return {name: run for name, run in self.background.items() if not run.done}

    # -- teams ------------------------------------------------------------------------------

    def team_state(self, name: str) -> Any:
        """The team state of the conversation in session ``name`` (opened once, kept open)."""
        from ..team.state import TeamState

        state = self._teams.get(name)
        if state is not None and state.workspace == self.workspace:
            return state
        if state is not None:  # the workspace changed: its old conversation lets go of its files
            self._teams.pop(name).close()
        state = self._teams[name] = TeamState(self.workspace, name)
        return state

    @property
    def plans(self) -> dict[str, Any]:
        """The plan executor of each session's conversation (kept with its team state, so one
        per conversation across cells; what %agent plan shows and controls)."""
        return {name: t.plan for name, t in self._teams.items() if t.plan is not None}

    def close_teams(self) -> None:
        """Close the team states of the conversations that have no run going (a plan's too)."""
        for name in [n for n in self._teams if self.busy(n) is None]:
            try:
                self._teams.pop(name).close()
            except Exception:  # noqa: BLE001, S110 - closing is best effort; the files are valid
                pass

    def close(self) -> None:
        self.close_teams()
        for session in self._sessions.values():
            try:
                session.close()
            except Exception:  # noqa: BLE001, S110 - closing at unload is best effort
                pass
        self._sessions.clear()


# The adapter's state per shell; here rather than in the package's __init__, so the modules of a
# cell reach it without importing the package that imports them.
_states: dict[int, NotebookState] = {}


def current_state(shell: Any = None) -> NotebookState | None:
    """The adapter's state for ``shell`` (default: the running IPython), or None."""
    if shell is None:
        try:
            from IPython import get_ipython

            shell = get_ipython()
        except Exception:  # noqa: BLE001 - no IPython, no state
            return None
    return _states.get(id(shell)) if shell is not None else None
