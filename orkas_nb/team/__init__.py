"""team (SPEC §2, §11): multi-agent orchestration: the plan model, the agent factory contract
the composition root fulfils, agent definitions and skills.

The plan model and the factory contract are imported eagerly; agent definitions and skills load
on first use (they pull in PyYAML), so ``import orkas_nb.team`` stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .factory import AgentFactory, MemberSpec, TeamMember  # noqa: F401
from .plan import FormField, Plan, PlanState, PlanStep, StepForm, StepStatus, check_action  # noqa: F401

_LAZY = {
    "Problem": "front_matter",
    "AgentDefinition": "definitions",
    "DEFAULT_AGENT_TOOLS": "definitions",
    "load_agent_definitions": "definitions",
    "write_agent_template": "definitions",
    "Skill": "skills",
    "SkillRoot": "skills",
    "default_skill_roots": "skills",
    "discover_skills": "skills",
    "SkillCatalog": "skill_tool",
    "SkillTool": "skill_tool",
    "skill_catalog": "skill_tool",
    "skill_tool": "skill_tool",
    "skill_readonly_paths": "skill_tool",
    "skills_for_agent": "skill_tool",
}

if TYPE_CHECKING:  # pragma: no cover
    from .definitions import (  # noqa: F401
        DEFAULT_AGENT_TOOLS,
        AgentDefinition,
        load_agent_definitions,
        write_agent_template,
    )
    from .front_matter import Problem  # noqa: F401
    from .skill_tool import (  # noqa: F401
        SkillCatalog,
        SkillTool,
        skill_catalog,
        skill_readonly_paths,
        skill_tool,
        skills_for_agent,
    )
    from .skills import Skill, SkillRoot, default_skill_roots, discover_skills  # noqa: F401


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'orkas_nb.team' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value
