"""Saving a solution as a custom skill (issue 15): the commander's ``save_skill`` tool.

When no agent, skill or connector fits, the commander may solve a task in the turn with bash and
a short script, check the output, and offer the user to keep it as a skill. This tool writes the
skill folder — ``.orkas/skills/<name>/SKILL.md`` and the bundled files — only after the user's
consent, asked through the same approver as every risky action (:mod:`orkas_nb.harness.approval`).

What it promises:

- **The format, strictly.** The name follows the Agent Skills rule (1–64 of ``a-z0-9-``, no
  leading, trailing or doubled hyphen) and is the folder's name; the description is 1–1,024
  characters. The written ``SKILL.md`` is read back by :func:`~.skills.read_skill`, the reader
  the catalog uses, before it is put in place: any problem that reader would report (even a
  warning it tolerates in hand-written skills) refuses the save.
- **Bundled files stay inside the folder**: relative paths of plain names, no ``..``, no
  absolute path, no hidden or control characters, no second ``SKILL.md``.
- **Nothing is overwritten** unless the call asks for it (and the user agrees to it).
- **Crash-safe**: the folder is built under a hidden temporary name in the same parent, every
  file and folder fsynced, then renamed into place and the parent fsynced; a kill leaves the old
  skill or the new one, never a half-written folder (the catalog skips hidden folders; an
  overwrite killed between its two renames leaves the previous version in a hidden
  ``.old-<name>-…`` folder beside it).

The skill is in the catalog of the next run that builds its agents (each ``%%agent`` cell does).
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
from pathlib import Path
from typing import Any, ClassVar

import yaml

from ..harness.approval import ApprovalGate, ApprovalRequest, ApproverLike, Decision
from ..harness.durable import fsync_dir
from ..harness.offload import run_blocking
from ..harness.tool_protocol import ToolContext, ToolOutput
from .skills import MAX_DESCRIPTION, MAX_NAME, SKILL_FILE, SkillRoot, name_problem, read_skill

__all__ = ["SKILLS_DIR", "SaveSkill", "SkillSaveError", "check_skill", "write_skill"]

SKILLS_DIR = Path(".orkas") / "skills"
MAX_FILES, MAX_BYTES = 32, 1_000_000  # a skill is a few scripts, not a data set
_PART = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]*")


class SkillSaveError(ValueError):
    """The skill cannot be saved as asked; nothing was written."""


def check_skill(name: str, description: str, body: str,
                files: dict[str, str] | None = None) -> dict[str, str]:
    """Refuse (SkillSaveError, one clear line) what the format or the folder rules forbid;
    the bundled files by their normalised relative path."""
    why = name_problem(name) if isinstance(name, str) and name else "empty"
    if why:
        raise SkillSaveError(f"skill name: {why} (1 to {MAX_NAME} of a-z, 0-9 and single "
                             f"hyphens, not at either end)")
    flat = " ".join(description.split()) if isinstance(description, str) else ""
    if not flat:
        raise SkillSaveError("skill description: empty; the catalog shows a skill by it")
    if len(flat) > MAX_DESCRIPTION:
        raise SkillSaveError(f"skill description: {len(flat)} characters, over the limit of "
                             f"{MAX_DESCRIPTION}")
    if not body.strip():
        raise SkillSaveError("skill body: empty; write the instructions the skill gives")
    out: dict[str, str] = {}
    for raw, text in (files or {}).items():
        path = _relative(raw)
        if path.lower() == SKILL_FILE.lower():
            raise SkillSaveError(f"file {raw!r}: SKILL.md is written from name, description "
                                 f"and body")
        if path in out:
            raise SkillSaveError(f"file {raw!r}: given twice")
        out[path] = text
    if len(out) > MAX_FILES:
        raise SkillSaveError(f"{len(out)} files, over the limit of {MAX_FILES}")
    size = sum(len(t.encode()) for t in out.values()) + len(body.encode())
    if size > MAX_BYTES:
        raise SkillSaveError(f"{size:,} bytes, over the limit of {MAX_BYTES:,}")
    return out


def _relative(raw: object) -> str:
    if not isinstance(raw, str) or not raw:
        raise SkillSaveError(f"file name {raw!r}: empty")
    if "\\" in raw or raw.startswith("/") or re.match(r"[A-Za-z]:", raw):
        raise SkillSaveError(f"file name {raw!r}: use a relative path with '/' inside the "
                             f"skill folder")
    parts = raw.split("/")  # as given: no normalising './x' or 'a//b' into something else
    for part in parts:
        if not _PART.fullmatch(part) or part in (".", ".."):
            raise SkillSaveError(f"file name {raw!r}: {part!r} is not allowed (plain names of "
                                 f"letters, digits, '_', '-', '.', '+'; no '..', no hidden files)")
    return "/".join(parts)


def skill_text(name: str, description: str, body: str) -> str:
    """The ``SKILL.md`` of a skill: YAML front matter, then the body."""
    front = yaml.safe_dump({"name": name, "description": " ".join(description.split())},
                           sort_keys=False, allow_unicode=True, width=10_000)
    return f"---\n{front}---\n\n{body.strip()}\n"


def write_skill(skills_dir: Path, name: str, description: str, body: str,
                files: dict[str, str] | None = None, *, overwrite: bool = False) -> Path:
    """Write the skill folder atomically (see the module doc); its path."""
    bundled = check_skill(name, description, body, files)
    skills_dir.mkdir(parents=True, exist_ok=True)
    target = skills_dir / name
    if os.path.lexists(target) and not overwrite:
        raise SkillSaveError(f"a skill named {name!r} already exists at {target}; nothing was "
                             f"written (ask the user, then save with overwrite)")
    for stale in skills_dir.glob(f".save-{name}-*"):  # what an earlier kill left
        shutil.rmtree(stale, ignore_errors=True)
    tmp = skills_dir / f".save-{name}-{secrets.token_hex(4)}"
    try:
        tmp.mkdir()
        _write(tmp / SKILL_FILE, skill_text(name, description, body))
        for rel, text in bundled.items():
            (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
            _write(tmp / rel, text)
        for folder in sorted({(tmp / rel).parent for rel in bundled} | {tmp}, reverse=True):
            fsync_dir(folder)
        skill, problems = read_skill(tmp, SkillRoot(path=skills_dir, tier="workspace",
                                                    label="workspace"))
        problems = [p for p in problems if "differs from the folder name" not in p.message]
        if skill is None or problems:
            raise SkillSaveError("the skill would not load cleanly: " + "; ".join(
                f"{p.field}: {p.message}" for p in problems))
        _put_in_place(tmp, target)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return target


def _write(path: Path, text: str) -> None:
    with open(path, "xb") as f:
        f.write(text.encode("utf-8"))
        f.flush()
        os.fsync(f.fileno())


def _put_in_place(tmp: Path, target: Path) -> None:
    old = None
    if os.path.lexists(target):
        old = target.with_name(f".old-{target.name}-{secrets.token_hex(4)}")
        os.rename(target, old)
    try:
        os.rename(tmp, target)
    except OSError as exc:
        if old is not None:
            os.rename(old, target)
        raise SkillSaveError(f"could not put the skill in place: {exc}; nothing was "
                             f"changed") from exc
    fsync_dir(target.parent)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


class SaveSkill:
    """The commander's ``save_skill`` tool; see the module doc."""

    name = "save_skill"
    read_only = False
    concurrency_safe = False
    description = ("Save a way of solving a task (usually a short script you ran with bash and "
                   "checked) as a custom skill of this workspace, for later runs. Only when the "
                   "user wants it kept: they are asked to approve before anything is written. "
                   "An existing skill is replaced only with overwrite true, when the user asked "
                   "for that.")
    input_schema: ClassVar[dict[str, Any]] = {
        "type": "object", "additionalProperties": False,
        "required": ["name", "description", "body"],
        "properties": {
            "name": {"type": "string", "description": "1-64 of a-z, 0-9 and single hyphens"},
            "description": {"type": "string", "description": (
                f"what the skill does and when to use it (at most {MAX_DESCRIPTION} characters)")},
            "body": {"type": "string", "description": "the instructions (Markdown)"},
            "files": {"type": "object", "additionalProperties": {"type": "string"},
                      "description": "bundled files: relative path -> text (e.g. scripts/run.py)"},
            "overwrite": {"type": "boolean", "description": "replace a skill of that name"},
        },
    }

    def __init__(self, workspace: str | os.PathLike[str],
                 approver: ApproverLike | None = None) -> None:
        self.skills_dir = Path(workspace) / SKILLS_DIR
        self.approver = approver
        self.gate = ApprovalGate(approver)

    async def execute(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        name, files = arguments["name"], arguments.get("files") or {}
        overwrite = bool(arguments.get("overwrite", False))
        try:
            check_skill(name, arguments["description"], arguments["body"], files)
        except SkillSaveError as exc:
            return ToolOutput(text=f"Not saved: {exc}", is_error=True)
        target = self.skills_dir / name
        exists = os.path.lexists(target)
        if exists and not overwrite:
            return ToolOutput(text=f"Not saved: a skill named {name!r} already exists at "
                                   f"{target}. Ask the user whether to replace it (then call "
                                   f"again with overwrite true) or pick another name.",
                              is_error=True)
        listing = ", ".join(["SKILL.md", *sorted(files)])
        request = ApprovalRequest(
            kind="path", category="save_skill",
            subject=f"{'replace' if exists else 'save'} the skill {name!r} in "
                    f"{SKILLS_DIR / name} ({listing})",
            reasons=["a skill's instructions and scripts are offered to later runs"],
            scope_key=f"save_skill:{name}", scope_text=f"saving the skill {name!r} in this run",
            tool=self.name, agent=ctx.agent, call_id=ctx.call_id)
        who = self.approver or ctx.services.get("approver")
        if await self.gate.ask(request, run=ctx.abort, approver=who) is Decision.DENY:
            return ToolOutput(text=f"Not saved: the user did not approve saving the skill "
                                   f"{name!r}; nothing was written.", is_error=True, denied=True)
        try:
            path = await run_blocking(write_skill, self.skills_dir, name,
                                      arguments["description"], arguments["body"], files,
                                      overwrite=overwrite)
        except (SkillSaveError, OSError) as exc:
            return ToolOutput(text=f"Not saved: {exc}", is_error=True)
        return ToolOutput(text=f"Saved the skill {name!r} in {path} ({listing}); it is in the "
                               f"skill catalog from the next run on.",
                          output_files=[str(path / SKILL_FILE)])
