"""The composition root of a team's plan: the executor, its store, its tools (SPEC §11).

:func:`plan_for` gives a :class:`~orkas_nb.team.runtime.Team` its plan executor: the plan is
kept beside the conversation's bus (``plan.jsonl``; in memory for an in-memory team), the
commander gets ``write_plan``, ``revise_plan``, ``retry_step``, ``skip_step`` and
``abort_plan`` (:func:`build_team` adds the prompt section), and a member gets ``ask_user`` when it first runs a plan step.
:func:`build_team` calls it, so a team always has one (``team.plan``)::

    team = build_team(Agent("openai/gpt-4o-mini", workspace="."))
    result = await run_planned(team, "compare the two reports, then summarise")
    team.plan.plan          # the Plan snapshot; team.plan.subscribe(view.update) for live state

The executor is kept with the conversation's :class:`~orkas_nb.team.state.TeamState`
(``state.plan``): a team rebuilt over the same state (a notebook's next cell) gets the same
executor, re-attached to it (new steps go to the new team; steps in flight go on), so the
plan's file is opened once and a running plan is neither refused nor reloaded.

Reopening the conversation (a new process) reloads the plan: a step that was running is failed
("interrupted") and follows its ``on_failure`` (one resumed from the user's answer is blocked with
that answer again, and resumes from it); nothing runs until ``team.plan.resume()`` (or the next
:func:`run_planned`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..core.events import RunResult
    from ..team.plan_executor import PlanExecutor
    from ..team.runtime import Team
    from .agent import Agent

__all__ = ["plan_for", "run_planned"]


def plan_for(team: Team, agent: Agent | None = None, *, max_parallel: int = 1,
             transient_retries: int = 2) -> PlanExecutor:
    """The plan executor of ``team`` (made once per conversation state; ``team.plan``).
    ``agent``: the commander's :class:`~orkas_nb.Agent`, which gets the plan tools. For a team
    rebuilt over a state that has one, that executor is re-attached (``max_parallel`` and
    ``transient_retries`` stay as it was made with)."""
    from ..team.bus import USER
    from ..team.plan_executor import PlanExecutor
    from ..team.plan_store import PlanStore
    from ..team.plan_team import TeamStepRunner
    from ..team.plan_tools import commander_plan_tools

    existing: PlanExecutor | None = getattr(team, "plan", None)
    if existing is not None:
        return existing
    state = team.state
    executor = state.plan
    if executor is not None:  # a team rebuilt over the conversation's state: the same plan
        assert isinstance(executor.runner, TeamStepRunner)
        executor.runner.attach(team)
        executor.agents = team.names
    else:
        store = (PlanStore(state.folder / "plan.jsonl", durable=state.durable)
                 if state.folder is not None else PlanStore.in_memory())
        runner = TeamStepRunner(team)
        executor = PlanExecutor(store, runner, agents=team.names,
                                max_parallel=max_parallel, transient_retries=transient_retries,
                                summary_chars=team.summary_chars)
        runner.bind(executor)  # members get ask_user when they first run a plan step
        state.plan = executor  # kept with the state: one writer of plan.jsonl (SPEC §9)
    team.plan = executor  # type: ignore[attr-defined]

    def request() -> tuple[str, list[str]]:
        last = next((m for m in reversed(state.bus.messages) if m.sender == USER
                     and m.kind == "chat"), None)
        return (last.text if last is not None else ""), []

    if agent is not None:  # the prompt section (plan_tools.PLAN_PROMPT) is build_team's
        for tool in commander_plan_tools(executor, request):
            agent.tools.add(tool)
    return executor


async def run_planned(team: Team, text: str) -> RunResult:
    """The user says ``text``; the commander's turn runs (it may write a plan), then the plan
    runs until it is finished or paused. The result is the turn's."""
    executor = plan_for(team)
    result = await team.arun(text)
    if executor.store.plan is not None and not executor.store.plan.finished:
        await executor.run()
    return result
