"""The evolution of a workspace's named agents: signals in, reflections out (SPEC §13).

:class:`Evolution` is built by the composition root with what the team layer may not reach
itself: the memory-write guard, a way to resolve the cheap model, the skills of the other
libraries. It is inert unless the workspace's switch is on *and* the agent's own switch is on;
the commander (and any agent that is not a named member) never has an observer at all.

A reflection started by a run (:meth:`after_run`) is a background task: its failure is
logged, never raised into the run or into another agent's reflection; one agent's reflection
never waits on another's (a lock per agent keeps two of the same agent apart).
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path

from ...providers.base import LLMProvider
from ..bus import COMMANDER, USER
from .edits import WrittenFiles
from .library import Guard, PrivateLibrary, undo_changes
from .reflection import Meter, activity_summary, reflect
from .settings import EvolutionSettings, load_settings
from .signals import RunObserver, same_request
from .store import AgentStore, Reflection, SignalRecord, Undo

__all__ = ["Evolution", "EvolutionError"]

ModelResolver = Callable[[str], tuple[LLMProvider, str]]
# A fresh meter for one reflection on (provider, model), or None when its price is unknown.
MeterFactory = Callable[[LLMProvider, str], Meter | None]


class EvolutionError(ValueError):
    """A request the user made that cannot be done (unknown reflection, nothing to undo)."""


class Evolution:
    def __init__(self, workspace: str | Path, *, guard: Guard,
                 default_model: tuple[LLMProvider, str] | None = None,
                 resolve: ModelResolver | None = None,
                 other_skills: Callable[[], Mapping[str, str]] = dict,
                 descriptions: Mapping[str, str] | None = None,
                 settings: EvolutionSettings | None = None,
                 meter: MeterFactory | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.workspace = Path(workspace)
        self.guard = guard
        self.default_model = default_model
        self.resolve = resolve
        self.other_skills = other_skills
        self.descriptions = dict(descriptions or {})
        self._settings = settings
        self.meter = meter
        self.clock = clock
        self._locks: dict[str, asyncio.Lock] = {}
        self.tasks: set[asyncio.Task[Reflection]] = set()

    # -- switches ---------------------------------------------------------------------------
    @property
    def settings(self) -> EvolutionSettings:
        return self._settings if self._settings is not None else load_settings(self.workspace)

    def store(self, agent: str) -> AgentStore:
        if agent.lower() in (COMMANDER, USER):
            raise EvolutionError(f"{agent!r} never evolves: only named agents do")
        return AgentStore(self.workspace, agent)

    def active(self, agent: str) -> bool:
        """Whether ``agent`` evolves: the workspace's switch and its own are both on."""
        if agent.lower() in (COMMANDER, USER) or not self.settings.enabled:
            return False
        return self.store(agent).state().enabled

    # -- signals ----------------------------------------------------------------------------
    def observer(self, agent: str, request: str = "", task_id: str | None = None) -> RunObserver | None:
        """An observer for one run of ``agent`` (None when it does not evolve). A request equal
        to the agent's previous one is a retry: the user was not satisfied."""
        if not self.active(agent):
            return None
        for name in self.written.edited(agent):
            self.record_edit(agent, f"the user edited {name} after the agent wrote it")
        store = self.store(agent)
        state = store.state()
        previous = state.last_request
        retry = previous if previous and request and same_request(previous, request[:500]) else None
        if request:
            state.last_request = request[:500]
            store.save_state(state)
        return RunObserver(self.settings, self.clock, task_id=task_id, retry_of=retry)

    @property
    def written(self) -> WrittenFiles:
        return WrittenFiles(self.workspace)

    def wrote(self, writer: str, files: list[str]) -> None:
        """A run of ``writer`` (any agent, the commander too) wrote ``files`` with its file
        tools: it owns them now, so a later change by the user corrects it and nobody else."""
        self.written.claim(writer, files)

    def record(self, agent: str, signals: list[SignalRecord]) -> None:
        store = self.store(agent)
        for s in signals:
            store.add_signal(s)

    def record_edit(self, agent: str, note: str = "the user edited the agent's output") -> None:
        """The host saw the user edit what the agent wrote: a correction."""
        if self.active(agent):
            self.record(agent, [SignalRecord(ts=self.clock(), kind="correction", note=note[:300],
                                             weight=self.settings.weights.get("correction", 5.0))])

    def score(self, agent: str) -> float:
        state = self.store(agent).state()
        return sum(s.weight for s in self.store(agent).signals(since=state.last_cycle))

    def due(self, agent: str) -> str | None:
        """Why a reflection is due now (``threshold``, ``fallback``), or None."""
        if not self.active(agent):
            return None
        settings, state, now = self.settings, self.store(agent).state(), self.clock()
        last = state.last_cycle if state.last_cycle is not None else state.enabled_at
        since = now - last if last is not None else float("inf")
        if since < settings.cooling_hours * 3600:
            return None
        score = self.score(agent)
        if score >= settings.threshold:
            return "threshold"
        if score > 0 and since >= settings.fallback_days * 86400:
            return "fallback"
        return None

    def after_run(self, agent: str, observer: RunObserver | None) -> asyncio.Task[Reflection] | None:
        """Record a finished run's signals; start a background reflection when one is due."""
        if observer is None or not self.active(agent):
            return None
        self.record(agent, observer.finish())
        trigger = self.due(agent)
        if trigger is None:
            return None
        task = asyncio.ensure_future(self.run_now(agent, trigger=trigger))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    # -- reflections ------------------------------------------------------------------------
    async def run_now(self, agent: str, *, trigger: str = "manual") -> Reflection:
        """One reflection of ``agent`` now (cooling ignored, caps kept); returns its record.
        Never raises for a failing model: the record says ``failed`` and why."""
        store = self.store(agent)
        lock = self._locks.setdefault(agent, asyncio.Lock())
        async with lock:
            return await self._reflect(store, agent, trigger)

    async def _reflect(self, store: AgentStore, agent: str, trigger: str) -> Reflection:
        settings, state = self.settings, store.state()
        signals = store.signals(since=state.last_cycle)
        weights = Counter[str]()
        for s in signals:
            weights[s.kind] += s.weight
        record = Reflection(id=f"r{int(self.clock())}-{secrets.token_hex(2)}", agent=agent,
                            started=self.clock(), trigger=trigger, signals=dict(weights))
        remaining = settings.max_tokens_total - state.tokens_total
        cap = min(settings.max_tokens_per_reflection, remaining)
        library = PrivateLibrary(store, self._others(), state.created, self.guard,
                                 on_change=lambda lib: self._save_progress(store, lib, record))
        if cap <= 0:
            record.status, record.reason = "refused", (
                f"the total token cap ({settings.max_tokens_total}) is spent")
        else:
            try:
                provider, model = self._model(settings)
                record.model = model
                summary = activity_summary(agent, self.descriptions.get(agent, ""), signals,
                                           store.profile(), library.names())
                await reflect(record, library, provider, model, summary, cap=cap,
                              max_steps=settings.max_steps,
                              meter=self.meter(provider, model) if self.meter else None)
            except asyncio.CancelledError:
                record.status, record.reason = "failed", "cancelled"
                self._finish(store, record, library)
                raise
            except Exception as exc:  # noqa: BLE001 - a failing reflection must not spread
                record.status, record.reason = "failed", f"{type(exc).__name__}: {exc}"[:500]
                record.changes, record.refusals = list(library.changes), list(library.refusals)
        self._finish(store, record, library)
        return record

    def _finish(self, store: AgentStore, record: Reflection, library: PrivateLibrary) -> None:
        record.ended = self.clock()
        state = store.state()
        state.last_cycle = record.ended
        state.tokens_total += record.input_tokens + record.output_tokens
        store.save_state(state)
        store.log(record)

    def _save_progress(self, store: AgentStore, library: PrivateLibrary,
                       record: Reflection) -> None:
        # Saved at each write, so a reflection killed mid-way still owns what it created and
        # its log lists (and undo reverses) what it wrote; the final record supersedes this one.
        state = store.state()
        state.created = list(library.created)
        changed = [c.skill or "profile" for c in library.changes]
        state.unseen = list(dict.fromkeys([*state.unseen, *changed]))
        store.save_state(state)
        if library.changes:
            store.log(record.model_copy(update={
                "status": "failed", "reason": "interrupted: the reflection did not finish",
                "changes": list(library.changes), "refusals": list(library.refusals)}))

    def _model(self, settings: EvolutionSettings) -> tuple[LLMProvider, str]:
        if settings.model is not None:
            if self.resolve is None:
                raise EvolutionError(f"cannot resolve the reflection model {settings.model!r}")
            return self.resolve(settings.model)
        if self.default_model is None:
            raise EvolutionError("no model for reflections: set one in the evolution settings")
        return self.default_model

    def _others(self) -> dict[str, str]:
        try:
            return dict(self.other_skills())
        except Exception:  # noqa: BLE001 - unknown others: refuse nothing by name, still validated
            return {}

    # -- observing and reversing ------------------------------------------------------------
    def history(self, agent: str) -> list[Reflection]:
        return self.store(agent).history()

    def undo(self, agent: str, reflection_id: str | None = None) -> Reflection:
        """Restore what one reflection (default: the latest not undone that changed anything)
        replaced, byte for byte."""
        store = self.store(agent)
        undone = store.undone()
        found = [r for r in store.history() if r.changes and r.id not in undone]
        if reflection_id is not None:
            found = [r for r in found if r.id == reflection_id]
            if not found:
                raise EvolutionError(f"no reflection {reflection_id!r} with changes left to undo "
                                     f"for {agent!r}")
        if not found:
            raise EvolutionError(f"{agent!r} has no reflection to undo")
        target = found[-1]
        undo_changes(store, target.changes)
        state = store.state()
        for c in target.changes:
            if c.skill is not None and c.before is None and c.skill in state.created:
                state.created.remove(c.skill)
        state.unseen = list(dict.fromkeys([*state.unseen,
                                           *[c.skill or "profile" for c in target.changes]]))
        store.save_state(state)
        store.log(Undo(id=target.id, ts=self.clock()))
        return target

    def take_notices(self, agent: str) -> list[str]:
        """What changed since the agent's last run (said once, in its next run)."""
        with contextlib.suppress(EvolutionError):
            store = self.store(agent)
            state = store.state()
            if state.unseen:
                changed, state.unseen = state.unseen, []
                store.save_state(state)
                return changed
        return []

    async def wait(self) -> None:
        """Wait for the background reflections started so far (tests, shutdown)."""
        if self.tasks:
            await asyncio.gather(*list(self.tasks), return_exceptions=True)
