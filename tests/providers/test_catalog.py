"""Model prices in the catalog and ``cost_of``: known, unknown, cache tokens, overrides."""

from __future__ import annotations

import pytest

from orkas_nb.core.messages import Usage
from orkas_nb.providers import resolve_model
from orkas_nb.providers.catalog import Catalog, ModelInfo, cost_of

MILLION = 1_000_000


def test_a_known_model_costs_its_list_price() -> None:
    usage = Usage(input_tokens=MILLION, output_tokens=MILLION)
    assert cost_of(usage, "gpt-4o") == pytest.approx(2.50 + 10.0)
    assert cost_of(usage, "gpt-4o-mini") == pytest.approx(0.15 + 0.60)  # not gpt-4o's price
    assert cost_of(usage, "claude-sonnet-4-5") == pytest.approx(3.0 + 15.0)
    assert cost_of(Usage(input_tokens=2_000, output_tokens=500), "gpt-4.1-mini") == pytest.approx(
        (2_000 * 0.40 + 500 * 1.60) / MILLION)


@pytest.mark.parametrize("name", ["openai/gpt-4o-2024-08-06", "claude-sonnet-4-5-20250929",
                                  "anthropic/claude-3-5-haiku-latest", "claude-opus-4-20250514"])
def test_dated_snapshots_and_provider_prefixes_find_their_family(name: str) -> None:
    assert cost_of(Usage(input_tokens=10, output_tokens=10), name) is not None


@pytest.mark.parametrize("name", [
    "llama3.2:3b", "qwen2.5-coder", "gguf/model.gguf",  # local servers: unknown, not free
    "gpt-4o-audio-preview", "gpt-4o-realtime-preview",  # another product behind a known prefix
    "claude-future-9", "gpt-4", "", "ft:gpt-4o-mini:org::abc",
])
def test_an_unknown_price_is_none_never_zero(name: str) -> None:
    assert cost_of(Usage(input_tokens=1000, output_tokens=1000), name) is None


def test_cache_reads_and_writes_are_priced_apart_from_fresh_input() -> None:
    # Providers count the whole prompt in input_tokens, cache reads and writes included.
    usage = Usage(input_tokens=1_000_000, output_tokens=0, cache_read_tokens=600_000,
                  cache_write_tokens=100_000)
    # claude-sonnet-4-5: input 3.00, cache read 0.30, cache write 3.75 per million
    assert cost_of(usage, "claude-sonnet-4-5") == pytest.approx(0.3 * 3.0 + 0.6 * 0.30 + 0.1 * 3.75)
    # OpenAI: cached input at its price; no cache-write price, so a write costs as input
    openai = Usage(input_tokens=1_000_000, cache_read_tokens=500_000)
    assert cost_of(openai, "gpt-4o") == pytest.approx(0.5 * 2.50 + 0.5 * 1.25)
    # Inconsistent counts (more cached than sent) never give a negative fresh part.
    odd = Usage(input_tokens=10, cache_read_tokens=MILLION)
    assert cost_of(odd, "gpt-4o") == pytest.approx(1.25)


def test_empty_usage_on_a_priced_model_costs_zero() -> None:
    assert cost_of(Usage(), "gpt-4o") == 0.0


def test_a_partial_override_changes_the_price_and_keeps_the_window() -> None:
    catalog = Catalog({"gpt-4o": {"input_price": 1.0, "output_price": 2.0}})
    assert catalog.get("gpt-4o").context_window == 128_000
    assert cost_of(Usage(input_tokens=MILLION, output_tokens=MILLION), "gpt-4o", catalog) == pytest.approx(3.0)
    assert cost_of(Usage(input_tokens=MILLION), "gpt-4o") == pytest.approx(2.50)  # the default is untouched


def test_a_local_model_gets_a_price_only_when_configured() -> None:
    catalog = Catalog({"llama3.2:3b": {"context_window": 8192, "max_output": 8192,
                                       "input_price": 0.0, "output_price": 0.0}})
    assert cost_of(Usage(input_tokens=5, output_tokens=5), "llama3.2:3b", catalog) == 0.0
    # A window-only entry (as a llama.cpp probe records) leaves the cost unknown.
    catalog.set("mistral", ModelInfo(context_window=4096, max_output=4096))
    assert cost_of(Usage(input_tokens=5), "mistral", catalog) is None


def test_a_bad_override_is_refused_clearly() -> None:
    with pytest.raises(ValueError, match="input_price"):
        Catalog({"gpt-4o": {"input_price": "cheap"}})


def test_overrides_flow_through_the_providers_models_option() -> None:
    provider, model = resolve_model("openai/gpt-4o", api_key="sk-test", retry=False,
                                    base_url="http://127.0.0.1:9/v1",
                                    models={"gpt-4o": {"output_price": 1.0}})
    usage = Usage(output_tokens=MILLION)
    assert provider.catalog.cost(usage, model) == pytest.approx(1.0)
    assert provider.catalog.get(model).max_output == 16_384  # the partial entry kept the limits
