"""Which embedder a knowledge base uses, from a short setting the user writes.

``auto`` (the default): the local MiniLM when its packages are installed, else full text only.
``none``: full text only. ``local``: the local MiniLM (an error if it is not installed).
``ENDPOINT/MODEL``: an OpenAI-compatible ``/v1/embeddings`` server found like a model's
(``openai/text-embedding-3-small``, ``ollama/nomic-embed-text``, ``llamacpp/…``, ``vllm/…``, or a
named endpoint), so its address and key come from the same options and environment variables.
Finding that server is the providers' business and memory sits beside the tools, below the
composition root (SPEC §2), so the lookup is handed in (:data:`EndpointLookup`): the Agent and the
notebook pass :func:`orkas_nb.providers.registry.openai_compatible_endpoint`.

The setting is kept in the base (meta ``embedder_spec``) next to the embedder's id, so a later
process rebuilds the same embedder and queries are embedded the way the vectors were.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.errors import ConfigError
from .embedders import Embedder

EndpointLookup = Callable[..., "tuple[str, str | None]"]
"""``lookup(name, **options) -> (base URL, API key or None)`` of an OpenAI-compatible server."""

AUTO, NONE, LOCAL = "auto", "none", "local"
_OFF = (NONE, "off", "false")


def kind_of(spec: str | None) -> str:
    """``auto``, ``none``, ``local`` or ``server`` (an ``ENDPOINT/MODEL``): what a setting asks for."""
    lowered = (spec or "").strip().lower()
    if lowered in (AUTO, ""):
        return AUTO
    if lowered in _OFF:
        return NONE
    return LOCAL if lowered == LOCAL else "server"


def default_embedder() -> Embedder | None:
    """The local MiniLM when its packages are installed (``orkas_nb[embeddings]``), else None.

    Every "is the local model there?" question goes through this name (``orkas_nb.memory``
    re-exports it), so replacing it here stands in for a machine without the model.
    """
    from .embedders import OnnxMiniLM

    try:
        import onnxruntime  # noqa: F401
        import tokenizers  # noqa: F401

        return OnnxMiniLM()
    except (ImportError, ConfigError):
        return None


def embedder_from_spec(spec: str | None, endpoints: EndpointLookup | None = None,
                       **endpoint_options: Any) -> Embedder | None:
    """The embedder a setting names; ``None`` for full-text search only.

    ``endpoints`` finds the server of an ``ENDPOINT/MODEL`` setting (see the module docstring).
    """
    kind = kind_of(spec)
    if kind == NONE:
        return None
    if kind in (AUTO, LOCAL):
        found = default_embedder()
        if found is None and kind == LOCAL:
            raise ConfigError("the local embedding model is not installed: "
                              "pip install 'orkas_nb[embeddings]' (or choose an embeddings server)")
        return found
    text = str(spec).strip()
    endpoint, sep, model = text.partition("/")
    if not sep or not endpoint or not model:
        raise ConfigError(f"embedder {text!r}: use auto, none, local or ENDPOINT/MODEL "
                          "(e.g. ollama/nomic-embed-text)")
    if endpoints is None:
        raise ConfigError(f"embedder {text!r} names a server, but no endpoint lookup was given "
                          "(pass endpoints=orkas_nb.providers.registry.openai_compatible_endpoint)")
    from .embedders import HttpEmbedder

    base_url, key = endpoints(endpoint, **endpoint_options)
    return HttpEmbedder(model, base_url=base_url, api_key=key or "")


__all__ = ["AUTO", "LOCAL", "NONE", "EndpointLookup", "default_embedder", "embedder_from_spec",
           "kind_of"]
