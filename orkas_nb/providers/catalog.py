"""What each model can take and give: context window and output limit, overridable.

"No output cap" (SPEC §4) means the model's own maximum, which comes from here; Anthropic
requires ``max_tokens`` on every request, so it always gets this number. Lookups match the
longest known prefix, so dated snapshots (``claude-sonnet-4-5-20250929``) find their family.
A local server's real window can be learnt at run time and recorded with :meth:`Catalog.set`.

Prices (USD per million tokens) are list prices as of :data:`PRICES_AS_OF`, copied by hand from
the vendors' price pages: they may be stale, and they ignore batch discounts, long-context tiers
and regional surcharges. Override them per model through the same ``models`` option as the
windows (``models={"gpt-4o": {"input_price": 2.0, "output_price": 8.0}}``; a partial entry
keeps the other fields). A model without a price (local servers, unknown names) costs ``None``
(unknown), never 0.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel

from ..core.messages import Usage

__all__ = ["DEFAULT_MODELS", "PRICES_AS_OF", "Catalog", "ModelInfo", "ModelOverride", "cost_of"]

#: When the built-in prices were last checked against the vendors' list prices.
PRICES_AS_OF = "2025-11"


class ModelInfo(BaseModel):
    """One model's limits and list prices (USD per million tokens; None: unknown).

    A missing cache price falls back to the input price (OpenAI bills no cache writes)."""

    context_window: int
    max_output: int
    input_price: float | None = None
    output_price: float | None = None
    cache_read_price: float | None = None
    cache_write_price: float | None = None


class ModelOverride(BaseModel):
    """A partial :class:`ModelInfo` from config: the fields given replace the known entry's."""

    context_window: int | None = None
    max_output: int | None = None
    input_price: float | None = None
    output_price: float | None = None
    cache_read_price: float | None = None
    cache_write_price: float | None = None


def _m(ctx: int, out: int, price: tuple[float, ...] = ()) -> ModelInfo:
    """``price``: (input, output, cache read[, cache write]) per million tokens."""
    names = ("input_price", "output_price", "cache_read_price", "cache_write_price")
    return ModelInfo(context_window=ctx, max_output=out, **dict(zip(names, price)))


# What may follow a priced name and still be that model: a dated snapshot or an alias.
# Anything else (gpt-4o-audio-preview, a fine-tune) is another product with another price.
_SNAPSHOT = re.compile(r"(-\d{4}-\d{2}-\d{2}|-\d{8}|-latest)?")


DEFAULT_MODELS: dict[str, ModelInfo] = {
    # OpenAI (cache read = "cached input"; no cache-write charge)
    "gpt-5": _m(400_000, 128_000, (1.25, 10.0, 0.125)),
    "gpt-5-mini": _m(400_000, 128_000, (0.25, 2.0, 0.025)),
    "gpt-5-nano": _m(400_000, 128_000, (0.05, 0.40, 0.005)),
    "gpt-4.1": _m(1_047_576, 32_768, (2.0, 8.0, 0.50)),
    "gpt-4.1-mini": _m(1_047_576, 32_768, (0.40, 1.60, 0.10)),
    "gpt-4.1-nano": _m(1_047_576, 32_768, (0.10, 0.40, 0.025)),
    "gpt-4o": _m(128_000, 16_384, (2.50, 10.0, 1.25)),
    "gpt-4o-mini": _m(128_000, 16_384, (0.15, 0.60, 0.075)),
    "gpt-4-turbo": _m(128_000, 4_096),
    "gpt-4": _m(8_192, 8_192),
    "gpt-3.5-turbo": _m(16_385, 4_096),
    "o1": _m(200_000, 100_000, (15.0, 60.0, 7.50)),
    "o1-mini": _m(128_000, 65_536, (1.10, 4.40, 0.55)),
    "o3": _m(200_000, 100_000, (2.0, 8.0, 0.50)),
    "o3-mini": _m(200_000, 100_000, (1.10, 4.40, 0.55)),
    "o4-mini": _m(200_000, 100_000, (1.10, 4.40, 0.275)),
    # Anthropic (cache write = 5-minute cache writes; prompts over 200k tokens cost more)
    "claude-opus-4-5": _m(200_000, 64_000, (5.0, 25.0, 0.50, 6.25)),
    "claude-opus-4-1": _m(200_000, 32_000, (15.0, 75.0, 1.50, 18.75)),
    "claude-opus-4": _m(200_000, 32_000, (15.0, 75.0, 1.50, 18.75)),
    "claude-sonnet-4-5": _m(200_000, 64_000, (3.0, 15.0, 0.30, 3.75)),
    "claude-sonnet-4": _m(200_000, 64_000, (3.0, 15.0, 0.30, 3.75)),
    "claude-haiku-4-5": _m(200_000, 64_000, (1.0, 5.0, 0.10, 1.25)),
    "claude-3-7-sonnet": _m(200_000, 64_000, (3.0, 15.0, 0.30, 3.75)),
    "claude-3-5-sonnet": _m(200_000, 8_192, (3.0, 15.0, 0.30, 3.75)),
    "claude-3-5-haiku": _m(200_000, 8_192, (0.80, 4.0, 0.08, 1.0)),
    "claude-3-haiku": _m(200_000, 4_096, (0.25, 1.25, 0.03, 0.30)),
    # Families not listed above: the window they share, a conservative output limit.
    "claude-": _m(200_000, 32_000),
}

FALLBACK = _m(128_000, 8_192)


class Catalog:
    """Model limits by name; ``overrides`` (from config) win over the built-in table."""

    def __init__(self, overrides: Mapping[str, ModelInfo | ModelOverride | Mapping[str, Any]] | None = None
                 ) -> None:
        self._models = dict(DEFAULT_MODELS)
        for name, info in (overrides or {}).items():
            self.set(name, info)

    def set(self, model: str, info: ModelInfo | ModelOverride | Mapping[str, Any]) -> None:
        """Record ``model``'s entry; a partial one (no window, say) keeps the known fields."""
        if isinstance(info, ModelInfo):
            self._models[model] = info
            return
        given = info.model_dump(exclude_unset=True) if isinstance(info, ModelOverride) else dict(info)
        base = self._models.get(model) or self.known(model) or FALLBACK
        self._models[model] = ModelInfo.model_validate({**base.model_dump(), **given})

    def _match(self, model: str) -> str | None:
        name = model.rsplit("/", 1)[-1]
        best: str | None = None
        for key in self._models:
            if name.startswith(key) and (best is None or len(key) > len(best)):
                best = key
        return best

    def known(self, model: str) -> ModelInfo | None:
        """The entry for ``model`` or its longest known prefix; None when unknown."""
        best = self._match(model)
        return self._models[best] if best is not None else None

    def priced(self, model: str) -> ModelInfo | None:
        """The entry whose prices apply to ``model``: the name itself or a dated snapshot of
        it (``claude-sonnet-4-5-20250929``), never a mere prefix (``gpt-4o-audio-preview``)."""
        best = self._match(model)
        if best is None or not _SNAPSHOT.fullmatch(model.rsplit("/", 1)[-1][len(best):]):
            return None
        info = self._models[best]
        return info if info.input_price is not None and info.output_price is not None else None

    def cost(self, usage: Usage, model: str) -> float | None:
        """``usage`` at ``model``'s list prices, in USD; None when the price is unknown."""
        info = self.priced(model)
        if info is None:
            return None
        assert info.input_price is not None and info.output_price is not None
        read, write = usage.cache_read_tokens, usage.cache_write_tokens
        # Providers count the whole prompt in input_tokens, cached parts included.
        fresh = max(0, usage.input_tokens - read - write)
        read_price = info.input_price if info.cache_read_price is None else info.cache_read_price
        write_price = info.input_price if info.cache_write_price is None else info.cache_write_price
        return (fresh * info.input_price + read * read_price + write * write_price
                + usage.output_tokens * info.output_price) / 1_000_000

    def get(self, model: str) -> ModelInfo:
        """Like :meth:`known`, but an unknown model gets conservative defaults."""
        return self.known(model) or FALLBACK

    def names(self) -> Iterable[str]:
        return self._models.keys()


_DEFAULT: Catalog | None = None


def cost_of(usage: Usage, model: str, catalog: Catalog | None = None) -> float | None:
    """What ``usage`` cost on ``model`` in USD at list prices (as of :data:`PRICES_AS_OF`, so
    possibly stale), or None when the price is unknown (local models, unknown names): a cost
    is never guessed as 0. ``catalog`` carries config overrides; default: the built-in table.
    """
    global _DEFAULT
    if catalog is None:
        if _DEFAULT is None:
            _DEFAULT = Catalog()
        catalog = _DEFAULT
    return catalog.cost(usage, model)
