"""Cross-session memory: a user profile and project notes, small, guarded, off by default.

- **Where**: project notes in ``<workspace>/.orkas/memory/notes.json``; the user profile in the
  user's config folder (``$ORKAS_CONFIG_DIR``, else ``$XDG_CONFIG_HOME/orkas_nb``, else
  ``~/.config/orkas_nb``) as ``profile.json``. The on/off switch is per workspace
  (``<workspace>/.orkas/memory/settings.json``); it is off until :meth:`enable`.
- **Writes** (the ``memory`` tool, or the user through the magics) pass :func:`guard.scan`
  first; a rejected write changes nothing and returns the reason. A near-duplicate of an
  existing entry replaces it instead of being added; when a store would pass its cap, the
  oldest entries are trimmed (and named in the result). Each entry keeps a stable id and its
  source (:class:`~.models.EntrySource`: who, session, turn, call, untrusted tools read before,
  whether the user approved it), so :meth:`listing` shows where it came from and
  :meth:`forget` undoes it. The tool's own checks (judge, consent after untrusted content) are
  in :mod:`.tools`.
- **Reads**: :meth:`system_block` renders both stores into one text block for the system
  prompt. It is a pure function of the stored entries, so it is byte-identical from turn to
  turn until memory changes (prompt caches stay warm).
- **Files** are rewritten atomically (temp file, fsync, rename, folder fsync) under an
  advisory lock, so a kill -9 leaves the old or the new content, and two kernels never
  interleave a read-modify-write (:mod:`.notes_files`). The entries as text (near-duplicates,
  bullets, the prompt block) are :mod:`.notes_text`.
"""

from __future__ import annotations

import contextlib
import json
import time
from pathlib import Path
from typing import Literal

from .guard import Verdict, scan
from .models import Entry, EntrySource, JudgeMode, MemoryResult, MemorySettings
from .notes_files import atomic_write, config_dir, locked, read_entries, write_entries
from .notes_text import bullet, parse_bullets, render_block, similar, size, words

__all__ = ["CrossSessionMemory", "Entry", "EntrySource", "MemoryResult", "MemorySettings",
           "parse_bullets", "render_block"]

Target = Literal["profile", "notes"]
TARGETS: tuple[Target, ...] = ("profile", "notes")


class CrossSessionMemory:
    """The profile and the notes of one workspace (see the module docstring)."""

    def __init__(
        self,
        workspace: str | Path,
        *,
        profile_dir: str | Path | None = None,
        settings: MemorySettings | None = None,
    ) -> None:
        self.workspace = Path(workspace).expanduser().resolve()
        self.folder = self.workspace / ".orkas" / "memory"
        self.profile_dir = Path(profile_dir) if profile_dir else config_dir()
        self.settings = settings or MemorySettings()

    # -- switch -----------------------------------------------------------------------------

    @property
    def _settings_file(self) -> Path:
        return self.folder / "settings.json"

    @property
    def enabled(self) -> bool:
        try:
            return bool(json.loads(self._settings_file.read_text("utf-8")).get("enabled"))
        except (OSError, ValueError, AttributeError):
            return False

    def _stored_settings(self) -> dict[str, object]:
        try:
            data = json.loads(self._settings_file.read_text("utf-8"))
            return data if isinstance(data, dict) else {}
        except (OSError, ValueError):
            return {}

    def enable(self, on: bool = True) -> None:
        self._store_setting("enabled", on)

    def _store_setting(self, key: str, value: object) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        with self._locked("notes"):
            data = self._stored_settings()
            data[key] = value
            atomic_write(self._settings_file, json.dumps(data) + "\n")

    @property
    def judge_mode(self) -> JudgeMode:
        stored = self._stored_settings().get("judge")
        return stored if stored in ("off", "doubtful", "all") else self.settings.judge  # type: ignore[return-value]

    @property
    def judge_model(self) -> str | None:
        stored = self._stored_settings().get("judge_model")
        return stored if isinstance(stored, str) and stored else self.settings.judge_model

    def set_judge(self, mode: JudgeMode, model: str | None = None) -> None:
        """The workspace's judge setting (off by default); ``model`` None keeps the agent's."""
        if mode not in ("off", "doubtful", "all"):
            raise ValueError(f"judge mode {mode!r}: off, doubtful or all")
        self._store_setting("judge", mode)
        self._store_setting("judge_model", model)

    def disable(self) -> None:
        self.enable(False)

    # -- storage ----------------------------------------------------------------------------

    def path(self, target: Target) -> Path:
        if target == "profile":
            return self.profile_dir / "profile.json"
        if target == "notes":
            return self.folder / "notes.json"
        raise ValueError(f"unknown memory target {target!r} (profile or notes)")

    def cap(self, target: Target) -> int:
        return self.settings.profile_cap if target == "profile" else self.settings.notes_cap

    def _read(self, target: Target) -> list[Entry]:
        return read_entries(self.path(target))

    def _write(self, target: Target, entries: list[Entry]) -> None:
        write_entries(self.path(target), entries)

    def _locked(self, target: Target) -> contextlib.AbstractContextManager[None]:
        return locked(self.path(target))

    def entries(self, target: Target) -> list[str]:
        return [e.text for e in self._read(target)]

    def used(self, target: Target) -> int:
        return size([e.text for e in self._read(target)])

    # -- writes -----------------------------------------------------------------------------

    def check(self, text: str) -> Verdict:
        """The guard's verdict on one entry (what every write passes)."""
        return scan(text, max_chars=self.settings.entry_max)

    def _check(self, text: str) -> MemoryResult | None:
        verdict = self.check(text)
        if not verdict.ok:
            return MemoryResult(ok=False, message=f"rejected: {verdict.reason}")
        return None

    def proposed(self, target: Target, old: str, new: str) -> str | MemoryResult:
        """The entry a ``replace`` would leave (for a judge or the user to see first)."""
        entries = self._read(target)
        found = self._find(entries, old) if old else MemoryResult(
            ok=False, message="say which text to replace (old_text)")
        if isinstance(found, MemoryResult):
            return found
        return entries[found].text.replace(old, new, 1).strip()

    def entry_text(self, target: Target, needle: str) -> str | MemoryResult:
        """The one entry containing ``needle`` (what a ``remove`` would drop)."""
        entries = self._read(target)
        found = self._find(entries, needle) if needle else MemoryResult(
            ok=False, message="say which entry to remove (quote part of it)")
        return found if isinstance(found, MemoryResult) else entries[found].text

    def add(self, target: Target, text: str, source: EntrySource | None = None) -> MemoryResult:
        text = text.strip()
        source = source or EntrySource()
        rejected = self._check(text)
        if rejected:
            return rejected
        with self._locked(target):
            entries = self._read(target)
            for i, old in enumerate(entries):
                if similar(old.text, text) >= self.settings.duplicate_similarity:
                    if words(text) <= words(old.text) and len(text) <= len(old.text):
                        return MemoryResult(ok=True, message="already in memory; nothing added")
                    entries[i] = Entry(text=text, id=old.id, source=source)
                    trimmed = self._trim(target, entries, keep=i)
                    self._write(target, entries)
                    return MemoryResult(
                        ok=True,
                        message=f"merged with a similar entry ({old.text[:60]!r})",
                        trimmed=trimmed,
                    )
            entries.append(Entry(text=text, source=source))
            trimmed = self._trim(target, entries, keep=len(entries) - 1)
            self._write(target, entries)
        message = f"saved to {target} ({self.used(target)}/{self.cap(target)} characters)"
        if trimmed:
            message += (
                f"; the cap dropped {len(trimmed)} older entr{'y' if len(trimmed) == 1 else 'ies'}"
            )
        return MemoryResult(ok=True, message=message, trimmed=trimmed)

    def _trim(self, target: Target, entries: list[Entry], keep: int) -> list[str]:
        """Drop the oldest entries (never ``entries[keep]``) until the store fits its cap."""
        dropped: list[str] = []
        keeper = entries[keep]
        while size([e.text for e in entries]) > self.cap(target) and len(entries) > 1:
            victim = min((e for e in entries if e is not keeper), key=lambda e: e.created)
            entries.remove(victim)
            dropped.append(victim.text)
        return dropped

    def _find(self, entries: list[Entry], needle: str) -> int | MemoryResult:
        hits = [i for i, e in enumerate(entries) if needle in e.text]
        if not hits:
            return MemoryResult(ok=False, message=f"no entry contains {needle[:80]!r}")
        if len(hits) > 1:
            return MemoryResult(
                ok=False,
                message=f"{len(hits)} entries contain {needle[:80]!r}; quote more of the one you mean",
            )
        return hits[0]

    def replace(
        self, target: Target, old: str, new: str, source: EntrySource | None = None
    ) -> MemoryResult:
        """Replace the substring ``old`` (in exactly one entry) by ``new``."""
        if not old:
            return MemoryResult(ok=False, message="say which text to replace (old_text)")
        with self._locked(target):
            entries = self._read(target)
            found = self._find(entries, old)
            if isinstance(found, MemoryResult):
                return found
            updated = entries[found].text.replace(old, new, 1).strip()
            if not updated:
                del entries[found]
                self._write(target, entries)
                return MemoryResult(ok=True, message="entry removed (it became empty)")
            rejected = self._check(updated)
            if rejected:
                return rejected
            entries[found] = Entry(text=updated, created=entries[found].created,
                                   id=entries[found].id, source=source or EntrySource())
            trimmed = self._trim(target, entries, keep=found)
            self._write(target, entries)
        return MemoryResult(ok=True, message=f"updated in {target}", trimmed=trimmed)

    def remove(self, target: Target, text: str) -> MemoryResult:
        """Remove the one entry containing ``text``."""
        if not text:
            return MemoryResult(ok=False, message="say which entry to remove (quote part of it)")
        with self._locked(target):
            entries = self._read(target)
            found = self._find(entries, text)
            if isinstance(found, MemoryResult):
                return found
            gone = entries.pop(found)
            self._write(target, entries)
        return MemoryResult(ok=True, message=f"removed from {target}: {gone.text[:80]!r}")

    def forget(self, entry_id: str) -> MemoryResult:
        """Remove the entry with this id (from ``%agent memory show``), from either store."""
        entry_id = entry_id.strip().strip("[]")
        for target in TARGETS:
            with self._locked(target):
                entries = self._read(target)
                kept = [e for e in entries if e.id != entry_id]
                if len(kept) < len(entries):
                    self._write(target, kept)
                    gone = next(e for e in entries if e.id == entry_id)
                    return MemoryResult(ok=True, message=f"forgot [{entry_id}] from {target}: "
                                                         f"{gone.text[:80]!r}")
        return MemoryResult(ok=False, message=f"no entry has id {entry_id!r}; see %agent memory show")

    def listing(self) -> str:
        """Both stores, each entry with its id and where it came from (``%agent memory show``)."""
        parts = []
        for target, title in (("profile", "User profile"), ("notes", "Project notes")):
            parts.append(f"## {title}")
            for e in self._read(target):  # type: ignore[arg-type]
                when = time.strftime("%Y-%m-%d %H:%M", time.localtime(e.created))
                origin = e.source.describe() if e.source else "source not recorded"
                parts.append(f"- [{e.id}] " + e.text.replace("\n", "\n  "))
                parts.append(f"  ({origin} · {when})")
            parts.append("")
        return "\n".join(parts)

    def set_entries(self, target: Target, entries: list[str]) -> MemoryResult:
        """Replace a whole store (the user's edit). Each entry is scanned; all or nothing."""
        clean = [e.strip() for e in entries if e.strip()]
        for text in clean:
            rejected = self._check(text)
            if rejected:
                return MemoryResult(ok=False, message=f"{rejected.message} (entry {text[:60]!r})")
        if size(clean) > self.cap(target):
            return MemoryResult(
                ok=False,
                message=f"{size(clean)} characters; the {target} cap is {self.cap(target)}",
            )
        now = time.time()
        with self._locked(target):
            self._write(
                target, [Entry(text=t, created=now + i * 1e-6) for i, t in enumerate(clean)]
            )
        return MemoryResult(ok=True, message=f"{target}: {len(clean)} entries saved")

    def edit(self, target: Target, markdown: str) -> MemoryResult:
        """Replace a store from the text :meth:`export_target` gives (``- `` bullets)."""
        return self.set_entries(target, parse_bullets(markdown))

    def export_target(self, target: Target) -> str:
        """One store as ``- `` bullets (continuation lines indented), for editing."""
        return "\n".join(bullet(t) for t in self.entries(target))

    def clear(self, target: Target | None = None) -> None:
        for t in (target,) if target else TARGETS:
            with self._locked(t):
                self._write(t, [])

    # -- reads ------------------------------------------------------------------------------

    def export(self) -> str:
        """Both stores as Markdown (what ``%agent memory export`` writes)."""
        parts = []
        for target, title in (("profile", "User profile"), ("notes", "Project notes")):
            parts.append(f"## {title}\n")
            parts.extend(bullet(t) for t in self.entries(target))  # type: ignore[arg-type]
            parts.append("")
        return "\n".join(parts)

    def system_block(self) -> str:
        """The frozen memory block for the system prompt; empty when off or empty."""
        if not self.enabled:
            return ""
        return render_block(self.entries("profile"), self.entries("notes"))

