"""Model limits and prices in the catalog and ``cost_of``: known, unknown, families, cache tokens,
long-prompt tiers, per-request pricing of a run, overrides."""

from __future__ import annotations

import pytest

from orkas_nb.core.messages import Usage
from orkas_nb.providers import resolve_model
from orkas_nb.providers.catalog import Catalog, ModelInfo, PriceTier, RunningCost, cost_of

MILLION = 1_000_000


def test_a_known_model_costs_its_list_price() -> None:
    usage = Usage(input_tokens=MILLION, output_tokens=MILLION)
    assert cost_of(usage, "gpt-4o") == pytest.approx(2.50 + 10.0)
    assert cost_of(usage, "gpt-4o-mini") == pytest.approx(0.15 + 0.60)  # not gpt-4o's price
    assert cost_of(usage, "claude-sonnet-4-6") == pytest.approx(3.0 + 15.0)
    assert cost_of(Usage(input_tokens=2_000, output_tokens=500), "gpt-4.1-mini") == pytest.approx(
        (2_000 * 0.40 + 500 * 1.60) / MILLION)


@pytest.mark.parametrize("name", ["openai/gpt-4o-2024-08-06", "claude-sonnet-4-5-20250929",
                                  "anthropic/claude-3-5-haiku-latest", "claude-opus-4-20250514",
                                  "gpt-5.4-mini-2026-03-17", "anthropic/claude-opus-5-5-20260922"])
def test_dated_snapshots_and_provider_prefixes_find_their_family(name: str) -> None:
    assert cost_of(Usage(input_tokens=10, output_tokens=10), name) is not None


@pytest.mark.parametrize("name", [
    "llama3.2:3b", "qwen2.5-coder", "gguf/model.gguf",  # local servers: unknown, not free
    "gpt-4o-audio-preview", "gpt-4o-realtime-preview",  # another product behind a known prefix
    "claude-future-9", "gpt-4", "", "ft:gpt-4o-mini:org::abc",
    "claude-opus-6", "claude-sonnet-5-7", "gpt-6.3-sol", "gpt-6",  # newer than the table: no price
])
def test_an_unknown_price_is_none_never_zero(name: str) -> None:
    assert cost_of(Usage(input_tokens=1000, output_tokens=1000), name) is None


def test_cache_reads_and_writes_are_priced_apart_from_fresh_input() -> None:
    # Providers count the whole prompt in input_tokens, cache reads and writes included.
    usage = Usage(input_tokens=1_000_000, output_tokens=0, cache_read_tokens=600_000,
                  cache_write_tokens=100_000)
    # claude-sonnet-4-6 (one price up to its 1M window): input 3.00, cache read 0.30, cache write
    # 3.75 per million
    assert cost_of(usage, "claude-sonnet-4-6") == pytest.approx(0.3 * 3.0 + 0.6 * 0.30 + 0.1 * 3.75)
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


def test_wrappers_hand_back_the_catalog_of_the_provider_they_wrap(tmp_path) -> None:
    from orkas_nb.providers.cassette import RecordingProvider
    from orkas_nb.providers.catalog import catalog_of
    from orkas_nb.providers.retry import FailoverProvider

    options = {"api_keys": ["k1", "k2"], "base_url": "http://127.0.0.1:9/v1",
               "models": {"gpt-4o": {"output_price": 1.0}}}
    failover, model = resolve_model("openai/gpt-4o", **options)
    recording, _ = resolve_model("openai/gpt-4o", record=tmp_path / "c.jsonl", **options)
    assert isinstance(failover, FailoverProvider) and isinstance(recording, RecordingProvider)
    inner = failover.candidates[0].provider.catalog
    assert failover.catalog is inner and catalog_of(failover) is inner
    assert catalog_of(recording) is recording.inner.candidates[0].provider.catalog
    assert catalog_of(recording).cost(Usage(output_tokens=MILLION), model) == pytest.approx(1.0)
    assert catalog_of(object()) is None


# Current models, checked against the vendors' pages (see PRICES_AS_OF): input, output, cache
# read, cache write per million tokens, window, output limit.
@pytest.mark.parametrize("name, prices, window, out", [
    ("claude-opus-5-5", (4.0, 20.0, 0.20, 5.0), 1_000_000, 128_000),
    ("claude-sonnet-5-5", (2.0, 10.0, 0.10, 2.50), 1_000_000, 128_000),
    ("claude-sonnet-4-6", (3.0, 15.0, 0.30, 3.75), 1_000_000, 128_000),
    ("claude-opus-4-8", (5.0, 25.0, 0.50, 6.25), 1_000_000, 128_000),
    ("claude-fable-5-1", (10.0, 50.0, 0.25, 12.50), 1_000_000, 128_000),
    ("claude-haiku-4-5-20251001", (1.0, 5.0, 0.10, 1.25), 200_000, 64_000),
    ("gpt-6.2-sol", (2.0, 10.0, 0.10, 2.50), 1_050_000, 128_000),
    ("gpt-6-luna", (0.10, 0.50, 0.01, 0.125), 1_050_000, 128_000),
    ("gpt-5.4-mini", (0.75, 4.50, 0.075, 0.75), 400_000, 128_000),  # no cache-write charge
])
def test_current_models_have_their_listed_prices_and_limits(name: str, prices: tuple[float, ...],
                                                             window: int, out: int) -> None:
    catalog = Catalog()
    one = {"input_tokens": MILLION}
    parts = [Usage(**one), Usage(output_tokens=MILLION), Usage(**one, cache_read_tokens=MILLION),
             Usage(**one, cache_write_tokens=MILLION)]
    # A million-token prompt would cross a long-prompt tier; price a small request, scaled.
    small = [Usage(**{k: v // 100 for k, v in u.model_dump().items()}) for u in parts]
    assert [100 * (catalog.cost(u, name) or 0) for u in small] == pytest.approx(list(prices))
    assert (catalog.get(name).context_window, catalog.get(name).max_output) == (window, out)


@pytest.mark.parametrize("name, window, out", [
    ("claude-opus-6", 1_000_000, 128_000),  # a family newer than the table: its family's limits
    ("claude-haiku-6-1-20270101", 1_000_000, 128_000),
    ("claude-fable-5-3", 1_000_000, 128_000),
    ("gpt-6.3-sol", 1_050_000, 128_000),
    ("claude-3-opus-20240229", 200_000, 32_000),  # an old naming: the conservative claude- default
    ("mystery-model", 128_000, 8_192),
])
def test_unknown_models_get_their_familys_limits(name: str, window: int, out: int) -> None:
    info = Catalog().get(name)
    assert (info.context_window, info.max_output) == (window, out)


def test_a_long_prompt_pays_the_tier_on_every_token_of_its_request() -> None:
    # claude-haiku-5-5: 0.10 / 0.50 / read 0.01 / write 0.125 up to 100,000 prompt tokens;
    # 0.50 / 2.50 / 0.05 / 0.625 above, output included.
    at = Usage(input_tokens=100_000, output_tokens=1_000)
    assert cost_of(at, "claude-haiku-5-5") == pytest.approx(
        (100_000 * 0.10 + 1_000 * 0.50) / MILLION)
    over = Usage(input_tokens=100_001, output_tokens=1_000)
    assert cost_of(over, "claude-haiku-5-5") == pytest.approx(
        (100_001 * 0.50 + 1_000 * 2.50) / MILLION)
    # The prompt's length counts its cached parts, which then take the tier's cache prices.
    cached = Usage(input_tokens=120_000, cache_read_tokens=90_000, cache_write_tokens=20_000)
    assert cost_of(cached, "claude-haiku-5-5") == pytest.approx(
        (10_000 * 0.50 + 90_000 * 0.05 + 20_000 * 0.625) / MILLION)


def test_openai_long_context_doubles_input_and_cache_and_raises_output_by_half() -> None:
    usage = Usage(input_tokens=300_000, output_tokens=10_000, cache_read_tokens=200_000,
                  cache_write_tokens=50_000)
    # gpt-6.2-sol: 2.00 / 10.00 / read 0.10 / write 2.50; above 272K: 4.00 / 15.00 / 0.20 / 5.00
    assert cost_of(usage, "gpt-6.2-sol") == pytest.approx(
        (50_000 * 4.0 + 200_000 * 0.20 + 50_000 * 5.0 + 10_000 * 15.0) / MILLION)
    at = Usage(input_tokens=272_000)
    assert cost_of(at, "gpt-6.2-sol") == pytest.approx(272_000 * 2.0 / MILLION)
    # A model without the tier (a 400K window) keeps its price at any length.
    long = Usage(input_tokens=300_000)
    assert cost_of(long, "gpt-5.4-mini") == pytest.approx(300_000 * 0.75 / MILLION)


def test_a_run_is_priced_request_by_request_not_as_one_long_prompt() -> None:
    catalog = Catalog()
    requests = [Usage(input_tokens=60_000, output_tokens=500)] * 3  # 180K in all, each under 100K
    base = (60_000 * 0.10 + 500 * 0.50) / MILLION
    assert catalog.cost_of_requests(requests, "claude-haiku-5-5") == pytest.approx(3 * base)
    summed = requests[0] + requests[1] + requests[2]
    assert catalog.cost(summed, "claude-haiku-5-5") == pytest.approx(5 * 3 * base)  # what to avoid
    assert catalog.cost_of_requests(requests, "llama3.2:3b") is None
    assert catalog.cost_of_requests([], "claude-haiku-5-5") == 0.0


def test_running_cost_prices_the_growth_of_a_runs_total_as_one_request() -> None:
    running = RunningCost()
    one = Usage(input_tokens=60_000, output_tokens=500)
    base = (60_000 * 0.10 + 500 * 0.50) / MILLION
    assert running("claude-haiku-5-5", one) == pytest.approx(base)
    assert running("claude-haiku-5-5", one) == pytest.approx(base)  # the same total: a redraw
    assert running("claude-haiku-5-5", one + one) == pytest.approx(2 * base)
    assert running("claude-haiku-5-5", one + one + one) == pytest.approx(3 * base)
    # A smaller total is a new run; an unknown model makes the run's cost unknown until then.
    assert running("claude-haiku-5-5", one) == pytest.approx(base)
    assert running("llama3.2:3b", one + one) is None
    assert running("claude-haiku-5-5", one + one + one) is None
    assert running("claude-haiku-5-5", Usage()) == 0.0
    # Overrides travel with the catalog it is given.
    custom = RunningCost(Catalog({"llama3.2:3b": {"input_price": 1.0, "output_price": 2.0}}))
    assert custom("llama3.2:3b", Usage(input_tokens=MILLION)) == pytest.approx(1.0)


def test_a_tier_can_be_overridden_dropped_or_added_through_config() -> None:
    usage = Usage(input_tokens=150_000)
    kept = Catalog({"claude-haiku-5-5": {"output_price": 1.0}})  # a partial entry keeps the tier
    assert cost_of(usage, "claude-haiku-5-5", kept) == pytest.approx(150_000 * 0.50 / MILLION)
    dropped = Catalog({"claude-haiku-5-5": {"long_prompt": None}})
    assert cost_of(usage, "claude-haiku-5-5", dropped) == pytest.approx(150_000 * 0.10 / MILLION)
    tier = {"above": 100_000, "input_price": 3.0, "output_price": 4.0}
    added = Catalog({"my-model": {"context_window": 400_000, "max_output": 8_000,
                                  "input_price": 1.0, "output_price": 2.0, "long_prompt": tier}})
    assert cost_of(usage, "my-model", added) == pytest.approx(150_000 * 3.0 / MILLION)
    assert isinstance(added.get("my-model").long_prompt, PriceTier)


@pytest.mark.parametrize("tier, field", [
    ({"input_price": 1.0, "output_price": 1.0}, "above"),  # no threshold
    ({"above": 0, "input_price": 1.0, "output_price": 1.0}, "above"),
    ({"above": 10, "input_price": -1.0, "output_price": 1.0}, "input_price"),
    ("cheap", "long_prompt"),
])
def test_a_bad_tier_is_refused_clearly(tier: object, field: str) -> None:
    with pytest.raises(ValueError, match=field):
        Catalog({"gpt-6.2-sol": {"long_prompt": tier}})
def test_a_lookup_sees_an_entry_set_after_it() -> None:
    catalog = Catalog()
    before = catalog.get("acme-large-2").context_window
    assert catalog.get("acme-large-2").context_window == before  # a repeated (cached) lookup
    catalog.set("acme-large", {"context_window": 12_345})
    assert catalog.get("acme-large-2").context_window == 12_345  # the longer prefix now matches
    catalog.set("acme-large-2", {"max_output": 100})  # partial: keeps the prefix's window
    assert catalog.get("acme-large-2").context_window == 12_345
