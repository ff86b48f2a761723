"""Model strings → providers: every accepted form, keys from env or options, and clear errors."""

from __future__ import annotations

import pytest

from orkas_nb import Agent
from orkas_nb.core.errors import ConfigError
from orkas_nb.providers.anthropic_messages import AnthropicProvider
from orkas_nb.providers.cassette import RecordingProvider, ReplayProvider
from orkas_nb.providers.catalog import Catalog
from orkas_nb.providers.openai_chat import OpenAIChatProvider
from orkas_nb.providers.registry import BUILTIN_ALIASES, parse_model_string, resolve_model
from orkas_nb.providers.retry import FailoverProvider, RetryPolicy
from tests.fakes.model_server import Reply


@pytest.fixture(autouse=True)
def _env(monkeypatch):
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL",
                 "LLAMACPP_BASE_URL", "OLLAMA_BASE_URL", "VLLM_API_KEY"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize("text, expected", [
    ("openai/gpt-4o-mini", ("openai", "gpt-4o-mini")),
    ("openai:gpt-4o-mini", ("openai", "gpt-4o-mini")),
    ("anthropic:claude-sonnet-4-5", ("anthropic", "claude-sonnet-4-5")),
    ("gpt-4o", ("openai", "gpt-4o")),
    ("o3-mini", ("openai", "o3-mini")),
    ("claude-haiku-4-5-20251001", ("anthropic", "claude-haiku-4-5-20251001")),
    ("sonnet", ("anthropic", "claude-sonnet-5-5")),
    ("opus", ("anthropic", "claude-opus-5-5")),
    ("haiku", ("anthropic", "claude-haiku-5-5")),
    ("ollama/llama3.2:3b", ("ollama", "llama3.2:3b")),
    ("ollama:qwen2.5", ("ollama", "qwen2.5")),
    ("vllm/meta-llama/Llama-3.1-8B", ("vllm", "meta-llama/Llama-3.1-8B")),
    ("llamacpp/smollm2", ("llamacpp", "smollm2")),
    ("replay:notebooks/cassettes/quickstart.jsonl", ("replay", "notebooks/cassettes/quickstart.jsonl")),
])
def test_model_string_forms(text, expected):
    assert parse_model_string(text) == expected


@pytest.mark.parametrize("text, message", [
    ("", "empty model string"),
    ("mystery-model", "cannot tell which provider"),
    ("nowhere/model", "unknown provider 'nowhere'"),
])
def test_bad_model_strings_are_config_errors(text, message):
    with pytest.raises(ConfigError, match=message):
        resolve_model(text, api_key="k")


def test_keys_and_base_url_from_the_environment(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    provider, model = resolve_model("openai/gpt-4o-mini")
    assert model == "gpt-4o-mini" and isinstance(provider, FailoverProvider)
    inner = provider.candidates[0].provider
    assert isinstance(inner, OpenAIChatProvider)
    assert inner.token_source.key == "sk-env" and inner.base_url == "https://api.openai.com/v1"
    assert inner.send_cache_key and inner.max_tokens_field == "max_completion_tokens"
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9999/v1")
    inner = resolve_model("gpt-4o")[0].candidates[0].provider
    assert inner.base_url == "http://127.0.0.1:9999/v1"
    assert not inner.send_cache_key and inner.max_tokens_field == "max_tokens"


def test_missing_key_names_the_variable():
    with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY"):
        resolve_model("anthropic/claude-sonnet-4-5")
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        resolve_model("openai/gpt-4o")


def test_named_endpoints_from_env_and_config(monkeypatch):
    monkeypatch.setenv("LLAMACPP_BASE_URL", "http://127.0.0.1:1/v1")  # nothing listens: probe skipped
    provider, model = resolve_model("llamacpp/smollm2")
    inner = provider.candidates[0].provider
    assert (inner.id, inner.base_url, model) == ("llamacpp", "http://127.0.0.1:1/v1", "smollm2")
    assert inner.token_source is None  # local servers need no key
    provider, _ = resolve_model("lab/qwen", endpoints={"lab": {"base_url": "http://127.0.0.1:2/v1",
                                                               "api_key": "lab-key"}})
    inner = provider.candidates[0].provider
    assert inner.id == "lab" and inner.token_source.key == "lab-key"
    provider, _ = resolve_model("proxy/claude-x", endpoints={"proxy": {"base_url": "http://127.0.0.1:3",
                                                                       "kind": "anthropic"}})
    assert isinstance(provider.candidates[0].provider, AnthropicProvider)


def test_aliases_catalog_overrides_and_capabilities():
    provider, model = resolve_model("fast", aliases={"fast": "openai/gpt-4o-mini"}, api_key="k",
                                    models={"gpt-4o-mini": {"context_window": 1000, "max_output": 10}})
    assert model == "gpt-4o-mini"
    caps = provider.capabilities(model)
    assert caps.context_window == 1000 and caps.images_in_tool_results is False
    assert Catalog().get("claude-sonnet-4-5-20250929").max_output == 64000
    assert Catalog().get("gpt-4o-mini-2024-07-18").context_window == 128000


def test_several_keys_and_fallbacks_become_candidates(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "ak")
    provider, _ = resolve_model("openai/gpt-4o", api_keys=["k1", "k2"], fallbacks=["anthropic/claude-haiku-4-5"],
                                retry={"max_retries": 1})
    labels = [c.label for c in provider.candidates]
    assert [lbl.split("#")[0] for lbl in labels] == ["openai/gpt-4o", "openai/gpt-4o", "anthropic/claude-haiku-4-5"]
    assert len(set(labels)) == 3 and "k1" not in "".join(labels)  # fingerprints, never keys
    assert provider.policy == RetryPolicy(max_retries=1)


def test_retry_false_gives_the_bare_provider():
    provider, _ = resolve_model("openai/gpt-4o", api_key="k", retry=False)
    assert isinstance(provider, OpenAIChatProvider)


def test_unknown_option_is_rejected():
    with pytest.raises(ConfigError, match="unknown provider option"):
        resolve_model("openai/gpt-4o", api_key="k", temprature=0.2)


def test_llamacpp_context_window_is_read_from_props(model_server, monkeypatch):
    import json

    from tests.fakes.model_server import Fault  # noqa: F401

    served = {"default_generation_settings": {"n_ctx": 4096}}
    original = model_server._httpd.RequestHandlerClass.do_GET

    def do_get(handler):
        if handler.path == "/props":
            return handler._send_json(200, json.dumps(served).encode())
        return original(handler)

    monkeypatch.setattr(model_server._httpd.RequestHandlerClass, "do_GET", do_get)
    provider, model = resolve_model("llamacpp/tiny", base_url=model_server.openai_url)
    assert provider.capabilities(model).context_window == 4096


async def test_agent_resolves_a_model_string_end_to_end(model_server, tmp_path):
    model_server.push(Reply(text="Hello from the wire."))
    agent = Agent("openai/gpt-4o-mini", workspace=tmp_path, base_url=model_server.openai_url,
                  api_key="sk-test", default_tools=False)
    result = await agent.arun("hi")
    assert result.text == "Hello from the wire." and result.stop_reason == "end_turn"
    assert agent.session.messages[-1].provider == "openai"


async def test_replay_and_record_through_model_strings(model_server, tmp_path):
    cassette = tmp_path / "c.jsonl"
    model_server.push(Reply(text="recorded"))
    provider, model = resolve_model("openai/gpt-4o-mini", base_url=model_server.openai_url, api_key="sk-x",
                                    record=cassette)
    assert isinstance(provider, RecordingProvider)
    agent = Agent(provider, workspace=tmp_path, default_tools=False, model_name=model)
    assert (await agent.arun("hi")).text == "recorded"
    replay, model = resolve_model(f"replay:{cassette}")
    assert isinstance(replay, ReplayProvider) and model == "gpt-4o-mini"
    agent = Agent(f"replay:{cassette}", workspace=tmp_path, default_tools=False)
    assert (await agent.arun("hi")).text == "recorded"
    assert model_server.count("/v1/chat/completions") == 1


@pytest.mark.parametrize("alias", sorted(BUILTIN_ALIASES))
def test_built_in_aliases_name_the_newest_priced_model_of_their_family(alias):
    # An alias left on an older model runs a retired one sooner or later (claude-opus-4-1 was).
    _, model = parse_model_string(BUILTIN_ALIASES[alias])
    catalog = Catalog()
    family = f"claude-{alias}-"
    versions = {tuple(int(p) for p in name[len(family):].split("-")): name
                for name in catalog.names()
                if name.startswith(family) and name[len(family):] and catalog.priced(name)}
    assert model == versions[max(versions)]
