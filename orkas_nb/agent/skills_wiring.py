"""Skills into an agent: which skills it may use, its catalog, its ``skill`` tool, its read-only
folders (SPEC §11).

An agent built with ``skills=True`` (a script's or a notebook's agent: it plays the commander's
role) gets every discovered skill, the open tier included unless ``open_tier`` is off (None:
``$ORKAS_OPEN_TIER_SKILLS``, on unless ``0``/``false``/``no``/``off``); an agent
given a list of names (a named member: its definition's ``skills``) gets only those, and never an
open-tier one (:func:`~orkas_nb.team.skill_tool.skills_for_agent`); ``skills=False`` gets none.

Discovery is kept per set of roots while nothing in them changed (the roots' and each
``SKILL.md``'s modification times): a cell or a member costs a few ``stat`` calls, not a parse
of every skill. The packages' entry points (~20 ms to list) are kept while ``sys.path`` and its
folders are unchanged.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..team.front_matter import Problem
    from ..team.skill_tool import SkillCatalog, SkillTool
    from ..team.skills import Skill, SkillRoot

__all__ = ["AgentSkills", "SkillsChoice", "agent_skills", "discover"]

@dataclass
class AgentSkills:
    """What one agent is given of the skills: the skills, the catalog for its system prompt,
    the ``skill`` tool (None without skills), the folders its tools must see read-only, and the
    problems met (bad skill files, names its definition lists that are refused or unknown)."""

    skills: list[Skill] = field(default_factory=list)
    catalog_text: str = ""
    cut: list[str] = field(default_factory=list)
    tool: SkillTool | None = None
    readonly_paths: list[Path] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    def prompt(self, system_prompt: str) -> str:
        """The system prompt with the catalog after it (unchanged without skills)."""
        if not self.catalog_text:
            return system_prompt
        return f"{system_prompt.rstrip()}\n\n{self.catalog_text}"

    def notices(self) -> list[tuple[str, str]]:
        """Warnings for the user at the start of each turn: skills cut from the catalog."""
        if not self.cut:
            return []
        return [("skills_cut", f"{len(self.cut)} skill(s) did not fit in the skill catalog's "
                 f"budget and are not listed to the model: {', '.join(self.cut)}; the model "
                 "can still load them by name through the skill tool")]


# True: every skill (the commander's role); a list: those names (a named agent); False: none;
# or skills already wired (the notebook wires them once per cell, for its tools and its Agent).
SkillsChoice = bool | Sequence[str] | AgentSkills


def open_tier_default() -> bool:
    """``$ORKAS_OPEN_TIER_SKILLS``: other tools' global skill folders are read unless it is off."""
    raw = os.environ.get("ORKAS_OPEN_TIER_SKILLS", "").strip().lower()
    return raw not in ("0", "false", "no", "off")


def agent_skills(workspace: str | Path, skills: SkillsChoice = True, *, open_tier: bool | None = None,
                 budget_chars: int | None = None, private: SkillRoot | None = None) -> AgentSkills:
    """The skills wiring of one agent in ``workspace``; see the module doc. ``private``: a named
    agent's own library (self-evolution), every skill of it given after the listed ones."""
    if isinstance(skills, AgentSkills):
        return skills
    if skills is False:
        return AgentSkills()
    from ..team.skill_tool import (DEFAULT_CATALOG_CHARS, skill_catalog, skill_readonly_paths,
                                   skill_tool, skills_for_agent)

    commander = skills is True
    if open_tier is None:
        open_tier = open_tier_default()
    # A named agent's open-tier names are refused by skills_for_agent, which says why.
    found, problems = discover(workspace, open_tier=open_tier)
    if commander:
        chosen = found
    else:
        names = [skills] if isinstance(skills, str) else list(skills)  # type: ignore[arg-type]
        chosen, refused = skills_for_agent(names, found)
        problems = problems + refused
        if private is not None:
            chosen += _private_skills(private, {s.name for s in found}, problems)
    if not chosen:
        return AgentSkills(problems=problems)
    budget = DEFAULT_CATALOG_CHARS if budget_chars is None else budget_chars
    catalog: SkillCatalog = skill_catalog(chosen, budget, commander=commander)
    return AgentSkills(skills=chosen, catalog_text=catalog.text, cut=list(catalog.cut),
                       tool=skill_tool(chosen, commander=commander),
                       readonly_paths=skill_readonly_paths(chosen, workspace),
                       problems=problems)


def _private_skills(root: SkillRoot, taken: set[str], problems: list[Problem]) -> list[Skill]:
    """The skills of a private library, less any whose name another library took since (a
    reflection never writes such a name; a user may have added the other one later)."""
    from ..team.skills import discover_skills

    found, bad = discover_skills([root])
    problems += bad
    return [s for s in found if s.name not in taken]


# -- discovery, kept while the folders are unchanged ----------------------------------------------

_lock = threading.Lock()
_found: dict[Any, tuple[Any, tuple[list[Skill], list[Problem]]]] = {}
_entry_points: list[Any] = [None, None]  # [key, (roots, problems)]


def discover(workspace: str | Path, *, open_tier: bool = True,
             user_dir: str | Path | None = None) -> tuple[list[Skill], list[Problem]]:
    """Every skill the workspace's roots hold (:func:`~orkas_nb.team.skills.default_skill_roots`)
    and the problems found; answered from the last discovery while nothing changed."""
    from ..team.skills import default_skill_roots, discover_skills

    roots, problems = default_skill_roots(workspace, user_dir, open_tier=open_tier,
                                          entry_points=False, external=package_skill_roots())
    ep_roots, ep_problems = _entry_point_roots()
    roots = roots[:3] + ep_roots + roots[3:]  # the documented order: workspace, user, packages, …
    key = tuple((str(r.path), r.tier, r.label, r.only) for r in roots)
    signature = _signature(roots)
    with _lock:
        hit = _found.get(key)
    if hit is not None and hit[0] == signature:
        skills, found = hit[1]
    else:
        skills, found = discover_skills(roots)
        with _lock:
            if len(_found) > 32:
                _found.clear()
            _found[key] = (signature, (skills, found))
    return list(skills), [*problems, *ep_problems, *found]


def package_skill_roots() -> list[SkillRoot]:
    """The skills of the installed external packages, at the "external package" tier."""
    from ..connectors.packages import Packages
    from ..team.skills import SkillRoot

    return [SkillRoot(path=folder, tier="external", label=f"external package {name}",
                      only=tuple(only) if only is not None else None)
            for folder, only, name in Packages().skill_roots()]


def _signature(roots: Sequence[SkillRoot]) -> tuple[Any, ...]:
    """What discovery read, by modification time: each root and each SKILL.md under it."""
    out: list[Any] = []
    for root in roots:
        try:
            st = os.stat(root.path)
            entries = sorted(os.scandir(root.path), key=lambda e: e.name)
        except OSError as exc:
            out.append((str(root.path), type(exc).__name__))
            continue
        out.append((str(root.path), st.st_mtime_ns))
        for entry in entries:
            for name in ("SKILL.md", "skill.md"):
                try:
                    s = os.stat(os.path.join(entry.path, name))
                except OSError:
                    continue
                out.append((entry.name, name, s.st_mtime_ns, s.st_size, s.st_ino))
    return tuple(out)


def _entry_point_roots() -> tuple[list[SkillRoot], list[Problem]]:
    from ..team.skills import entry_point_roots

    key: list[Any] = []
    for entry in sys.path:
        try:
            key.append((entry, os.stat(entry or ".").st_mtime_ns))
        except OSError:
            key.append((entry, None))
    with _lock:
        if _entry_points[0] == key:
            return _entry_points[1]  # type: ignore[no-any-return]
    found = entry_point_roots()
    with _lock:
        _entry_points[0], _entry_points[1] = key, found
    return found
