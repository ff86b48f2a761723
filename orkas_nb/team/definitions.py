"""Named agents defined in Markdown files (SPEC §11).

A definition is ``<name>.md`` in the workspace's ``.orkas/agents/`` or the user's
``<config dir>/agents/``: YAML front matter with ``name``, ``description`` (what the commander
routes on), ``model``, ``tools`` (an allow list; default: the read-only workspace tools),
``skills`` and ``max_steps``; the body is the system prompt. An **external agent** names a
program instead (``command``: a list, or a string split as a shell would, without running one):
``dispatch_to`` launches it with the task, and it calls back into the workspace through the
reverse gateway (:mod:`orkas_nb.agent.external`); the user approves the exact command first.
Such a program gets an environment without the kernel's keys; ``env`` lists the names of the
variables it is given anyway (their values come from the kernel's environment, never the file).

:func:`load_agent_definitions` reads both folders and never raises on a bad file: each mistake
becomes one :class:`~.front_matter.Problem` line naming the file and the field (bad YAML, an
unknown field, tool or model, a reserved or duplicate name). A project definition shadows a user
one of the same name, with a warning. The team layer may not import the tools, so the caller
passes the tool names it knows and, optionally, a model check.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Collection, Iterable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..core.locations import config_dir
from .front_matter import FrontMatterError, Problem, read_front_matter

__all__ = ["AGENTS_DIR", "DEFAULT_AGENT_TOOLS", "RESERVED_NAMES", "AgentDefinition",
           "check_agent_name", "load_agent_definitions", "write_agent_template"]

AGENTS_DIR = Path(".orkas") / "agents"
# The read-only workspace tools (orkas_nb.tools.files / .search): an agent reads and searches
# unless its definition grants more.
DEFAULT_AGENT_TOOLS: tuple[str, ...] = ("read_file", "stat_file", "search_files", "grep_files")
# The two members every conversation has; an agent of either name would be unaddressable.
RESERVED_NAMES = frozenset({"user", "commander"})
# Agents are @-mentioned and become bus members and tool arguments: keep names plain.
AGENT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
FIELDS = ("name", "description", "model", "tools", "skills", "max_steps", "command", "env")
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

Scope = Literal["project", "user"]
ModelCheck = Callable[[str], Any]


class AgentDefinition(BaseModel):
    """One named agent, as its file defines it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    description: str
    system_prompt: str = ""
    model: str | None = None  # None: the team's default model
    tools: tuple[str, ...] = DEFAULT_AGENT_TOOLS
    skills: tuple[str, ...] = ()
    max_steps: int | None = Field(default=None, gt=0)
    path: Path
    scope: Scope
    # An external agent: the program (and its arguments) dispatch_to launches; None: an agent
    # run by this harness.
    command: tuple[str, ...] | None = None
    # An external agent's chosen variables: names only; the values are the kernel's own.
    env: tuple[str, ...] = ()


def check_agent_name(name: object) -> str | None:
    """Why ``name`` cannot name an agent, or None."""
    if not isinstance(name, str) or not name:
        return "must be a non-empty string"
    if name.lower() in RESERVED_NAMES:
        return f"{name!r} is reserved (the names {', '.join(sorted(RESERVED_NAMES))} are taken)"
    if not AGENT_NAME.fullmatch(name):
        return (f"{name!r} is not a valid agent name: use 1 to 64 letters, digits, '_' or '-', "
                "starting with a letter or digit")
    return None


def load_agent_definitions(
    workspace: str | Path,
    user_dir: str | Path | None = None,
    *,
    known_tools: Collection[str],
    check_model: ModelCheck | None = None,
) -> tuple[list[AgentDefinition], list[Problem]]:
    """Definitions from ``<workspace>/.orkas/agents`` and ``<user_dir>/agents`` (``user_dir``
    defaults to :func:`~orkas_nb.core.locations.config_dir`), project ones first, and the
    problems found. ``check_model(model)`` may raise or return False to refuse a model string."""
    user_root = Path(user_dir) if user_dir is not None else config_dir()
    found: dict[str, AgentDefinition] = {}
    problems: list[Problem] = []
    for scope, folder in (("project", Path(workspace) / AGENTS_DIR), ("user", user_root / "agents")):
        in_scope: dict[str, AgentDefinition] = {}
        for path in _definition_files(folder):
            definition = _load_one(path, scope, known_tools, check_model, problems)  # type: ignore[arg-type]
            if definition is None:
                continue
            key = definition.name.lower()
            if key in in_scope:
                problems.append(Problem(path=str(path), field="name", message=(
                    f"duplicate name {definition.name!r}: {in_scope[key].path} already defines it; "
                    "this file is ignored")))
                continue
            in_scope[key] = definition
            if key in found:
                problems.append(Problem(path=str(path), field="name", level="warning", message=(
                    f"agent {definition.name!r} is shadowed by the project's {found[key].path}")))
                continue
            found[key] = definition
    return list(found.values()), problems


def _definition_files(folder: Path) -> list[Path]:
    try:
        entries = sorted(folder.iterdir())
    except FileNotFoundError:
        return []
    except OSError:
        return [folder]  # reported by _load_one as unreadable
    # Every *.md entry, files or not: a folder or a dangling link by that name is reported
    # as unreadable rather than ignored.
    return [p for p in entries if p.suffix.lower() == ".md" and not p.name.startswith(".")]


def _load_one(path: Path, scope: Scope, known_tools: Collection[str], check_model: ModelCheck | None,
              problems: list[Problem]) -> AgentDefinition | None:
    def problem(field: str, message: str, level: Literal["error", "warning"] = "error") -> None:
        problems.append(Problem(path=str(path), field=field, message=message, level=level))

    try:
        fields, body, _ = read_front_matter(path)
    except FrontMatterError as exc:
        problem(exc.field, exc.message)
        return None
    ok = True
    for key in fields:
        if key not in FIELDS:
            problem(key, f"unknown field (known: {', '.join(FIELDS)})")
            ok = False
    name = fields.get("name", path.stem)
    why = check_agent_name(name)
    if why:
        problem("name", why)
        ok = False
    elif name != path.stem:
        problem("name", f"{name!r} differs from the file name {path.name!r}; the field wins",
                "warning")
    description = fields.get("description")
    if not isinstance(description, str) or not description.strip():
        problem("description", "missing: the commander routes work on it; say what this agent does")
        ok = False
    model = fields.get("model")
    if model is not None:
        ok &= _check_model(model, check_model, problem)
    # The defaults the host lacks are dropped quietly: only a list the file wrote is checked.
    default = [t for t in DEFAULT_AGENT_TOOLS if t in known_tools]
    tools = _names(fields.get("tools", default), "tools", problem)
    if tools is None:
        ok = False
    else:
        unknown = [t for t in tools if t not in known_tools]
        for t in unknown:
            problem("tools", f"unknown tool {t!r} (known: {', '.join(sorted(known_tools)) or 'none'})")
        ok &= not unknown
    skills = _names(fields.get("skills", ()), "skills", problem)
    ok &= skills is not None
    max_steps = fields.get("max_steps")
    if max_steps is not None and (isinstance(max_steps, bool) or not isinstance(max_steps, int)
                                  or max_steps < 1):
        problem("max_steps", f"must be a positive whole number, not {max_steps!r}")
        ok = False
    command = _command(fields.get("command"), problem)
    ok &= command is not False
    env = _env_names(fields.get("env", ()), command, problem)
    ok &= env is not None
    if not body and command is None:
        problem("body", "empty: the body is the agent's system prompt", "warning")
    if not ok:
        return None
    return AgentDefinition(name=name, description=description.strip(), system_prompt=body,  # type: ignore[union-attr]
                           model=model, tools=tuple(tools or ()), skills=tuple(skills or ()),
                           max_steps=max_steps, path=path, scope=scope,
                           command=command or None, env=tuple(env or ()))


def _command(value: object, problem: Callable[..., None]) -> tuple[str, ...] | None | bool:
    """The ``command`` field as argv; None when absent; False (reported) when unusable."""
    import shlex

    if value is None:
        return None
    try:
        argv = shlex.split(value) if isinstance(value, str) else value
    except ValueError as exc:
        problem("command", f"cannot be split into a program and its arguments: {exc}")
        return False
    if not isinstance(argv, list) or not argv or not all(isinstance(a, str) and a for a in argv):
        problem("command", "must be a program and its arguments: a list of strings, or a string")
        return False
    return tuple(argv)


def _check_model(model: object, check: ModelCheck | None,
                 problem: Callable[[str, str], None]) -> bool:
    if not isinstance(model, str) or not model.strip():
        problem("model", f"must be a model string such as 'openai/gpt-4o-mini', not {model!r}")
        return False
    if check is None:
        return True
    try:
        verdict = check(model)
    except Exception as exc:  # noqa: BLE001 - the check's own message is the clearest one
        problem("model", f"unknown model {model!r}: {exc}")
        return False
    if verdict is False:
        problem("model", f"unknown model {model!r}")
        return False
    return True


def _env_names(value: object, command: object,
               problem: Callable[..., None]) -> list[str] | None:
    """The ``env`` field: variable names passed to an external agent; None when unusable."""
    names = _names(value, "env", problem)
    if names is None:
        return None
    bad = [n for n in names if not ENV_NAME.fullmatch(n) or n.upper().startswith("ORKAS_GATEWAY")]
    for n in bad:
        problem("env", f"{n!r} is not a variable name it may be given (letters, digits, '_'; "
                       "not ORKAS_GATEWAY_*, which the gateway sets)")
    if bad:
        return None
    if names and not command:
        problem("env", "only an external agent (one with `command`) is given variables; ignored",
                "warning")
        return []
    return names


def _names(value: object, field: str, problem: Callable[..., None]) -> list[str] | None:
    """A list of names, from a YAML list or a comma/space separated string; duplicates warned."""
    if isinstance(value, str):
        items: list[Any] = [v for v in re.split(r"[,\s]+", value) if v]
    elif isinstance(value, (list, tuple)):
        items = list(value)
    else:
        problem(field, f"must be a list of names, not {type(value).__name__}")
        return None
    bad = [v for v in items if not isinstance(v, str) or not v.strip()]
    if bad:
        problem(field, f"every entry must be a name; {bad[0]!r} is not")
        return None
    names: list[str] = []
    for v in items:
        if v.strip() in names:
            problem(field, f"{v.strip()!r} is listed twice", "warning")
        else:
            names.append(v.strip())
    return names


TEMPLATE = """\
---
name: {name}
description: >-
  One or two sentences on what {name} does and when to hand it work. The commander
  reads this to decide who gets a task.
# model: openai/gpt-4o-mini       # default: the team's model
tools: [{tools}]
# skills: []                       # names of skills this agent may load
# max_steps: 30
---
You are {name}. Describe here how this agent works: its role, what it must check before
answering, and what its final message should contain.
"""


def write_agent_template(folder: str | Path, name: str) -> Path:
    """Write ``<folder>/<name>.md`` from a template (``%agent agents new NAME``) and return its
    path. Refuses a bad or reserved name and an existing file (nothing is overwritten)."""
    why = check_agent_name(name)
    if why:
        raise ValueError(f"cannot create agent: name {why}")
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.md"
    text = TEMPLATE.format(name=name, tools=", ".join(DEFAULT_AGENT_TOOLS))
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        raise FileExistsError(f"{path} already exists; edit it, or choose another name") from None
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(text)
    return path


def definitions_by_name(definitions: Iterable[AgentDefinition]) -> dict[str, AgentDefinition]:
    """Case-insensitive lookup table (``@Reviewer`` and ``@reviewer`` are the same member)."""
    return {d.name.lower(): d for d in definitions}
