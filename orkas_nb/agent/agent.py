"""``orkas_nb.Agent``: the one object a script or a notebook needs.

It resolves a model string to a provider through a :class:`~.models.ProviderPool` (or takes a
provider object), assembles the default workspace tools plus the caller's, opens the session,
and runs turns through the harness's :class:`~orkas_nb.harness.runner.Runner`. It holds no logic of its own beyond that wiring.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, AsyncIterator, Callable, Iterable, Sequence

from ..core.errors import ConfigError
from ..core.events import RunEvent, RunResult
from ..core.messages import UserMessage
from ..harness.cancellation import AbortSignal
from ..harness.config import RunConfig
from ..harness.runner import Runner
from ..harness.session import InMemorySession, JsonlSession, Session, session_path
from ..harness.tool_protocol import Tool, ToolRegistry
from ..providers.base import LLMProvider
from .assembly import SetupNotices, assemble_tools, workspace_knowledge
from .models import ProviderPool, ResolvedModel, default_pool
from .skills_wiring import SkillsChoice, agent_skills

if TYPE_CHECKING:
    from ..providers.catalog import Catalog
    from ..team.definitions import AgentDefinition
    from .factory import MemberFactory

DEFAULT_SYSTEM_PROMPT = """\
You are orkas, an agent working in the user's folder ({workspace}).
Use the tools to look before you answer; cite files by path. Keep answers short and exact.
When a tool refuses or fails, read why and choose another way; never guess a file's content."""


@dataclass(frozen=True)
class _Parts:
    """What an agent was built from, so its team's members are built the same way."""

    tools: tuple[Tool | Callable[..., Any], ...]
    default_tools: bool
    services: dict[str, Any] | None
    allowed_paths: tuple[str | Path, ...]
    approver: Callable[..., Any] | None
    tool_settings: Any
    memory: Any
    knowledge: Any
    kb_embedder: str | None
    provider_options: dict[str, Any]
    open_tier_skills: bool | None = None


class Agent:
    """An agent: model + tools + session + workspace. See the README for a tour."""

    def __init__(
        self,
        model: str | LLMProvider,
        *,
        workspace: str | Path = ".",
        session: str | Session | None = None,
        tools: Sequence[Tool | Callable[..., Any]] = (),
        default_tools: bool = True,
        system_prompt: str | None = None,
        name: str = "agent",
        config: RunConfig | None = None,
        model_name: str | None = None,
        services: dict[str, Any] | None = None,
        allowed_paths: Sequence[str | Path] = (),
        approver: Callable[..., Any] | None = None,
        tool_settings: Any = None,
        memory: Any = None,
        knowledge: Any = None,
        kb_embedder: str | None = None,
        pool: ProviderPool | None = None,
        skills: SkillsChoice = True,
        open_tier_skills: bool | None = None,
        **provider_options: Any,
    ) -> None:
        self.workspace = Path(workspace).expanduser().resolve()
        if not self.workspace.is_dir():
            raise ConfigError(f"workspace {str(self.workspace)!r} is not a folder")
        # The pool is where a model string becomes a provider (see .models); ``model_name``
        # names the model a provider object is asked for.
        self.pool = pool if pool is not None else default_pool()
        self.resolved: ResolvedModel = self.pool.resolve(model, model_name=model_name,
                                                         **provider_options)
        provider = self.provider = self.resolved.provider
        self.model = self.resolved.model
        self.session = self._open_session(session)
        # True: every skill (this agent plays the commander's role); names: those (a member).
        self.skills = agent_skills(self.workspace, skills, open_tier=open_tier_skills)
        notices = SetupNotices()  # of the MCP servers: not approved, not running, not started
        self.tools = ToolRegistry(assemble_tools(
            self.workspace, services=services, allowed_paths=allowed_paths, approver=approver,
            settings=tool_settings, extra=tools, workspace_tools=default_tools,
            readonly_paths=self.skills.readonly_paths, notices=notices))
        if self.skills.tool is not None and self.skills.tool.name not in self.tools:
            self.tools.add(self.skills.tool)
        template = DEFAULT_SYSTEM_PROMPT if system_prompt is None else system_prompt
        self.system_prompt = self.skills.prompt(template.replace("{workspace}", str(self.workspace)))
        self._prompt = self._wire_memory(memory, knowledge, approver, kb_embedder)
        self.name = name
        self._abort: AbortSignal | None = None
        self._parts = _Parts(tuple(tools), default_tools, services, tuple(allowed_paths), approver,
                             tool_settings, memory, knowledge, kb_embedder, dict(provider_options),
                             open_tier_skills)
        self.runner = Runner(
            provider,
            self.model,
            tools=self.tools,
            session=self.session,
            system_prompt=self._prompt or self.system_prompt,
            name=name,
            workspace=self.workspace,
            config=config,
            services=services,
        )
        self.runner.notices = self.skills.notices()
        notices.give_to(self.runner)

    def _wire_memory(self, memory: Any, knowledge: Any, approver: Any = None,
                     kb_embedder: str | None = None) -> Any:
        """Cross-session memory and the knowledge base, each only where the user turned it on.

        ``memory``: None follows the workspace's switch (``%agent memory on``), False keeps it
        off, True or a ``CrossSessionMemory`` turns it on for this agent. ``knowledge``: None
        adds ``kb_search`` when the workspace has a knowledge base (searched with the embedder
        ``kb_embedder`` names, an ``Agent.kb_embedder`` setting), False never, or a
        ``KnowledgeBase`` to search. Returns the frozen system prompt when memory is on.
        """
        from .. import memory as mem_pkg  # light: the package loads its parts lazily

        kb = workspace_knowledge(self.workspace, kb_embedder) if knowledge is None else knowledge
        if kb not in (None, False) and "kb_search" not in self.tools:
            self.tools.add(mem_pkg.kb_search_tool(kb))
        if memory is False:
            return None
        store = memory if memory not in (None, True) else mem_pkg.CrossSessionMemory(self.workspace)
        if memory is None and not store.enabled:
            return None
        if "memory" not in self.tools:
            # None unless turned on; a judge_model of its own is resolved like the agent's model
            judge = mem_pkg.judge_for(store, self.provider, self.model,
                                      resolve=self.pool.resolve_pair)
            self.tools.add(mem_pkg.memory_tool(store, approver=approver, judge=judge))
        return mem_pkg.FrozenPrompt(self.system_prompt, store)

    def _freeze_prompt(self) -> None:
        # Memory is read once at the start of a turn, so every request of the turn carries the
        # same bytes (prompt caching) even when the memory tool writes mid-turn.
        if self._prompt is not None:
            self._prompt.freeze()

    def _open_session(self, session: str | Session | None) -> Session:
        if session is None:
            return InMemorySession()
        if isinstance(session, str):
            return JsonlSession(session_path(self.workspace, session))
        return session

    def run(
        self, prompt: str | UserMessage | None, *, abort: AbortSignal | None = None
    ) -> AsyncIterator[RunEvent]:
        """Run one turn, yielding events; the last is ``done`` with the :class:`RunResult`.

        ``prompt`` None continues the session from the results it ends with (a call answered
        from outside, such as a plan's ``ask_user``; ``Runner.run``). The runner's own event
        stream is handed back (no relaying layer: a run yields an event per streamed token).
        The turn starts when it is first iterated.
        """
        self._abort = abort or AbortSignal()
        self._freeze_prompt()
        return self.runner.run(prompt, abort=self._abort)

    async def arun(self, prompt: str | UserMessage | None, *, abort: AbortSignal | None = None) -> RunResult:
        """Run one turn and return its result (the non-streaming entry)."""
        self._abort = abort or AbortSignal()
        self._freeze_prompt()
        return await self.runner.run_to_end(prompt, abort=self._abort)

    def run_sync(self, prompt: str | UserMessage, *, abort: AbortSignal | None = None) -> RunResult:
        """Run one turn from synchronous code and return its result.

        From a script: on a fresh event loop. Where a loop already runs (a notebook cell): on a
        worker thread's loop while this thread waits; the kernel interrupt stops the turn, and
        approvals are asked through ``input()`` or denied, since no button click can arrive while
        the cell blocks (``await agent.arun(...)`` gets the buttons); see :mod:`.blocking`.
        """
        abort = self._abort = abort or AbortSignal()  # stop() works before the turn starts
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.arun(prompt, abort=abort))
        from .blocking import run_blocking

        return run_blocking(self.arun(prompt, abort=abort), abort)

    def steer(self, text: str) -> None:
        """Add a message to the running turn (folded in at the next tool boundary)."""
        self.runner.steer(text)

    def stop(self, reason: str = "stopped by the user") -> None:
        """Stop the running turn; the session is left valid."""
        if self._abort is not None:
            self._abort.abort(reason)

    def member_factory(self, definitions: Iterable[AgentDefinition] = ()) -> MemberFactory:
        """The agent factory this agent's team builds its members with (SPEC §2, §11);
        ``definitions``: the team's named agents."""
        from .factory import MemberFactory

        return MemberFactory(self, definitions)

    @property
    def catalog(self) -> Catalog | None:
        """The catalog the model's cost is priced from (None: the built-in list prices)."""
        return self.resolved.catalog

    @property
    def messages(self) -> list[Any]:
        return self.session.messages

    def close(self) -> None:
        self.session.close()

    def __enter__(self) -> "Agent":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
