"""The composition root: where strings become objects (SPEC §2).

``Agent`` wires a provider, tools and a session around the harness; :mod:`.models` turns model
strings into providers (:class:`ProviderPool`); :mod:`.assembly` chooses an agent's tools and
knowledge base; :mod:`.factory` builds team members the same way. Names load lazily, so a part
that needs only the pool or the knowledge base does not load the harness.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

_LAZY = {
    "Agent": ".agent",
    "DEFAULT_SYSTEM_PROMPT": ".agent",
    "ProviderPool": ".models",
    "ResolvedModel": ".models",
    "default_pool": ".models",
    "provider_for": ".models",
    "assemble_tools": ".assembly",
    "knowledge_base": ".assembly",
    "workspace_knowledge": ".assembly",
    "MemberFactory": ".factory",
}

__all__ = list(_LAZY)

if TYPE_CHECKING:  # pragma: no cover
    from .agent import DEFAULT_SYSTEM_PROMPT, Agent  # noqa: F401
    from .assembly import assemble_tools, knowledge_base, workspace_knowledge  # noqa: F401
    from .factory import MemberFactory  # noqa: F401
    from .models import ProviderPool, ResolvedModel, default_pool, provider_for  # noqa: F401


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'orkas_nb.agent' has no attribute {name!r}")
