"""Preparing one ``%%agent`` turn: model, session, tools, approver and the view, from the cell.

Everything that can go wrong before the model is asked happens here and is reported in one
line: a ``UsageError`` for the magic's own arguments, a :class:`NotebookError` for the setup
(an unknown model, a locked session, a refused folder).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError

from .arguments import CellOptions
from .plan_cell import PLAN_NUDGE
from ..views.slots import new_slot
from ..views.renderer import RunControls, RunInfo, fan_out

if TYPE_CHECKING:
    from ...agent import Agent
    from ...agent.assembly import SetupNotices
    from ...providers.catalog import Catalog, RunningCost
    from ..state import NotebookState


class NotebookError(Exception):
    """An error the magic explains in one line (no traceback): bad setup, a failed run."""

    def _render_traceback_(self) -> list[str]:
        return [f"orkas: {self}"]


class RunFailed(NotebookError):
    pass


class RunInterrupted(KeyboardInterrupt):
    """The kernel's interrupt ended the run (the cell fails, so "Run all" stops here)."""

    def _render_traceback_(self) -> list[str]:
        return [f"RunInterrupted: {self}"]


def loaded_state() -> NotebookState:
    from ..state import current_state

    state = current_state()
    if state is None:
        raise UsageError("orkas_nb is not loaded: run %load_ext orkas_nb")
    return state


def model_from_option(text: str, user_ns: dict[str, Any]) -> Any:
    """What ``-m`` names: a model string, or ``$name`` of a model string or provider object in
    the notebook (the Agent's provider pool then turns a string into a provider)."""
    text = text.strip()
    if not text.startswith("$"):
        return text
    name = text[1:]
    if name not in user_ns:
        raise UsageError(f"-m {text}: the notebook has no variable {name!r}")
    value = user_ns[name]
    if isinstance(value, str) or callable(getattr(value, "stream", None)):
        return value
    raise UsageError(f"-m {text}: {name!r} is a {type(value).__name__}, not a model string "
                     "or a provider object")


@dataclass
class Prepared:
    agent: Agent
    prompt: str
    info: RunInfo
    renderer: Any
    abort: Any
    notes: list[str]
    live: Any
    session: str
    background: bool
    team: Any = None  # the workspace's team, the agent its commander; None: a single agent
    plan: Any = None  # the cell's view of the team's plan (cell/plan_cell.py); None: no team

    @property
    def steers(self) -> Any:
        """What ``%agent steer`` and the steer box talk to: the team (floor holder, else the
        commander) or the single agent."""
        return self.team if self.team is not None else self.agent


def _namespace_tools(user_ns: dict[str, Any]) -> list[Any]:
    from ...harness.tool_protocol import FunctionTool

    found: dict[str, Any] = {}
    for key, value in list(user_ns.items()):
        if not key.startswith("_") and isinstance(value, FunctionTool):
            found.setdefault(value.name, value)
    return list(found.values())


def _tools(state: NotebookState, opts: CellOptions, session: str,
           services: dict[str, Any], readonly: tuple[str, ...] = ()
           ) -> tuple[list[Any], SetupNotices]:
    """Workspace tools (with the allowed folders), registered extras (kernel tools), then the
    notebook's own @tool functions; a later tool replaces an earlier one of the same name. With
    them, what the user is told at each turn (MCP servers not approved or not running) and what
    the model is told (an approved server that did not start).

    The built tools are kept per session and folder set: building them (a schema per tool) is
    most of a cell's cost before the model is asked, and their read ledger then spans the
    session's cells, as it would for one long-lived agent. The run's approver reaches them
    through ``services`` at call time, so a kept tool asks the current run's approver.
    """
    from ...agent.assembly import SetupNotices
    from .. import plugins

    if opts.no_tools:
        return [], SetupNotices()
    config, shell = state.config, state.shell
    key = (session, str(state.workspace), tuple(state.all_allowed_paths()), config.workspace_tools,
           readonly)
    found = state.tools.get(key)
    if found is None:
        from ...agent.assembly import assemble_tools

        notices = state.tool_notices[key] = SetupNotices()
        found = state.tools[key] = assemble_tools(
            state.workspace, services=services, allowed_paths=state.all_allowed_paths(),
            extra=plugins.extra_tools(shell, services), workspace_tools=config.workspace_tools,
            readonly_paths=readonly, notices=notices)
    if config.namespace_tools:
        found = found + _namespace_tools(shell.user_ns)
    return list({t.name: t for t in found}.values()), state.tool_notices.get(key, SetupNotices())


def _session_name(state: NotebookState, opts: CellOptions) -> str:
    if opts.session:
        return opts.session
    if opts.new:
        state.use(state.new_session_name())
        state.forget_providers()
        state.close_teams()
    return state.current


def prepare(state: NotebookState, opts: CellOptions, body: str, *, background: bool) -> Prepared:
    from ...agent import Agent
    from ...core.errors import OrkasError
    from ...harness.cancellation import AbortSignal
    from ...harness.runner import RunConfig
    from .. import plugins
    from ..approvals.policy import NotebookApprover
    from .interpolate import interpolate
    from ..views.transcript import Provenance, TranscriptBuilder

    shell, config = state.shell, state.config
    model_text = opts.model or config.model
    if not model_text:
        raise UsageError('no model: pass -m MODEL, or %config Agent.model = "provider/model", '
                         "or set ORKAS_MODEL")
    model = model_from_option(model_text, shell.user_ns)
    if not body.strip():
        raise UsageError("the cell has no prompt: write it below the %%agent line")
    hist = getattr(shell, "history_manager", None)
    filled = interpolate(body.strip("\n"), shell.user_ns, getattr(hist, "input_hist_raw", None),
                         max_chars=config.interpolation_max_chars)
    name = _session_name(state, opts)
    busy = state.busy(name)
    if busy is not None:
        raise UsageError(f"a background run is still going in session {name!r}: "
                         "%agent stop, or `await orkas_nb.notebook.wait()`")
    abort = AbortSignal()
    approver = NotebookApprover(config.approval, config.allow, shell=shell, background=background)
    services: dict[str, Any] = {"approver": approver, "allowed_paths": state.all_allowed_paths(),
                                "shell": shell}
    skills = config.skills and not opts.no_tools
    try:
        from ...agent.skills_wiring import agent_skills

        # The skills' folders are the tools' read-only folders (kept with the tools per set).
        wired = agent_skills(state.workspace, skills, open_tier=config.open_tier_skills)
        readonly = tuple(map(str, wired.readonly_paths))
        tools, tool_notices = _tools(state, opts, name, services, readonly)
        session = state.open_session(name)
        agent = Agent(
            model, pool=state.pool, workspace=state.workspace, session=session, tools=tools,
            default_tools=False, system_prompt=config.system_prompt,
            config=RunConfig(max_steps=config.max_steps, temperature=config.temperature),
            services=services,
            # The workspace's switches decide memory and the knowledge base; --no-tools: neither.
            memory=False if opts.no_tools else None, knowledge=False if opts.no_tools else None,
            kb_embedder=config.kb_embedder, skills=wired, open_tier_skills=config.open_tier_skills,
        )
        tool_notices.give_to(agent.runner)
        team, warnings = _team(state, opts, agent, name)
    except OrkasError as exc:
        raise NotebookError(str(exc)) from None
    prompt = _address(team, opts, filled.text)
    cell_plan = _cell_plan(state, opts, team, name)
    if opts.plan and cell_plan is not None:
        prompt = f"{prompt}\n\n{PLAN_NUDGE}"
    before = {m.id for m in session.messages}
    provider, label = agent.provider, agent.resolved.label
    from ...providers.cassette import ReplayProvider

    replay = provider.path if isinstance(provider, ReplayProvider) else None
    parent = shell.get_parent() if hasattr(shell, "get_parent") else {}
    cell_id = (parent or {}).get("metadata", {}).get("cellId")
    info = RunInfo(agent=agent.name, model=label, session=name,
                   workspace=str(state.workspace), prompt=prompt, floor=_floor(team),
                   members={n: d.model for n, d in team.definitions.items() if d.model}
                   if team is not None else {})
    cost = None if replay is not None else _cost_source(agent.catalog)  # a replay cost nothing
    builder = TranscriptBuilder(
        lambda: [m for m in session.messages if m.id not in before],
        provenance=Provenance(
            provider=getattr(provider, "id", None), model=label, session=name,
            session_file=str(state.session_file(name).relative_to(state.workspace)),
            first_message=len(before), workspace=state.workspace.name,
            replay=_relative(replay, state.workspace), cell_id=cell_id,
        ),
        cost=cost,
    )

    def transcript(result: Any) -> tuple[dict[str, Any], dict[str, Any]] | None:
        if not config.transcript:
            return None
        return builder.build(result).bundle(), {}

    controls = RunControls(team if team is not None else agent, abort, approver)
    try:
        _, factory = plugins.choose_renderer(config.renderer, shell)
    except OrkasError as exc:
        raise NotebookError(str(exc)) from None
    ctx = plugins.RenderContext(shell=shell, info=info, slot=new_slot(shell), controls=controls,
                                transcript=transcript, background=background,
                                refresh_interval=config.refresh_interval,
                                extra={"cost": cost} if cost is not None else {})
    live = factory(ctx)
    approver.interactive = plugins.interactive_approver(ctx, live)
    controls.approver = approver.interactive or approver
    return Prepared(agent=agent, prompt=prompt, info=info,
                    renderer=fan_out([builder, live]), abort=abort,
                    notes=filled.notes + warnings, live=live, session=name,
                    background=background, team=team, plan=cell_plan)


def _cell_plan(state: NotebookState, opts: CellOptions, team: Any, name: str) -> Any:
    """The cell's view of the team's plan (kept for ``%agent plan``); ``--plan`` needs a team."""
    from .plan_cell import CellPlan, executor_of

    executor = executor_of(team)
    if executor is None:
        if opts.plan:
            raise UsageError("%%agent --plan: this workspace defines no agents to plan for "
                             "(define one with %agent agents new NAME)")
        return None
    return CellPlan(executor, state.shell, forced=opts.plan, renderer=state.config.renderer,
                    shown=state.plan_views, session=name)


def _team(state: NotebookState, opts: CellOptions, agent: Agent,
          name: str) -> tuple[Any, list[str]]:
    """The team ``agent`` commands when the workspace defines agents (else None: nothing
    changes), built on the conversation's kept state, and the problems of the agent files.

    The team is rebuilt per cell over one :class:`~orkas_nb.team.state.TeamState` per session:
    the state (bus, ledger, floor, member sessions) is what lasts, and the cell's own model,
    tools and approver reach the members through the cell's agent. ``--no-tools``: no team.
    """
    if opts.no_tools:
        return None, []
    from ...agent.team import team_for
    from ...team.definitions import load_agent_definitions

    definitions, problems = load_agent_definitions(state.workspace,
                                                   known_tools=agent.tools.names())
    notes = [f"agent file {p.path}: {p.field}: {p.message} (the agent is left out)"
             for p in problems]
    if not definitions:
        return None, notes
    return team_for(agent, conversation=name, definitions=definitions,
                    state=state.team_state(name)), notes


def _address(team: Any, opts: CellOptions, text: str) -> str:
    """The prompt the team routes: ``%%agent @name`` puts the address in front; an address
    naming no member is a one-line error before anything runs."""
    if team is None:
        if opts.target is not None:
            raise UsageError(f"%%agent @{opts.target}: this workspace defines no agents "
                             "(define one with %agent agents new NAME)")
        return text
    from ...team.bus import COMMANDER
    from ...team.handback import parse_address

    prompt = f"@{opts.target} {text}" if opts.target is not None else text
    try:
        parse_address(prompt, [COMMANDER, *team.names])
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return prompt


def _floor(team: Any) -> str | None:
    """Who holds the floor, when it is not the commander (the views show it)."""
    from ...team.bus import COMMANDER

    holder = team.state.ledger.floor.holder if team is not None else COMMANDER
    return None if holder == COMMANDER else holder


def _cost_source(catalog: Catalog | None) -> RunningCost:
    """``(model, usage) -> USD or None`` at the catalog's list prices, with the overrides of the
    agent's own catalog when it has one. The views pass the run's running total; it is priced
    response by response, since a long-prompt price tier belongs to one request, not to the
    total."""
    from ...providers.catalog import RunningCost

    return RunningCost(catalog)


def _relative(path: Any, root: Any) -> str | None:
    if path is None:
        return None
    from pathlib import Path

    p = Path(path).resolve()
    try:
        return str(p.relative_to(root))
    except ValueError:
        return p.name
