"""Skills in the Agent Skills format: folders with a ``SKILL.md``, found in ranked roots.

A skill is a folder holding ``SKILL.md``: YAML front matter with ``name`` (1–64 of ``a-z0-9-``,
no leading, trailing or doubled hyphen, equal to the folder name) and ``description`` (at most
1,024 characters), optionally ``license``, ``compatibility`` (at most 500), ``metadata`` (string
to string) and ``allowed-tools``; the body is the instructions.

Reading is lenient, as the format's client guide asks: a name that breaks the rules or differs
from its folder, an over-long description, a mistyped optional field are kept with a warning;
only a file that cannot be read, has no front matter, or no description is skipped — and each of
those is reported as a :class:`~.front_matter.Problem`, never dropped in silence.

Roots, highest priority first (seed 003: custom / marketplace / external package / global):

1. the workspace: ``.orkas/skills/`` then the cross-tool ``.agents/skills/``;
2. the user folder: ``<config dir>/skills/``;
3. installed Python packages: the entry-point group ``orkas_nb.skills``;
4. external packages (:mod:`orkas_nb.connectors.packages`: git repositories the user installed,
   passed in as ``external`` roots by the agent layer);
5. the **open tier**: other agent tools' global skill folders (:data:`OPEN_TIER_FOLDERS`).
   Putting a skill there is the user's consent, so it is read by default (one switch turns it
   off), but its text is an untrusted surface: open-tier skills are for the commander only and
   can never enter a named agent's allowed skills (:mod:`.skill_tool`).

A skill found in a higher root shadows a lower one of the same name, with a warning.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..core.locations import config_dir
from .front_matter import FrontMatterError, Problem, read_front_matter

__all__ = ["ENTRY_POINT_GROUP", "OPEN_TIER_FOLDERS", "Skill", "SkillRoot", "Tier",
           "default_skill_roots", "discover_skills", "entry_point_roots", "open_tier_roots",
           "read_skill"]

# "private": a named agent's own library, written by its reflections (team.evolution).
Tier = Literal["workspace", "user", "package", "external", "open", "private"]
ENTRY_POINT_GROUP = "orkas_nb.skills"
SKILL_FILE = "SKILL.md"
NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
MAX_NAME, MAX_DESCRIPTION, MAX_COMPATIBILITY = 64, 1024, 500
KNOWN_FIELDS = ("name", "description", "license", "compatibility", "metadata", "allowed-tools")
_SKIP_DIRS = frozenset({"node_modules", "__pycache__"})

# Other agent tools' global skill folders: (tool, base, path under base). A base is "home", or
# the folder a tool lets an environment variable move: "config" ($XDG_CONFIG_HOME, else
# ~/.config), "claude" ($CLAUDE_CONFIG_DIR, else ~/.claude), "codex" ($CODEX_HOME, else ~/.codex).
# Sources: each tool's public documentation of where it reads skills (checked 2026).
OPEN_TIER_FOLDERS: tuple[tuple[str, str, str], ...] = (
    ("cross-tool (.agents)", "home", ".agents/skills"),
    ("Claude Code", "claude", "skills"),
    ("Codex", "codex", "skills"),
    ("OpenCode", "config", "opencode/skills"),
    ("Cursor", "home", ".cursor/skills"),
    ("Gemini CLI", "home", ".gemini/skills"),
    ("GitHub Copilot", "home", ".copilot/skills"),
    ("Goose", "config", "goose/skills"),
    ("Amp", "config", "agents/skills"),
)


class SkillRoot(BaseModel):
    """A folder whose sub-folders are skills, with its tier and a label for the user."""

    model_config = ConfigDict(frozen=True)

    path: Path
    tier: Tier
    label: str
    # Only these sub-folders are skills (an external package that is itself one skill sits in
    # the managed folder beside other packages); None: every sub-folder.
    only: tuple[str, ...] | None = None


class Skill(BaseModel):
    """One skill as discovered: what the catalog shows and where to load the rest from."""

    model_config = ConfigDict(frozen=True)

    name: str
    description: str
    location: Path  # the SKILL.md file
    root: SkillRoot
    license: str | None = None
    compatibility: str | None = None
    metadata: dict[str, str] = Field(default_factory=dict)
    allowed_tools: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()

    @property
    def folder(self) -> Path:
        return self.location.parent

    @property
    def tier(self) -> Tier:
        return self.root.tier

    @property
    def open_tier(self) -> bool:
        """Found in another tool's folder: untrusted text, for the commander only."""
        return self.root.tier == "open"


# -- roots ------------------------------------------------------------------------------------


def default_skill_roots(
    workspace: str | Path,
    user_dir: str | Path | None = None,
    *,
    open_tier: bool = True,
    entry_points: bool = True,
    external: Iterable[SkillRoot] = (),
    home: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> tuple[list[SkillRoot], list[Problem]]:
    """The roots in priority order (see the module doc) and the problems met building them (a
    package whose entry point fails). ``user_dir`` defaults to the config dir; ``home`` and
    ``env`` (defaults: the real ones) locate the open tier."""
    ws = Path(workspace)
    user = Path(user_dir) if user_dir is not None else config_dir()
    roots = [SkillRoot(path=ws / ".orkas" / "skills", tier="workspace", label="workspace .orkas/skills"),
             SkillRoot(path=ws / ".agents" / "skills", tier="workspace", label="workspace .agents/skills"),
             SkillRoot(path=user / "skills", tier="user", label="user folder")]
    problems: list[Problem] = []
    if entry_points:
        found, problems = entry_point_roots()
        roots += found
    roots += list(external)
    if open_tier:
        roots += open_tier_roots(home=home, env=env)
    return roots, problems


def open_tier_roots(home: Path | None = None, env: Mapping[str, str] | None = None) -> list[SkillRoot]:
    """Other tools' global skill folders (:data:`OPEN_TIER_FOLDERS`), each once even when two
    tools share one, whether or not it exists (discovery skips missing folders)."""
    env = os.environ if env is None else env
    home = Path(home) if home is not None else Path.home()
    return list(_open_tier_roots(home, *(env.get(k) or None for k in _OPEN_TIER_ENV)))


_OPEN_TIER_ENV = ("XDG_CONFIG_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME")


@functools.lru_cache(maxsize=8)
def _open_tier_roots(home: Path, xdg: str | None, claude: str | None,
                     codex: str | None) -> tuple[SkillRoot, ...]:
    # Kept per home and environment: every Agent asks (a team builds one per member), and the
    # paths and their realpath() were most of a new agent's skill wiring.
    bases = {
        "home": home,
        "config": Path(xdg) if xdg else home / ".config",
        "claude": Path(claude) if claude else home / ".claude",
        "codex": Path(codex) if codex else home / ".codex",
    }
    roots: list[SkillRoot] = []
    seen: set[Path] = set()
    for tool, base, sub in OPEN_TIER_FOLDERS:
        path = bases[base].expanduser() / sub
        key = Path(os.path.realpath(path))
        if key not in seen:
            seen.add(key)
            roots.append(SkillRoot(path=path, tier="open", label=f"{tool} global folder"))
    return tuple(roots)


def entry_point_roots(group: str = ENTRY_POINT_GROUP) -> tuple[list[SkillRoot], list[Problem]]:
    """Roots that installed packages declare in ``group``. An entry point may name a folder (a
    ``str``/``Path`` attribute), a package (its folder is the root) or a callable returning
    either, or a list of them. One that fails to load is reported and skipped."""
    import importlib.metadata as md
    from types import ModuleType

    roots: list[SkillRoot] = []
    problems: list[Problem] = []
    for ep in sorted(md.entry_points(group=group), key=lambda e: (e.name, e.value)):
        dist = getattr(ep.dist, "name", None) or "?"
        where = f"entry point {ep.name!r} of package {dist!r}"
        try:
            value: Any = ep.load()
            if callable(value) and not isinstance(value, ModuleType):
                value = value()
            items = value if isinstance(value, (list, tuple)) else [value]
            paths = [_entry_point_path(v) for v in items]
        except Exception as exc:  # noqa: BLE001 - a broken plugin must not stop discovery
            problems.append(Problem(path=where, field=group, message=f"failed to load: {exc!r}"))
            continue
        for path in paths:
            roots.append(SkillRoot(path=path, tier="package", label=f"package {dist}"))
    return roots, problems


def _entry_point_path(value: Any) -> Path:
    from types import ModuleType

    if isinstance(value, ModuleType):
        if not getattr(value, "__file__", None):
            raise TypeError(f"module {value.__name__} has no folder")
        return Path(value.__file__).parent  # type: ignore[arg-type]
    if isinstance(value, (str, os.PathLike)):
        return Path(value)
    raise TypeError(f"expected a folder path, a package or a callable returning one, got {value!r}")


# -- discovery ---------------------------------------------------------------------------------


def discover_skills(roots: Sequence[SkillRoot]) -> tuple[list[Skill], list[Problem]]:
    """Every skill under ``roots`` (direct sub-folders holding ``SKILL.md``), the first root
    winning a name, and every problem met: skipped files (errors), kept-with-a-caveat files and
    shadowed skills (warnings). Missing roots are skipped quietly; an unreadable one is not."""
    skills: dict[str, Skill] = {}
    problems: list[Problem] = []
    for root in roots:
        for folder in _skill_folders(root, problems):
            skill, found = read_skill(folder, root)
            problems += found
            if skill is None:
                continue
            held = skills.get(skill.name)
            if held is not None:
                problems.append(Problem(path=str(skill.location), field="name", level="warning", message=(
                    f"skill {skill.name!r} is shadowed by {held.location} ({held.root.label})")))
                continue
            skills[skill.name] = skill
    return list(skills.values()), problems


def _skill_folders(root: SkillRoot, problems: list[Problem]) -> list[Path]:
    try:
        entries = sorted(root.path.iterdir())
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as exc:
        problems.append(Problem(path=str(root.path), field="folder",
                                message=f"cannot be listed ({exc.strerror or exc}); its skills are skipped"))
        return []
    out = []
    for entry in entries:
        if entry.name.startswith(".") or entry.name in _SKIP_DIRS or not entry.is_dir():
            continue
        if root.only is not None and entry.name not in root.only:
            continue
        if os.path.lexists(entry / SKILL_FILE) or os.path.lexists(entry / "skill.md"):
            out.append(entry)
    return out


def read_skill(folder: Path, root: SkillRoot) -> tuple[Skill | None, list[Problem]]:
    """Parse one skill folder leniently (see the module doc): the skill, or None when it cannot
    be used, and the problems, each naming the file and the field."""
    location = folder / SKILL_FILE
    if not os.path.lexists(location) and os.path.lexists(folder / "skill.md"):
        location = folder / "skill.md"
    problems: list[Problem] = []
    warnings: list[str] = []

    def warn(field: str, message: str) -> None:
        warnings.append(f"{field}: {message}")
        problems.append(Problem(path=str(location), field=field, message=message, level="warning"))

    def skip(field: str, message: str) -> tuple[None, list[Problem]]:
        problems.append(Problem(path=str(location), field=field, message=f"{message}; skill skipped"))
        return None, problems

    try:
        fields, _body, notes = read_front_matter(location, lenient=True)
    except FrontMatterError as exc:
        return skip(exc.field, exc.message)
    for note in notes:
        warn("front matter", note)
    description = fields.get("description")
    if not isinstance(description, str) or not description.strip():
        return skip("description", "missing or empty: the catalog shows a skill by its description")
    description = " ".join(description.split())
    if len(description) > MAX_DESCRIPTION:
        warn("description", f"{len(description)} characters, over the limit of {MAX_DESCRIPTION}; "
                            f"the catalog shows the first {MAX_DESCRIPTION}")
    name = fields.get("name")
    if name is None or (isinstance(name, str) and not name.strip()):
        name = folder.name
        warn("name", f"missing; the folder name {name!r} is used")
    elif not isinstance(name, str):
        return skip("name", f"must be a string, not {type(name).__name__}")
    name = name.strip()
    if any(not c.isprintable() for c in name) or len(name) > 4 * MAX_NAME:
        return skip("name", f"{name[:80]!r} cannot be shown to a model")  # it would break the catalog
    why = name_problem(name)
    if why:
        warn("name", why)
    if name != folder.name:
        warn("name", f"{name!r} differs from the folder name {folder.name!r}; the field wins")
    license_ = _optional_text(fields, "license", None, warn)
    compatibility = _optional_text(fields, "compatibility", MAX_COMPATIBILITY, warn)
    metadata = _metadata(fields.get("metadata"), warn)
    allowed = fields.get("allowed-tools")
    allowed_tools: tuple[str, ...] = ()
    if isinstance(allowed, str):
        allowed_tools = tuple(allowed.split())
    elif isinstance(allowed, list) and all(isinstance(t, str) for t in allowed):
        allowed_tools = tuple(allowed)
    elif allowed is not None:
        warn("allowed-tools", f"must be a space-separated string, not {type(allowed).__name__}; ignored")
    if not _body.strip():
        warn("body", "empty: the skill has a description but no instructions")
    return Skill(name=name, description=description, location=location, root=root, license=license_,
                 compatibility=compatibility, metadata=metadata, allowed_tools=allowed_tools,
                 warnings=tuple(warnings)), problems


def name_problem(name: str) -> str | None:
    """How ``name`` breaks the format's name rule, or None."""
    if len(name) > MAX_NAME:
        return f"{len(name)} characters, over the limit of {MAX_NAME}"
    if not NAME.fullmatch(name):
        return (f"{name!r} breaks the name rule: lowercase a-z, 0-9 and single hyphens, "
                "not at either end")
    return None


def _optional_text(fields: dict[str, Any], key: str, limit: int | None, warn: Any) -> str | None:
    value = fields.get(key)
    if value is None:
        return None
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        warn(key, f"must be text, not {type(value).__name__}; ignored")
        return None
    text = str(value)
    if limit is not None and len(text) > limit:
        warn(key, f"{len(text)} characters, over the limit of {limit}")
    return text


def _metadata(value: Any, warn: Any) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        warn("metadata", f"must be a mapping of keys to values, not {type(value).__name__}; ignored")
        return {}
    return {str(k): str(v) for k, v in value.items()}
