"""The agent's private skill library, as a reflection may touch it.

A reflection may create a skill, fix one **it created itself** after reading it, and rewrite
the agent's skill profile; nothing else. Every write is refused, with the reason the
reflection's model sees, when

- the name is taken by a skill of any other library (workspace, user, package, external, open
  tier): those are the user's or someone else's, never the agent's to change;
- the private skill exists but the agent did not create it (a hand-placed file);
- the skill exists and was not read in this reflection (a fix must start from the text);
- the text fails the validation a hand-written ``SKILL.md`` gets (front matter, name equal to
  the folder, a description), read strictly: any warning is a refusal here;
- the memory-write guard (``check``) refuses the text: a skill is pasted into future prompts,
  like a memory entry.

A write goes to disk atomically, and the bytes it replaced are kept in the reflection's
:class:`~.store.Change`, so :func:`undo` restores them byte for byte.
"""

from __future__ import annotations

import difflib
import shutil
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

from ..skills import SkillRoot, name_problem, read_skill
from .store import AgentStore, Change, atomic_write

__all__ = ["Guard", "PrivateLibrary", "Refused", "undo_changes", "validate_skill_text"]

Guard = Callable[[str], str | None]  # the refusal reason, or None when the text may be stored
MAX_SKILL_CHARS = 8_000
MAX_PROFILE_CHARS = 2_000


class Refused(ValueError):
    """A write the library will not make; the message is for the reflection's model."""


def validate_skill_text(name: str, text: str) -> None:
    """The checks a hand-written skill's file gets, strictly: Refused on any problem."""
    why = name_problem(name)
    if why:
        raise Refused(f"name: {why}")
    if len(text) > MAX_SKILL_CHARS:
        raise Refused(f"the skill is {len(text)} characters; keep it under {MAX_SKILL_CHARS}")
    with tempfile.TemporaryDirectory(prefix="orkas-skill-") as tmp:
        folder = Path(tmp) / name
        folder.mkdir()
        (folder / "SKILL.md").write_bytes(text.encode("utf-8"))
        root = SkillRoot(path=Path(tmp), tier="workspace", label="a proposed private skill")
        skill, problems = read_skill(folder, root)
    if skill is None or problems:
        found = "; ".join(f"{p.field}: {p.message}" for p in problems) or "unreadable"
        raise Refused(f"the SKILL.md does not pass validation: {found}")


def _diff(before: str | None, after: str, path: str) -> str:
    lines = difflib.unified_diff((before or "").splitlines(keepends=True),
                                 after.splitlines(keepends=True),
                                 fromfile=f"a/{path}" if before is not None else "/dev/null",
                                 tofile=f"b/{path}")
    return "".join(lines)


class PrivateLibrary:
    """One reflection's view of the agent's library: what it read, what it changed."""

    def __init__(self, store: AgentStore, others: Mapping[str, str], created: list[str],
                 guard: Guard, on_change: Callable[[PrivateLibrary], None] | None = None) -> None:
        self.store = store
        self.on_change = on_change
        self.others = dict(others)  # skill name -> label of the library that holds it
        self.created = list(created)
        self.guard = guard
        self.read: set[str] = set()
        self.changes: list[Change] = []
        self.refusals: list[str] = []

    def names(self) -> list[str]:
        try:
            return sorted(p.parent.name for p in self.store.skills_dir.glob("*/SKILL.md"))
        except OSError:
            return []

    def read_skill(self, name: str) -> str:
        path = self.store.skill_path(name)
        if name_problem(name) or not path.is_file():
            raise Refused(f"no private skill named {name!r} (private: "
                          f"{', '.join(self.names()) or 'none'})")
        self.read.add(name)
        return path.read_bytes().decode("utf-8")

    def write_skill(self, name: str, text: str) -> Change:
        try:
            return self._write_skill(name, text)
        except Refused as exc:
            self.refusals.append(f"{name}: {exc}")
            raise

    def _write_skill(self, name: str, text: str) -> Change:
        if name in self.others:
            raise Refused(f"{name!r} belongs to {self.others[name]}; a reflection writes only "
                          "the agent's private skills: choose another name")
        path = self.store.skill_path(name)
        before = path.read_bytes().decode("utf-8") if path.is_file() else None
        if before is not None and name not in self.created:
            raise Refused(f"the private skill {name!r} was not created by this agent; it may "
                          "only change skills it created itself")
        if before is not None and name not in self.read:
            raise Refused(f"read the skill {name!r} (read_skill) before changing it")
        validate_skill_text(name, text)
        why = self.guard(text)
        if why:
            raise Refused(f"the memory guard refused the text: {why}")
        rel = path.relative_to(self.store.workspace).as_posix()
        change = Change(path=rel, skill=name, before=before, after=text,
                        diff=_diff(before, text, rel))
        if name not in self.created:  # owned before it exists: a crash between leaves no orphan
            self.created.append(name)
            if self.on_change is not None:
                self.on_change(self)
        atomic_write(path, text.encode("utf-8"))
        self.read.add(name)
        self.changes.append(change)
        if self.on_change is not None:
            self.on_change(self)
        return change

    def write_profile(self, text: str) -> Change:
        if len(text) > MAX_PROFILE_CHARS:
            raise Refused(f"the profile is {len(text)} characters; keep it under "
                          f"{MAX_PROFILE_CHARS}")
        why = self.guard(text)
        if why:
            self.refusals.append(f"profile: {why}")
            raise Refused(f"the memory guard refused the profile: {why}")
        before = self.store.profile() if self.store.profile_path.is_file() else None
        rel = self.store.profile_path.relative_to(self.store.workspace).as_posix()
        change = Change(path=rel, before=before, after=text, diff=_diff(before, text, rel))
        atomic_write(self.store.profile_path, text.encode("utf-8"))
        self.changes.append(change)
        if self.on_change is not None:
            self.on_change(self)
        return change


def undo_changes(store: AgentStore, changes: list[Change]) -> list[str]:
    """Put back what ``changes`` replaced, newest first, byte for byte; returns the paths."""
    restored = []
    for change in reversed(changes):
        path = store.workspace / change.path
        if change.before is None:
            if change.skill is not None:
                shutil.rmtree(path.parent, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)
        else:
            atomic_write(path, change.before.encode("utf-8"))
        restored.append(change.path)
    return restored
