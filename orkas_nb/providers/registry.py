"""Model strings → providers: what ``Agent(model="openai/gpt-4o-mini")`` calls.

Accepted forms (SPEC §7)::

    openai/gpt-4o-mini          provider/model, split at the first slash
    anthropic:claude-sonnet-4-5 provider:model, normalised to the slash form
    claude-sonnet-4-5, gpt-4o   a bare model, routed by prefix (claude- → anthropic; gpt-, o1… → openai)
    sonnet                      an alias (built in, or from ``aliases=``)
    ollama/llama3.2:3b          a named OpenAI-compatible endpoint (ollama, vllm, llamacpp,
                                lmstudio, openrouter, or any in ``endpoints=``)
    replay:tutorial.jsonl       a recorded cassette, replayed offline

Keys and addresses come from options first, then the environment: ``OPENAI_API_KEY`` /
``OPENAI_BASE_URL``, ``ANTHROPIC_API_KEY`` / ``ANTHROPIC_BASE_URL``, and for a named endpoint
``<NAME>_BASE_URL`` / ``<NAME>_API_KEY`` (e.g. ``LLAMACPP_BASE_URL``). Options (all optional):
``api_key``, ``api_keys`` (several keys: rotated), ``token_source``, ``base_url``, ``client``,
``timeout``, ``endpoints``, ``aliases``, ``models`` (catalog overrides), ``fallbacks`` (more
model strings to rotate to), ``retry`` (a :class:`RetryPolicy`, or False for no retry layer),
``record`` (a cassette path to record to), ``replay_roots``; or all of these in one
``provider_config`` (a :class:`ProvidersConfig` or dict).
"""

from __future__ import annotations

import os
from typing import Any, Literal

import httpx
from pydantic import BaseModel, Field

from ..core.errors import ConfigError
from .anthropic_messages import AnthropicProvider
from .auth import StaticKey, fingerprint, key_from_env
from .base import LLMProvider
from .catalog import Catalog, ModelInfo, ModelOverride
from .openai_chat import OpenAIChatProvider
from .pool import ssl_context
from .retry import Candidate, FailoverProvider, RetryPolicy

__all__ = ["BUILTIN_ENDPOINTS", "EndpointConfig", "ProvidersConfig", "openai_compatible_endpoint",
           "parse_model_string", "resolve_model"]

OPENAI_URL = "https://api.openai.com/v1"
ANTHROPIC_URL = "https://api.anthropic.com"


class EndpointConfig(BaseModel):
    """A named server. ``kind`` is its wire format; ``probe_props`` reads a llama.cpp
    server's real context window from ``/props`` when the provider is made."""

    base_url: str
    kind: Literal["openai", "anthropic"] = "openai"
    api_key: str | None = None
    api_key_env: str | None = None
    send_cache_key: bool = False
    probe_props: bool = False
    headers: dict[str, str] = Field(default_factory=dict)


class ProvidersConfig(BaseModel):
    endpoints: dict[str, EndpointConfig] = Field(default_factory=dict)
    aliases: dict[str, str] = Field(default_factory=dict)
    models: dict[str, ModelInfo | ModelOverride] = Field(default_factory=dict)  # partial: merged


BUILTIN_ENDPOINTS: dict[str, EndpointConfig] = {
    "ollama": EndpointConfig(base_url="http://127.0.0.1:11434/v1"),
    "vllm": EndpointConfig(base_url="http://127.0.0.1:8000/v1"),
    "llamacpp": EndpointConfig(base_url="http://127.0.0.1:8080/v1", probe_props=True),
    "lmstudio": EndpointConfig(base_url="http://127.0.0.1:1234/v1"),
    "openrouter": EndpointConfig(base_url="https://openrouter.ai/api/v1", api_key_env="OPENROUTER_API_KEY"),
}
BUILTIN_ALIASES = {
    "sonnet": "anthropic/claude-sonnet-5-5",
    "opus": "anthropic/claude-opus-5-5",
    "haiku": "anthropic/claude-haiku-5-5",
}
_OPENAI_PREFIXES = ("gpt-", "o1", "o3", "o4", "chatgpt-", "ft:gpt", "text-", "davinci", "babbage")
_OPTIONS = {
    "api_key", "api_keys", "token_source", "base_url", "client", "timeout", "endpoints", "aliases",
    "models", "fallbacks", "retry", "record", "replay_roots", "provider_config",
    "headers", "send_cache_key",
}


def _config(options: dict[str, Any]) -> ProvidersConfig:
    base = options.get("provider_config") or ProvidersConfig()
    if isinstance(base, dict):
        base = ProvidersConfig.model_validate(base)
    endpoints = {**BUILTIN_ENDPOINTS, **base.endpoints}
    for name, ep in (options.get("endpoints") or {}).items():
        endpoints[name] = ep if isinstance(ep, EndpointConfig) else EndpointConfig.model_validate(ep)
    aliases = {**BUILTIN_ALIASES, **base.aliases, **(options.get("aliases") or {})}
    models = {**base.models}
    for name, info in (options.get("models") or {}).items():
        models[name] = info if isinstance(info, (ModelInfo, ModelOverride)) else ModelOverride.model_validate(info)
    return ProvidersConfig(endpoints=endpoints, aliases=aliases, models=models)


def parse_model_string(model: str, config: ProvidersConfig | None = None) -> tuple[str, str]:
    """``(provider, model)`` for a model string; see the module docstring for the forms."""
    config = config or _config({})
    text = model.strip()
    if not text:
        raise ConfigError("empty model string; try 'openai/gpt-4o-mini' or 'anthropic/claude-sonnet-4-5'")
    seen: set[str] = set()
    while text in config.aliases and text not in seen:
        seen.add(text)
        text = config.aliases[text]
    known = {"openai", "anthropic", "replay", *config.endpoints}
    if "/" in text:
        provider, _, name = text.partition("/")
        if provider in known and name:
            return provider, name
    head, sep, rest = text.partition(":")
    if sep and head in known and rest:
        return head, rest.lstrip("/") if head != "replay" else rest
    if "/" in text:
        provider = text.partition("/")[0]
        raise ConfigError(
            f"unknown provider {provider!r} in model {model!r}; known: {', '.join(sorted(known - {'replay'}))} "
            "(add an OpenAI-compatible server with endpoints={...})"
        )
    lowered = text.lower()
    if lowered.startswith("claude"):
        return "anthropic", text
    if lowered.startswith(_OPENAI_PREFIXES):
        return "openai", text
    raise ConfigError(
        f"cannot tell which provider serves {model!r}; write it as provider/model, "
        "e.g. 'openai/gpt-4o-mini', 'anthropic/claude-sonnet-4-5' or 'ollama/llama3.2'"
    )


def _token(options: dict[str, Any], key: str | None) -> Any:
    if options.get("token_source") is not None:
        return options["token_source"]
    return StaticKey(key) if key else None


def _probe_context_window(base_url: str) -> int | None:
    """A llama.cpp server's real context window (``/props``); None if it does not answer."""
    root = base_url.rstrip("/")
    root = root.removesuffix("/v1")
    try:
        data = httpx.get(f"{root}/props", timeout=2.0, verify=ssl_context()).json()
    except (httpx.HTTPError, ValueError):
        return None
    settings = data.get("default_generation_settings") or {}
    n_ctx = settings.get("n_ctx") or data.get("n_ctx")
    return int(n_ctx) if n_ctx else None


def _one(provider: str, model: str, key: str | None, options: dict[str, Any],
         config: ProvidersConfig, catalog: Catalog) -> LLMProvider:
    common: dict[str, Any] = {"client": options.get("client"), "timeout": options.get("timeout"),
                              "catalog": catalog, "default_model": model}
    if provider == "openai":
        base_url = options.get("base_url") or os.environ.get("OPENAI_BASE_URL") or OPENAI_URL
        official = base_url.rstrip("/") == OPENAI_URL
        return OpenAIChatProvider(
            id="openai", base_url=base_url, token_source=_token(options, key),
            send_cache_key=options.get("send_cache_key", official),
            max_tokens_field="max_completion_tokens" if official else "max_tokens",
            headers=options.get("headers"), **common,
        )
    if provider == "anthropic":
        base_url = options.get("base_url") or os.environ.get("ANTHROPIC_BASE_URL") or ANTHROPIC_URL
        return AnthropicProvider(id="anthropic", base_url=base_url, token_source=_token(options, key),
                                 headers=options.get("headers"), **common)
    ep = config.endpoints[provider]
    env = provider.upper()
    base_url = options.get("base_url") or os.environ.get(f"{env}_BASE_URL") or ep.base_url
    if ep.probe_props and catalog.known(model) is None:
        window = _probe_context_window(base_url)
        if window:
            catalog.set(model, ModelInfo(context_window=window, max_output=window))
    headers = {**ep.headers, **(options.get("headers") or {})}
    if ep.kind == "anthropic":
        return AnthropicProvider(id=provider, base_url=base_url, token_source=_token(options, key),
                                 headers=headers, **common)
    return OpenAIChatProvider(
        id=provider, base_url=base_url, token_source=_token(options, key),
        send_cache_key=options.get("send_cache_key", ep.send_cache_key), max_tokens_field="max_tokens",
        headers=headers, **common,
    )


def _keys(provider: str, options: dict[str, Any], config: ProvidersConfig) -> list[str | None]:
    if options.get("api_keys"):
        return list(options["api_keys"])
    if options.get("api_key") or options.get("token_source") is not None:
        return [options.get("api_key")]
    if provider == "openai":
        official = not (options.get("base_url") or os.environ.get("OPENAI_BASE_URL"))
        return [key_from_env("OPENAI_API_KEY", required_for="openai" if official else None)]
    if provider == "anthropic":
        return [key_from_env("ANTHROPIC_API_KEY", required_for="anthropic")]
    ep = config.endpoints[provider]
    if ep.api_key:
        return [ep.api_key]
    names = [n for n in (ep.api_key_env, f"{provider.upper()}_API_KEY") if n]
    return [key_from_env(*names)]


def openai_compatible_endpoint(name: str, **options: Any) -> tuple[str, str | None]:
    """``(base URL, API key or None)`` of an OpenAI-compatible server by name (``openai`` or a
    named endpoint), resolved as for models: options, then the environment, then the table.
    Other parts that speak the same wire (the embeddings client) use it to find the server."""
    config = _config(options)
    if name == "openai":
        base_url = options.get("base_url") or os.environ.get("OPENAI_BASE_URL") or OPENAI_URL
        official = base_url.rstrip("/") == OPENAI_URL
        key = options.get("api_key") or key_from_env("OPENAI_API_KEY", required_for="openai" if official else None)
        return base_url, key
    ep = config.endpoints.get(name)
    if ep is None or ep.kind != "openai":
        known = ", ".join(["openai", *sorted(n for n, e in config.endpoints.items() if e.kind == "openai")])
        raise ConfigError(f"{name!r} is not an OpenAI-compatible endpoint (known: {known})")
    base_url = options.get("base_url") or os.environ.get(f"{name.upper()}_BASE_URL") or ep.base_url
    return base_url, _keys(name, options, config)[0]


def _candidates(model_string: str, options: dict[str, Any], config: ProvidersConfig,
                catalog: Catalog) -> list[Candidate]:
    provider, model = parse_model_string(model_string, config)
    if provider == "replay":
        raise ConfigError("replay: cassettes cannot be mixed with fallbacks")
    return [
        Candidate(_one(provider, model, key, options, config, catalog), model,
                  label=f"{provider}/{model}#{fingerprint(key)}")
        for key in _keys(provider, options, config)
    ]


def resolve_model(model_string: str, **options: Any) -> tuple[LLMProvider, str]:
    """Resolve a model string (and options; see the module docstring) to ``(provider, model)``."""
    unknown = set(options) - _OPTIONS
    if unknown:
        raise ConfigError(f"unknown provider option(s): {', '.join(sorted(unknown))}")
    config = _config(options)
    provider_name, model = parse_model_string(model_string, config)
    if provider_name == "replay":
        from .cassette import ReplayProvider

        replay = ReplayProvider(model, roots=options.get("replay_roots"))
        return replay, replay.default_model
    catalog = Catalog(config.models)
    candidates = _candidates(model_string, options, config, catalog)
    for extra in options.get("fallbacks") or ():
        fallback_options = {k: v for k, v in options.items() if k not in ("api_key", "api_keys", "base_url")}
        candidates += _candidates(extra, fallback_options, config, catalog)
    retry = options.get("retry", None)
    result: LLMProvider
    if retry is False and len(candidates) == 1:
        result = candidates[0].provider
    else:
        policy = retry if isinstance(retry, RetryPolicy) else RetryPolicy(**(retry or {}))
        result = FailoverProvider(candidates, policy=policy)
    if options.get("record"):
        from .cassette import RecordingProvider

        result = RecordingProvider(result, options["record"], model=model, roots=options.get("replay_roots"))
    return result, model
