"""What each model can take and give: context window and output limit, overridable.

"No output cap" (SPEC §4) means the model's own maximum, which comes from here; Anthropic
requires ``max_tokens`` on every request, so it always gets this number. Lookups match the
longest known prefix, so dated snapshots (``claude-sonnet-4-5-20250929``) find their family and
a model newer than the table finds its family's window (``claude-opus-6`` gets the 1M window
the current Opus models share) but no price. A local server's real window can be learnt at run
time and recorded with :meth:`Catalog.set`.

Prices (USD per million tokens) are list prices as of :data:`PRICES_AS_OF`, copied by hand from
the vendors' price pages and model pages: they may be stale. A price depending on the prompt's
length is a :class:`PriceTier` (``long_prompt``): a request whose prompt (cached parts included)
is longer than its threshold pays the tier's prices on all its tokens, output included (Claude
Haiku 5.5 above 100K tokens; OpenAI's 1M-window models, GPT-5.4 on, above 272K; Claude Sonnet
4/4.5 above 200K). A tier is a property of one request, so :meth:`Catalog.cost` prices one
request's usage; a run's total is the sum of its requests' costs (:meth:`Catalog.cost_of_requests`,
or :class:`RunningCost` fed the running total after each request), not the cost of the summed
usage.

Not modelled: batch and flex discounts, fast/priority modes, regional or data-residency
surcharges, and the longer cache lifetimes (Anthropic's 1-hour cache writes, OpenAI's 12-hour
ones): a cache write is priced at the default lifetime's rate (5 minutes; 30 minutes at OpenAI),
the one this package's requests ask for. Override any entry through the same ``models`` option
as the windows (``models={"gpt-4o": {"input_price": 2.0, "output_price": 8.0}}``; a partial
entry keeps the other fields, the tier included unless ``long_prompt`` is given, ``None``
dropping it). A model without a price (local servers, unknown names) costs ``None`` (unknown),
never 0.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel, Field

from ..core.messages import Usage

__all__ = ["DEFAULT_MODELS", "PRICES_AS_OF", "Catalog", "ModelInfo", "ModelOverride", "PriceTier",
           "RunningCost", "catalog_of", "cost_of"]

#: When the built-in prices were last checked against the vendors' list prices.
PRICES_AS_OF = "2026-11-30"


class PriceTier(BaseModel):
    """Prices (USD per million tokens) for a request whose prompt is longer than ``above`` tokens.

    They replace the base prices for every token of that request; a missing cache price falls
    back to this tier's input price."""

    above: int = Field(gt=0)
    input_price: float = Field(ge=0)
    output_price: float = Field(ge=0)
    cache_read_price: float | None = Field(default=None, ge=0)
    cache_write_price: float | None = Field(default=None, ge=0)


class ModelInfo(BaseModel):
    """One model's limits and list prices (USD per million tokens; None: unknown).

    A missing cache price falls back to the input price (OpenAI billed no cache writes before
    GPT-5.6). ``long_prompt``: the prices of a request with a long prompt, if they differ."""

    context_window: int
    max_output: int
    input_price: float | None = None
    output_price: float | None = None
    cache_read_price: float | None = None
    cache_write_price: float | None = None
    long_prompt: PriceTier | None = None


class ModelOverride(BaseModel):
    """A partial :class:`ModelInfo` from config: the fields given replace the known entry's."""

    context_window: int | None = None
    max_output: int | None = None
    input_price: float | None = None
    output_price: float | None = None
    cache_read_price: float | None = None
    cache_write_price: float | None = None
    long_prompt: PriceTier | None = None


_PRICES = ("input_price", "output_price", "cache_read_price", "cache_write_price")


def _m(ctx: int, out: int, price: tuple[float, ...] = (),
       long: PriceTier | None = None) -> ModelInfo:
    """``price``: (input, output, cache read[, cache write]) per million tokens."""
    prices = dict(zip(_PRICES, price))
    return ModelInfo(context_window=ctx, max_output=out, long_prompt=long, **prices)


def _over(above: int, price: tuple[float, ...]) -> PriceTier:
    """A long-prompt tier: above ``above`` prompt tokens, ``price`` as in :func:`_m`."""
    return PriceTier(above=above, **dict(zip(_PRICES, price)))


def _openai_long(price: tuple[float, ...]) -> PriceTier:
    # OpenAI's long-context rule for GPT-5.4 and later: above 272K input tokens, input and cache
    # rates double and output costs 1.5 times as much, for the whole request.
    base = dict(zip(_PRICES, price))
    tier = {k: v * (1.5 if k == "output_price" else 2) for k, v in base.items()}
    return PriceTier(above=272_000, **tier)


def _oa(ctx: int, out: int, price: tuple[float, ...]) -> ModelInfo:
    """An OpenAI model with the long-context tier."""
    return _m(ctx, out, price, _openai_long(price))


# What may follow a priced name and still be that model: a dated snapshot or an alias.
# Anything else (gpt-4o-audio-preview, a fine-tune) is another product with another price.
_SNAPSHOT = re.compile(r"(-\d{4}-\d{2}-\d{2}|-\d{8}|-latest)?")

_M = 1_000_000
_GPT6 = 1_050_000  # GPT-5.4 and later: 1.05M tokens in all (at most 922K of them input)

DEFAULT_MODELS: dict[str, ModelInfo] = {
    # OpenAI (cache read = "cached input"; cache writes are billed from GPT-5.6 on, at 1.25x input)
    "gpt-6.2-astra": _oa(_GPT6, 128_000, (8.0, 40.0, 0.40, 10.0)),
    "gpt-6.2-sol": _oa(_GPT6, 128_000, (2.0, 10.0, 0.10, 2.50)),
    "gpt-6.1-sol": _oa(_GPT6, 128_000, (2.0, 10.0, 0.10, 2.50)),
    "gpt-6.1-terra": _oa(_GPT6, 128_000, (1.0, 5.0, 0.05, 1.25)),
    "gpt-6-astra": _oa(_GPT6, 128_000, (10.0, 50.0, 1.0, 12.50)),
    "gpt-6-sol": _oa(_GPT6, 128_000, (2.0, 10.0, 0.20, 2.50)),
    "gpt-6-luna": _oa(_GPT6, 128_000, (0.10, 0.50, 0.01, 0.125)),
    "gpt-5.6": _oa(_GPT6, 128_000, (4.0, 20.0, 0.40, 5.0)),  # alias of gpt-5.6-sol
    "gpt-5.6-sol": _oa(_GPT6, 128_000, (4.0, 20.0, 0.40, 5.0)),
    "gpt-5.6-terra": _oa(_GPT6, 128_000, (2.0, 12.0, 0.20, 2.50)),
    "gpt-5.6-luna": _oa(_GPT6, 128_000, (0.20, 1.20, 0.02, 0.25)),
    "gpt-5.5": _oa(_GPT6, 128_000, (5.0, 30.0, 0.50)),
    "gpt-5.5-pro": _oa(_GPT6, 128_000, (30.0, 180.0)),
    "gpt-5.4": _oa(_GPT6, 128_000, (2.50, 15.0, 0.25)),
    "gpt-5.4-pro": _oa(_GPT6, 128_000, (30.0, 180.0)),
    "gpt-5.4-mini": _m(400_000, 128_000, (0.75, 4.50, 0.075)),
    "gpt-5.4-nano": _m(400_000, 128_000, (0.20, 1.25, 0.02)),
    "gpt-5.2": _m(400_000, 128_000, (1.75, 14.0, 0.175)),
    "gpt-5.2-pro": _m(400_000, 128_000, (21.0, 168.0)),
    "gpt-5.1": _m(400_000, 128_000, (1.25, 10.0, 0.125)),
    "gpt-5": _m(400_000, 128_000, (1.25, 10.0, 0.125)),
    "gpt-5-pro": _m(400_000, 128_000, (15.0, 120.0)),
    "gpt-5-mini": _m(400_000, 128_000, (0.25, 2.0, 0.025)),
    "gpt-5-nano": _m(400_000, 128_000, (0.05, 0.40, 0.005)),
    "gpt-4.1": _m(1_047_576, 32_768, (2.0, 8.0, 0.50)),
    "gpt-4.1-mini": _m(1_047_576, 32_768, (0.40, 1.60, 0.10)),
    "gpt-4.1-nano": _m(1_047_576, 32_768, (0.10, 0.40, 0.025)),  # shut down
    "gpt-4o": _m(128_000, 16_384, (2.50, 10.0, 1.25)),
    "gpt-4o-mini": _m(128_000, 16_384, (0.15, 0.60, 0.075)),
    "gpt-4-turbo": _m(128_000, 4_096),  # shut down
    "gpt-4": _m(8_192, 8_192),  # shut down
    "gpt-3.5-turbo": _m(16_385, 4_096),  # shut down
    "o1": _m(200_000, 100_000, (15.0, 60.0, 7.50)),
    "o1-mini": _m(128_000, 65_536, (1.10, 4.40, 0.55)),
    "o3": _m(200_000, 100_000, (2.0, 8.0, 0.50)),
    "o3-mini": _m(200_000, 100_000, (1.10, 4.40, 0.55)),
    "o4-mini": _m(200_000, 100_000, (1.10, 4.40, 0.275)),
    # Unpriced family windows for names newer than the table (gpt-6.3-…).
    "gpt-6": _m(_GPT6, 128_000),
    # Anthropic (cache write = 5-minute cache writes)
    "claude-fable-5-2": _m(_M, 128_000, (8.0, 40.0, 0.20, 10.0)),
    "claude-fable-5-1": _m(_M, 128_000, (10.0, 50.0, 0.25, 12.50)),
    "claude-fable-5": _m(_M, 128_000, (10.0, 50.0, 1.0, 12.50)),
    "claude-mythos-5-1": _m(_M, 128_000, (10.0, 50.0, 0.25, 12.50)),  # limited availability
    "claude-mythos-5": _m(_M, 128_000, (10.0, 50.0, 1.0, 12.50)),  # limited availability
    "claude-opus-5-5": _m(_M, 128_000, (4.0, 20.0, 0.20, 5.0)),
    "claude-opus-5": _m(_M, 128_000, (5.0, 25.0, 0.50, 6.25)),
    "claude-opus-4-8": _m(_M, 128_000, (5.0, 25.0, 0.50, 6.25)),
    "claude-opus-4-7": _m(_M, 128_000, (5.0, 25.0, 0.50, 6.25)),
    "claude-opus-4-6": _m(_M, 128_000, (5.0, 25.0, 0.50, 6.25)),
    "claude-opus-4-5": _m(200_000, 64_000, (5.0, 25.0, 0.50, 6.25)),  # retires 2027-01-22
    "claude-opus-4-1": _m(200_000, 32_000, (15.0, 75.0, 1.50, 18.75)),  # retired
    "claude-opus-4": _m(200_000, 32_000, (15.0, 75.0, 1.50, 18.75)),  # retired
    "claude-sonnet-5-5": _m(_M, 128_000, (2.0, 10.0, 0.10, 2.50)),
    "claude-sonnet-5": _m(_M, 128_000, (2.0, 10.0, 0.20, 2.50)),
    "claude-sonnet-4-6": _m(_M, 128_000, (3.0, 15.0, 0.30, 3.75)),
    # The 1M window of Sonnet 4/4.5 was a beta (with its header): 200K unless configured.
    "claude-sonnet-4-5": _m(200_000, 64_000, (3.0, 15.0, 0.30, 3.75),  # retires 2026-11-30
                            _over(200_000, (6.0, 22.50, 0.60, 7.50))),
    "claude-sonnet-4": _m(200_000, 64_000, (3.0, 15.0, 0.30, 3.75),  # retired
                          _over(200_000, (6.0, 22.50, 0.60, 7.50))),
    "claude-haiku-5-5": _m(_M, 128_000, (0.10, 0.50, 0.01, 0.125),
                           _over(100_000, (0.50, 2.50, 0.05, 0.625))),
    "claude-haiku-4-5": _m(200_000, 64_000, (1.0, 5.0, 0.10, 1.25)),
    "claude-3-7-sonnet": _m(200_000, 64_000, (3.0, 15.0, 0.30, 3.75)),  # retired
    "claude-3-5-sonnet": _m(200_000, 8_192, (3.0, 15.0, 0.30, 3.75)),  # retired
    "claude-3-5-haiku": _m(200_000, 8_192, (0.80, 4.0, 0.08, 1.0)),  # retired
    "claude-3-haiku": _m(200_000, 4_096, (0.25, 1.25, 0.03, 0.30)),
    # Unpriced family windows for names newer than the table (claude-opus-6, claude-fable-5-3):
    # every current model of these families has a 1M window and a 128K output limit.
    "claude-fable-": _m(_M, 128_000),
    "claude-mythos-": _m(_M, 128_000),
    "claude-opus-": _m(_M, 128_000),
    "claude-sonnet-": _m(_M, 128_000),
    "claude-haiku-": _m(_M, 128_000),
    # Families not listed above: the window they share, a conservative output limit.
    "claude-": _m(200_000, 32_000),
}

FALLBACK = _m(128_000, 8_192)


class Catalog:
    """Model limits by name; ``overrides`` (from config) win over the built-in table."""

    def __init__(self, overrides: Mapping[str, ModelInfo | ModelOverride | Mapping[str, Any]] | None = None
                 ) -> None:
        self._models = dict(DEFAULT_MODELS)
        # Name -> matched key: the runner asks for the window on every request, and a match
        # scans the whole table. Cleared by ``set``.
        self._matches: dict[str, str | None] = {}
        for name, info in (overrides or {}).items():
            self.set(name, info)

    def set(self, model: str, info: ModelInfo | ModelOverride | Mapping[str, Any]) -> None:
        """Record ``model``'s entry; a partial one (no window, say) keeps the known fields."""
        if isinstance(info, ModelInfo):
            self._models[model] = info
        else:
            given = info.model_dump(exclude_unset=True) if isinstance(info, ModelOverride) else dict(info)
            base = self._models.get(model) or self.known(model) or FALLBACK
            self._models[model] = ModelInfo.model_validate({**base.model_dump(), **given})
        self._matches.clear()

    def _match(self, model: str) -> str | None:
        if model in self._matches:
            return self._matches[model]
        name = model.rsplit("/", 1)[-1]
        best: str | None = None
        for key in self._models:
            if name.startswith(key) and (best is None or len(key) > len(best)):
                best = key
        if len(self._matches) < 1024:
            self._matches[model] = best
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
        """One request's ``usage`` at ``model``'s list prices, in USD; None when the price is
        unknown. A prompt longer than the model's ``long_prompt`` threshold takes that tier's
        prices for the whole request. (Usage summed over requests is not one request: price
        each request, as :meth:`cost_of_requests` does.)"""
        info = self.priced(model)
        if info is None:
            return None
        # Providers count the whole prompt in input_tokens, cached parts included.
        tier = info.long_prompt
        prices: ModelInfo | PriceTier = info
        if tier is not None and usage.input_tokens > tier.above:
            prices = tier
        inp, out = prices.input_price, prices.output_price
        assert inp is not None and out is not None
        read, write = usage.cache_read_tokens, usage.cache_write_tokens
        fresh = max(0, usage.input_tokens - read - write)
        read_price = inp if prices.cache_read_price is None else prices.cache_read_price
        write_price = inp if prices.cache_write_price is None else prices.cache_write_price
        return (fresh * inp + read * read_price + write * write_price
                + usage.output_tokens * out) / 1_000_000

    def cost_of_requests(self, usages: Iterable[Usage], model: str) -> float | None:
        """The sum of each request's cost (each meets its own tier); None if any is unknown."""
        total = 0.0
        for usage in usages:
            one = self.cost(usage, model)
            if one is None:
                return None
            total += one
        return total

    def get(self, model: str) -> ModelInfo:
        """Like :meth:`known`, but an unknown model gets conservative defaults."""
        return self.known(model) or FALLBACK

    def names(self) -> Iterable[str]:
        return self._models.keys()


_DEFAULT: Catalog | None = None


def catalog_of(provider: Any) -> Catalog | None:
    """The catalog a provider reads its limits and prices from, or None (a test double, a
    replay). Wrappers (retry, recording) hand back their inner provider's, so nobody has to
    know how they are stacked."""
    found = getattr(provider, "catalog", None)
    return found if isinstance(found, Catalog) else None


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


def _minus(total: Usage, before: Usage) -> Usage | None:
    """``total - before`` field by field; None when a field went down (a new run began)."""
    fields = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")
    diff = {f: getattr(total, f) - getattr(before, f) for f in fields}
    return Usage(**diff) if min(diff.values()) >= 0 else None


class RunningCost:
    """A run's cost from its running usage total, priced request by request.

    Views see a run's total after each model response (``UsageUpdate.usage``), and a price
    tier belongs to one request, so pricing the total as one request would put a run of many
    short prompts in the long-prompt tier. Call it with ``(model, total)`` after each response:
    the growth since the last call is priced as one request and added up; the same total again
    adds nothing; a total smaller than the last starts a new run. An unknown price makes the
    run's cost unknown (None) until a new run starts. Two responses between calls are priced
    as one request (a tier may then apply where it would not have)."""

    def __init__(self, catalog: Catalog | None = None) -> None:
        self.catalog = catalog or Catalog()
        self._seen = Usage()
        self._cost: float | None = 0.0

    def __call__(self, model: str, total: Usage) -> float | None:
        step = _minus(total, self._seen)
        if step is None:  # a new run
            self._seen, self._cost, step = Usage(), 0.0, total
        if step != Usage() and self._cost is not None:
            one = self.catalog.cost(step, model)
            self._cost = None if one is None else self._cost + one
        self._seen = total
        return self._cost

    def fresh(self) -> RunningCost:
        """A new meter on the same catalog (a team member's run is priced on its own)."""
        return RunningCost(self.catalog)

