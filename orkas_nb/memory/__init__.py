"""Memory: a knowledge base (hybrid search over the user's documents) and cross-session memory.

Two mechanisms, kept apart (SPEC §10):

- :class:`KnowledgeBase` — large, looked up on demand: sources are chunked at line boundaries,
  indexed by SQLite FTS5 (BM25) and, with an embedder, by vectors in sqlite-vec's format;
  :meth:`KnowledgeBase.search` fuses both with RRF and cites file and line range.
- :class:`CrossSessionMemory` — small, always present when on: a user profile and project
  notes, written through the guarded ``memory`` tool, rendered into the system prompt by
  :meth:`CrossSessionMemory.system_block`.

Names load lazily so ``import orkas_nb`` stays light (no SQLite driver, NumPy or ONNX until
used).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

_LAZY = {
    "KnowledgeBase": ".kb",
    "KBSettings": ".kb",
    "format_hits": ".kb",
    "SearchHit": ".models",
    "SourceInfo": ".models",
    "DocumentInfo": ".models",
    "IngestReport": ".models",
    "CrossSessionMemory": ".notes",
    "MemorySettings": ".notes",
    "MemoryResult": ".notes",
    "render_block": ".notes",
    "Embedder": ".embedders",
    "HttpEmbedder": ".embedders",
    "OnnxMiniLM": ".embedders",
    "EmbeddingError": ".embedders",
    "embedder_from_spec": ".embedder_choice",
    "kb_search_tool": ".tools",
    "memory_tool": ".tools",
    "scan": ".guard",
    "MemoryJudge": ".guard_judge",
    "judge_for": ".guard_judge",
    "EntrySource": ".models",
    "FrozenPrompt": ".prompt",
}

__all__ = [*_LAZY, "open_knowledge_base", "knowledge_base_for", "has_knowledge_base",
           "default_embedder"]

if TYPE_CHECKING:  # pragma: no cover
    from .embedder_choice import EndpointLookup  # noqa: F401
    from .embedders import Embedder, EmbeddingError, HttpEmbedder, OnnxMiniLM  # noqa: F401
    from .guard import scan  # noqa: F401
    from .guard_judge import MemoryJudge, judge_for  # noqa: F401
    from .kb import KBSettings, KnowledgeBase, format_hits  # noqa: F401
    from .models import DocumentInfo, EntrySource, IngestReport, SearchHit, SourceInfo  # noqa: F401
    from .notes import CrossSessionMemory, MemoryResult, MemorySettings, render_block  # noqa: F401
    from .prompt import FrozenPrompt  # noqa: F401
    from .tools import kb_search_tool, memory_tool  # noqa: F401


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'orkas_nb.memory' has no attribute {name!r}")


_OPEN: dict[Path, Any] = {}
_OPEN_LOCK = threading.Lock()


def open_knowledge_base(workspace: str | Path, *, embedder: Any = None) -> KnowledgeBase:
    """The workspace's knowledge base, one per process and workspace (magics and tools share it).

    ``embedder`` is used when the base is first opened in this process (or replaces the one
    it has when given again); ``None`` keeps full-text search only.
    """
    from .kb import KnowledgeBase

    key = Path(workspace).expanduser().resolve()
    with _OPEN_LOCK:
        kb = _OPEN.get(key)
        if kb is None or kb.closed:
            kb = _OPEN[key] = KnowledgeBase.open(key, embedder=embedder)
        elif embedder is not None and kb.embedder is not embedder:
            kb.embedder = embedder
            kb.store.use_embedder(embedder.id)
        return kb


def knowledge_base_for(workspace: str | Path, embedder: str | None = None, *,
                       endpoints: EndpointLookup | None = None) -> KnowledgeBase:
    """The workspace's knowledge base with the embedder its vectors were made with.

    ``embedder`` is a setting of :mod:`.embedder_choice` (``auto``, ``none``, ``local`` or
    ``ENDPOINT/MODEL``). With ``auto`` (or None) a base that holds vectors gets its own embedder
    back (the setting it was built with, kept in the base, or the local MiniLM for older bases),
    so queries are embedded the same way; a full-text base stays full text and loads no model.
    Another setting switches the base to that embedder (its chunks are re-embedded by the next
    ``add`` or ``sync``); ``none`` searches full text only, keeping the vectors. ``endpoints``
    finds the server of an ``ENDPOINT/MODEL`` setting (the caller above memory hands it in).
    """
    from . import embedder_choice
    from .embedder_choice import AUTO, NONE, embedder_from_spec, kind_of

    kb = open_knowledge_base(workspace)
    kind = kind_of(embedder)
    if kind == NONE:
        kb.embedder = None
        return kb
    if kind != AUTO:
        chosen = embedder_from_spec(embedder, endpoints)
        if chosen is not None and (kb.embedder is None or kb.embedder.id != chosen.id):
            kb = open_knowledge_base(workspace, embedder=chosen)
        if chosen is not None:
            kb.store.set_meta("embedder_spec", str(embedder).strip())
        return kb
    stored_id = kb.store.meta("embedder")
    if kb.embedder is None and stored_id:
        from ..core.errors import ConfigError

        stored = kb.store.meta("embedder_spec")
        try:
            found = (embedder_from_spec(stored, endpoints) if stored
                     else embedder_choice.default_embedder())
        except ConfigError:  # the server's address or key is gone: full text until it is back
            found = None
        if found is not None and found.id == stored_id:
            kb = open_knowledge_base(workspace, embedder=found)
    return kb


def has_knowledge_base(workspace: str | Path) -> bool:
    """Whether the workspace has a knowledge base file (without creating one)."""
    return (Path(workspace).expanduser() / ".orkas" / "knowledge.db").is_file()


def default_embedder() -> Embedder | None:
    """The local MiniLM when its packages are installed (``orkas_nb[embeddings]``), else None.

    It lives in :mod:`.embedder_choice` (which must not import this package back); replace it
    there to stand in for a machine without the model.
    """
    from . import embedder_choice

    return embedder_choice.default_embedder()
