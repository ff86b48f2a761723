"""``%agent agents …`` and ``%agent skills``: the named agents and the skills, by hand.

``%agent agents`` lists the definitions in ``.orkas/agents`` and the user's ``agents`` folder
(name, model, tools, skills, description) and every problem as its one line; ``%agent agents
new NAME`` writes a template to edit. ``%agent skills`` lists the skills found, by root, with
their problems, and says which ones the ``%%agent`` agent is offered. The rules live in
:mod:`orkas_nb.team`; the magics only print.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError

if TYPE_CHECKING:
    from ...team.front_matter import Problem
    from ..state import NotebookState

AGENTS_USAGE = "%agent agents | agents new NAME"
SKILLS_USAGE = "%agent skills"
WRAP = 100


def agents_command(state: NotebookState, args: list[str]) -> None:
    from ...team.definitions import AGENTS_DIR, load_agent_definitions, write_agent_template

    if args and args[0] == "new":
        if len(args) != 2:
            raise UsageError(f"%agent agents new needs one agent name; usage: {AGENTS_USAGE}")
        try:
            path = write_agent_template(state.workspace / AGENTS_DIR, args[1])
        except (ValueError, FileExistsError) as exc:
            raise UsageError(str(exc)) from None
        except OSError as exc:
            raise UsageError(f"cannot write {state.workspace / AGENTS_DIR}: {exc.strerror or exc}") from None
        print(f"wrote {path}: describe the agent in its front matter and its work in the body; "
              "%agent agents checks it")
        return
    if args:
        raise UsageError(f"unknown agents subcommand {args[0]!r}; usage: {AGENTS_USAGE}")
    definitions, problems = load_agent_definitions(
        state.workspace, known_tools=known_tools(state), check_model=_check_model)
    from ...agent.skills_wiring import discover
    from ...team.skill_tool import skills_for_agent

    skills, _ = discover(state.workspace, open_tier=state.config.open_tier_skills)
    if not definitions:
        print(f"no named agents (define one with %agent agents new NAME: it is written to "
              f"{state.workspace / AGENTS_DIR})")
    for d in definitions:
        _allowed, refused = skills_for_agent(d, skills)
        problems = problems + refused
        print(f"{d.name}  ({d.scope}: {d.path})")
        rows = [("model", d.model or "(the team's model)"), ("tools", ", ".join(d.tools) or "(none)"),
                ("skills", ", ".join(d.skills) or "(none)"),
                ("max steps", str(d.max_steps) if d.max_steps else "(the team's)"),
                ("description", d.description)]
        if d.command:  # an external agent: the program dispatch_to launches (asked before it runs)
            import shlex

            rows.insert(0, ("command", shlex.join(d.command)))
        for key, value in rows:
            print(textwrap.fill(value, WRAP, initial_indent=f"  {key:<12}", subsequent_indent=" " * 14))
    _print_problems(problems)


def skills_command(state: NotebookState, args: list[str]) -> None:
    if args:
        raise UsageError(f"%agent skills takes no arguments; usage: {SKILLS_USAGE}")
    from ...agent.skills_wiring import agent_skills, discover
    from ...team.skills import default_skill_roots

    config = state.config
    roots, _ = default_skill_roots(state.workspace, open_tier=config.open_tier_skills,
                                   entry_points=False)
    skills, problems = discover(state.workspace, open_tier=config.open_tier_skills)
    offered = agent_skills(state.workspace, config.skills, open_tier=config.open_tier_skills)
    if not config.skills:
        print("skills are off for %%agent cells (%config Agent.skills = True turns them on)")
    by_root: dict[str, list[Any]] = {}
    for s in skills:
        by_root.setdefault(f"{s.root.label} ({s.root.path})", []).append(s)
    if not skills:
        print("no skills found; a skill is a folder with a SKILL.md, in "
              + ", ".join(str(r.path) for r in roots[:3]) + " or another tool's global folder")
    for where, found in by_root.items():
        print(where)
        for s in found:
            mark = "open tier, %%agent agent only; " if s.open_tier else ""
            print(textwrap.fill(f"{s.name}: {mark}{s.description}", WRAP, initial_indent="  ",
                                subsequent_indent="    "))
    if not config.open_tier_skills:
        print("other tools' global skill folders are not read (Agent.open_tier_skills is off)")
    if offered.cut:
        print(f"the catalog's budget cut {len(offered.cut)} skill(s) from the %%agent agent's "
              f"system prompt (still loadable by name): {', '.join(offered.cut)}")
    _print_problems(problems)


def known_tools(state: NotebookState) -> list[str]:
    """The tool names a definition may list: the workspace tools, memory and the knowledge
    base, the notebook's @tool functions, and the approved MCP servers' tools as their last
    start recorded them (listing agents starts no server that has started once)."""
    from ...agent.assembly import assemble_tools
    from ...connectors import connector_tool_names
    from ...harness.tool_protocol import FunctionTool

    names = [t.name for t in assemble_tools(state.workspace, connectors=False)]
    names += connector_tool_names(state.workspace, names) + ["memory", "kb_search"]
    names += [v.name for k, v in state.shell.user_ns.items()
              if not k.startswith("_") and isinstance(v, FunctionTool)]
    return list(dict.fromkeys(names))


def _check_model(model: str) -> bool:
    from ...providers.registry import parse_model_string

    parse_model_string(model)  # raises ConfigError with the reason
    return True


def _print_problems(problems: Iterable[Problem]) -> None:
    problems = list(problems)
    if not problems:
        return
    errors = sum(p.level == "error" for p in problems)
    print(f"\n{errors} error(s), {len(problems) - errors} warning(s):")
    for p in problems:
        print(f"  {p.level}: {p}")

