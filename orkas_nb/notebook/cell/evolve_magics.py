"""``%agent evolve …``: self-evolution by hand (SPEC §13) — switches, the log, undo, a run now.

The magics translate words into calls of :class:`orkas_nb.team.evolution.Evolution`; every
rule (who may evolve, caps, what a reflection may write) lives there.
"""

from __future__ import annotations

import textwrap
import time
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError

if TYPE_CHECKING:
    from ..state import NotebookState

EVOLVE_USAGE = ("%agent evolve status | on|off (the workspace) | on|off NAME | log NAME | "
                "undo NAME [ID] | run NAME [-m MODEL] | set KEY VALUE")
_SETTABLE = ("model", "threshold", "cooling_hours", "fallback_days", "max_tokens_per_reflection",
             "max_tokens_total", "max_steps")


def _names(state: NotebookState) -> list[str]:
    from ...team.definitions import load_agent_definitions
    from .team_magics import known_tools

    definitions, _ = load_agent_definitions(state.workspace, known_tools=known_tools(state))
    return [d.name for d in definitions]


def _agent_name(state: NotebookState, name: str) -> str:
    names = _names(state)
    for known in names:
        if known.lower() == name.lower():
            return known
    if name.lower() in ("commander", "user"):
        raise UsageError(f"{name!r} never evolves: only named agents do (the commander's session "
                         "stays as you set it up)")
    raise UsageError(f"no agent named {name!r} (agents: {', '.join(names) or 'none'}; define one "
                     "with %agent agents new NAME)")


def _evolution(state: NotebookState, model: Any = None) -> Any:
    from ...team.evolution import Evolution

    if model is None:
        from ...agent.evolution_wiring import skill_guard

        return Evolution(state.workspace, guard=skill_guard)
    from ...agent import Agent
    from ...agent.evolution_wiring import evolution_for
    from ...team.definitions import load_agent_definitions
    from .team_magics import known_tools

    agent = Agent(model, pool=state.pool, workspace=state.workspace, default_tools=False,
                  skills=False, memory=False, knowledge=False)
    definitions, _ = load_agent_definitions(state.workspace, known_tools=known_tools(state))
    return evolution_for(agent, definitions)


def evolve_command(state: NotebookState, args: list[str]) -> None:
    from ...team.evolution import EvolutionError, load_settings, save_settings

    if not args:
        raise UsageError(f"an evolve subcommand is needed; usage: {EVOLVE_USAGE}")
    verb, rest = args[0], args[1:]
    if verb in ("on", "off") and not rest:
        settings = load_settings(state.workspace)
        save_settings(state.workspace, settings.model_copy(update={"enabled": verb == "on"}))
        print(f"self-evolution is {verb} for this workspace"
              + ("; turn it on for an agent with %agent evolve on NAME" if verb == "on" else ""))
        return
    if verb == "status":
        _status(state, load_settings(state.workspace))
        return
    if verb == "set":
        _set(state, rest)
        return
    if not rest:
        raise UsageError(f"%agent evolve {verb} needs an agent name; usage: {EVOLVE_USAGE}")
    name = _agent_name(state, rest[0])
    evolution = _evolution(state)
    try:
        if verb in ("on", "off"):
            evolution.store(name).set_enabled(verb == "on")
            note = "" if load_settings(state.workspace).enabled else (
                " (the workspace's switch is off: %agent evolve on)")
            print(f"self-evolution is {verb} for {name}{note}")
        elif verb == "log":
            _log(evolution, name)
        elif verb == "undo":
            done = evolution.undo(name, rest[1] if len(rest) > 1 else None)
            print(f"undid reflection {done.id}: restored "
                  + ", ".join(c.path for c in done.changes))
        elif verb == "run":
            _run(state, name, rest[1:])
        else:
            raise UsageError(f"unknown evolve subcommand {verb!r}; usage: {EVOLVE_USAGE}")
    except EvolutionError as exc:
        raise UsageError(str(exc)) from None


def _set(state: NotebookState, rest: list[str]) -> None:
    from pydantic import ValidationError

    from ...team.evolution import EvolutionSettings, load_settings, save_settings

    if len(rest) != 2 or rest[0] not in _SETTABLE:
        raise UsageError(f"%agent evolve set needs one of {', '.join(_SETTABLE)} and a value")
    key, raw = rest
    value: Any = None if key == "model" and raw.lower() in ("none", "default") else raw
    current = load_settings(state.workspace).model_dump()
    try:
        settings = EvolutionSettings.model_validate({**current, key: value})
    except ValidationError as exc:
        raise UsageError(f"{key}: {exc.errors()[0]['msg']}") from None
    save_settings(state.workspace, settings)
    print(f"self-evolution {key} = {getattr(settings, key)}")


def _run(state: NotebookState, name: str, options: list[str]) -> None:
    import asyncio
    import concurrent.futures

    from ...team.evolution import load_settings
    from .prepare import model_from_option

    if options[:1] in (["-m"], ["--model"]) and len(options) == 2:
        model_text = options[1]
    elif options:
        raise UsageError(f"unexpected {' '.join(options)!r}; usage: {EVOLVE_USAGE}")
    else:
        model_text = load_settings(state.workspace).model or state.config.model
    if not model_text:
        raise UsageError("no model for the reflection: pass -m MODEL, set the evolution "
                         "settings' model, or %config Agent.model")
    evolution = _evolution(state, model_from_option(model_text, state.shell.user_ns))
    # The kernel's loop runs this magic: the reflection gets a loop of its own, and we wait.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        record = pool.submit(asyncio.run, evolution.run_now(name)).result()
    print(f"reflection {record.id}: {record.status}"
          + (f" — {record.reason}" if record.reason else ""))
    for change in record.changes:
        print(change.diff.rstrip() or f"(no change to {change.path})")
    for refusal in record.refusals:
        print(f"refused: {refusal}")


def _status(state: NotebookState, settings: Any) -> None:
    print(f"workspace: self-evolution {'on' if settings.enabled else 'off'} (threshold "
          f"{settings.threshold:g}, cooling {settings.cooling_hours:g} h, fallback "
          f"{settings.fallback_days:g} d, caps {settings.max_tokens_per_reflection} tokens per "
          f"reflection, {settings.max_tokens_total} in total, model "
          f"{settings.model or '(the agent model)'})")
    evolution = _evolution(state)
    for name in _names(state):
        store = evolution.store(name)
        s = store.state()
        private = sorted(p.parent.name for p in store.skills_dir.glob("*/SKILL.md"))
        print(f"  {name}: {'on' if s.enabled else 'off'}, signals {evolution.score(name):g}, "
              f"{s.tokens_total} tokens spent, private skills: {', '.join(private) or 'none'}")


def usd(cost: float) -> str:
    """Dollars with enough digits that a cheap reflection never reads as $0.0000."""
    return f"${cost:.4f}" if cost >= 0.01 or cost == 0 else f"${cost:.6f}"


def _log(evolution: Any, name: str) -> None:
    history = evolution.history(name)
    if not history:
        print(f"{name} has not reflected yet")
    for r in history:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(r.started))
        signals = ", ".join(f"{k} {v:g}" for k, v in sorted(r.signals.items())) or "none"
        cost = "cost unknown" if r.cost_usd is None else f"cost {usd(r.cost_usd)}"
        print(f"{r.id}  {when}  {r.trigger}  {r.status}  signals: {signals}  tokens: "
              f"{r.input_tokens} in, {r.output_tokens} out  {cost}  model: {r.model or '-'}")
        if r.reason:
            print(textwrap.indent(textwrap.fill(r.reason, 96), "    "))
        for c in r.changes:
            print(textwrap.indent(c.diff.rstrip() or f"(no change to {c.path})", "    "))
        for refusal in r.refusals:
            print(f"    refused: {refusal}")
