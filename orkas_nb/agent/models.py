"""Model strings become providers here, and only here.

:func:`provider_for` is the one function that turns a model string into a provider (it is the
only caller of the registry's ``resolve_model`` in the package; a test checks). Everything that
builds an agent goes through a :class:`ProviderPool`: ``Agent(...)`` from a script (the process's
:func:`default_pool`), a notebook cell (the notebook keeps a pool per conversation), a team
member (its parent's pool), and the memory judge's own model.

A pool keeps what it resolved, by model string and options, so the agents of a process share
their providers: connections (the transports are shared anyway, see
:mod:`orkas_nb.providers.pool`), key cooldowns, a llama.cpp window probed once. A resolution
is reused only while the environment it read its keys and addresses from is unchanged.
Cassettes are state (a replay's position, a recording's file), so a pool keeps them only when
asked to (``keep_cassettes``): the notebook's pool does, so a conversation's cassette carries
over from cell to cell and a fresh conversation (a fresh pool) starts it from its first call;
the process pool does not, so two scripts' agents on one cassette each replay it from the start.
"""

from __future__ import annotations

import os
import sys
import threading
from dataclasses import dataclass
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..providers.base import LLMProvider
    from ..providers.catalog import Catalog

__all__ = ["ProviderPool", "ResolvedModel", "default_pool", "provider_for"]


@dataclass(frozen=True)
class ResolvedModel:
    """What an agent needs of its model: the provider, the model name it asks for, the catalog
    its cost is priced from (None: the built-in list prices), and a label for the views (the
    model string as written, or the provider's id)."""

    provider: LLMProvider
    model: str
    catalog: Catalog | None
    label: str


def provider_for(model: str, **options: Any) -> tuple[LLMProvider, str]:
    """A model string (and provider options, see :mod:`orkas_nb.providers.registry`) →
    ``(provider, model name)``. The one place a model string becomes a provider."""
    from ..providers.registry import resolve_model

    return resolve_model(model, **options)


class _Unkeyable(Exception):
    pass


def _frozen(value: Any) -> Any:
    """A hashable stand-in for an option value (None-free; objects by identity)."""
    if isinstance(value, dict):
        return tuple(sorted((str(k), _frozen(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, (set, frozenset)):
        return frozenset(_frozen(v) for v in value)
    if isinstance(value, PurePath):
        return str(value)
    dump = getattr(value, "model_dump_json", None)  # a pydantic model (ProvidersConfig…)
    if callable(dump):
        return (type(value).__qualname__, dump())
    try:
        hash(value)
    except TypeError:
        raise _Unkeyable from None
    return value


def _is_cassette(provider: Any) -> bool:
    cassette = sys.modules.get("orkas_nb.providers.cassette")  # not loaded: no cassette exists
    return cassette is not None and isinstance(
        provider, (cassette.RecordingProvider, cassette.ReplayProvider))


class ProviderPool:
    """Resolves models for agents and keeps the results; see the module docstring."""

    def __init__(self, *, keep_cassettes: bool = False) -> None:
        self.keep_cassettes = keep_cassettes
        self._kept: dict[Any, tuple[dict[str, str], tuple[LLMProvider, str]]] = {}
        self._lock = threading.Lock()

    def resolve(self, model: str | LLMProvider, *, model_name: str | None = None,
                **options: Any) -> ResolvedModel:
        """``model`` (a model string, or a provider object used as given) → :class:`ResolvedModel`.

        ``model_name`` names the model to ask a provider object for (default: its
        ``default_model``); given with a string it replaces the string's model name.
        """
        from ..providers.catalog import catalog_of

        if isinstance(model, str):
            provider, name = self._provider(model, options)
            label = model
        else:
            provider, name = model, getattr(model, "default_model", None) or "default"
            label = str(getattr(model, "id", "model"))
        return ResolvedModel(provider, model_name or name, catalog_of(provider), label)

    def resolve_pair(self, model: str) -> tuple[LLMProvider, str]:
        """``(provider, model name)`` for a model string: the resolver handed to parts below the
        composition root (the memory judge's ``judge_model``)."""
        return self._provider(model, {})

    def _provider(self, model: str, options: dict[str, Any]) -> tuple[LLMProvider, str]:
        try:
            key: Any = (model, _frozen(options))
        except _Unkeyable:  # an option only comparable by value that has none: resolve afresh
            key = None
        env = dict(os.environ)  # keys and addresses come from it (see the registry)
        if key is not None:
            with self._lock:
                hit = self._kept.get(key)
            if hit is not None and (hit[0] == env or _is_cassette(hit[1][0])):
                return hit[1]
        resolved = provider_for(model, **options)
        if key is not None and (self.keep_cassettes or not _is_cassette(resolved[0])):
            with self._lock:
                self._kept[key] = (env, resolved)
        return resolved

    def clear(self) -> None:
        """Forget what was resolved: the next agent starts its models (a cassette from its
        first call) afresh."""
        with self._lock:
            self._kept.clear()

    def __len__(self) -> int:
        return len(self._kept)


_DEFAULT = ProviderPool()


def default_pool() -> ProviderPool:
    """The process's pool: what ``Agent(...)`` uses unless it is given another."""
    return _DEFAULT
