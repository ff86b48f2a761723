"""team (SPEC §2, §11): multi-agent orchestration: the plan model, the agent factory contract
the composition root fulfils, agent definitions and skills, and a conversation's durable state
(bus, ledger, member sessions) with its routing parsers.

The plan model and the factory contract are imported eagerly; the rest loads on first use
(definitions and skills pull in PyYAML), so ``import orkas_nb.team`` stays light.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .factory import AgentFactory, MemberSpec, TeamMember  # noqa: F401
from .plan import FormField, Plan, PlanState, PlanStep, StepForm, StepStatus, check_action  # noqa: F401

_LAZY = {
    "Problem": "front_matter",
    "AgentDefinition": "definitions", "DEFAULT_AGENT_TOOLS": "definitions",
    "load_agent_definitions": "definitions", "write_agent_template": "definitions",
    "Skill": "skills", "SkillRoot": "skills", "default_skill_roots": "skills",
    "discover_skills": "skills",
    "SkillCatalog": "skill_tool", "SkillTool": "skill_tool", "skill_catalog": "skill_tool",
    "skill_tool": "skill_tool", "skill_readonly_paths": "skill_tool",
    "skills_for_agent": "skill_tool",
    "BusMessage": "bus", "MessageBus": "bus", "member_session_path": "bus", "team_folder": "bus",
    "check_agent_name": "bus", "RESERVED": "bus",
    "Floor": "ledger", "Task": "ledger", "TaskLedger": "ledger", "TaskStatus": "ledger",
    "Handback": "handback", "Addressed": "handback", "split_handback": "handback",
    "parse_address": "handback",
    "Route": "state", "TeamState": "state",
    "Team": "runtime", "TaskOutcome": "runtime", "SUMMARY_CHARS": "ledger",
    "commander_tools": "commander_tools", "commander_prompt": "commander_tools",
    "PlanExecutor": "plan_executor", "PlanStore": "plan_store", "StepSpec": "plan_check",
    "PlanRejected": "plan_runner", "PlanActionError": "plan_runner",
    "StepOutcome": "plan_runner", "StepRunner": "plan_runner", "TeamStepRunner": "plan_team",
}

if TYPE_CHECKING:  # pragma: no cover
    from .bus import RESERVED, BusMessage, MessageBus, check_agent_name, member_session_path, team_folder  # noqa: F401
    from .definitions import (  # noqa: F401
        DEFAULT_AGENT_TOOLS,
        AgentDefinition,
        load_agent_definitions,
        write_agent_template,
    )
    from .front_matter import Problem  # noqa: F401
    from .handback import Addressed, Handback, parse_address, split_handback  # noqa: F401
    from .ledger import Floor, Task, TaskLedger, TaskStatus  # noqa: F401
    from .skill_tool import (  # noqa: F401
        SkillCatalog,
        SkillTool,
        skill_catalog,
        skill_readonly_paths,
        skill_tool,
        skills_for_agent,
    )
    from .skills import Skill, SkillRoot, default_skill_roots, discover_skills  # noqa: F401
    from .commander_tools import commander_prompt, commander_tools  # noqa: F401
    from .ledger import SUMMARY_CHARS  # noqa: F401
    from .runtime import TaskOutcome, Team  # noqa: F401
    from .state import Route, TeamState  # noqa: F401
    from .plan_check import StepSpec  # noqa: F401
    from .plan_executor import PlanExecutor  # noqa: F401
    from .plan_runner import PlanActionError, PlanRejected, StepOutcome, StepRunner  # noqa: F401
    from .plan_store import PlanStore  # noqa: F401
    from .plan_team import TeamStepRunner  # noqa: F401


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])
