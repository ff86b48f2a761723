"""What each model can take and give: context window and output limit, overridable.

"No output cap" (SPEC §4) means the model's own maximum, which comes from here; Anthropic
requires ``max_tokens`` on every request, so it always gets this number. Lookups match the
longest known prefix, so dated snapshots (``claude-sonnet-4-5-20250929``) find their family.
A local server's real window can be learnt at run time and recorded with :meth:`Catalog.set`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from pydantic import BaseModel

__all__ = ["DEFAULT_MODELS", "Catalog", "ModelInfo"]


class ModelInfo(BaseModel):
    context_window: int
    max_output: int


def _m(ctx: int, out: int) -> ModelInfo:
    return ModelInfo(context_window=ctx, max_output=out)


DEFAULT_MODELS: dict[str, ModelInfo] = {
    # OpenAI
    "gpt-5": _m(400_000, 128_000),
    "gpt-4.1": _m(1_047_576, 32_768),
    "gpt-4o": _m(128_000, 16_384),
    "gpt-4-turbo": _m(128_000, 4_096),
    "gpt-4": _m(8_192, 8_192),
    "gpt-3.5-turbo": _m(16_385, 4_096),
    "o1": _m(200_000, 100_000),
    "o1-mini": _m(128_000, 65_536),
    "o3": _m(200_000, 100_000),
    "o3-mini": _m(200_000, 100_000),
    "o4-mini": _m(200_000, 100_000),
    # Anthropic
    "claude-opus-4-5": _m(200_000, 64_000),
    "claude-opus-4-1": _m(200_000, 32_000),
    "claude-opus-4": _m(200_000, 32_000),
    "claude-sonnet-4-5": _m(200_000, 64_000),
    "claude-sonnet-4": _m(200_000, 64_000),
    "claude-haiku-4-5": _m(200_000, 64_000),
    "claude-3-7-sonnet": _m(200_000, 64_000),
    "claude-3-5-sonnet": _m(200_000, 8_192),
    "claude-3-5-haiku": _m(200_000, 8_192),
    "claude-3-haiku": _m(200_000, 4_096),
    # Families not listed above: the window they share, a conservative output limit.
    "claude-": _m(200_000, 32_000),
}

FALLBACK = _m(128_000, 8_192)


class Catalog:
    """Model limits by name; ``overrides`` (from config) win over the built-in table."""

    def __init__(self, overrides: Mapping[str, ModelInfo | Mapping[str, int]] | None = None) -> None:
        self._models = dict(DEFAULT_MODELS)
        for name, info in (overrides or {}).items():
            self.set(name, info)

    def set(self, model: str, info: ModelInfo | Mapping[str, int]) -> None:
        self._models[model] = info if isinstance(info, ModelInfo) else ModelInfo(**info)

    def known(self, model: str) -> ModelInfo | None:
        """The entry for ``model`` or its longest known prefix; None when unknown."""
        name = model.rsplit("/", 1)[-1]
        best: str | None = None
        for key in self._models:
            if name.startswith(key) and (best is None or len(key) > len(best)):
                best = key
        return self._models[best] if best is not None else None

    def get(self, model: str) -> ModelInfo:
        """Like :meth:`known`, but an unknown model gets conservative defaults."""
        return self.known(model) or FALLBACK

    def names(self) -> Iterable[str]:
        return self._models.keys()
