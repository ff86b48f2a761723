"""Small builders shared by the provider tests."""

from __future__ import annotations

from typing import Any

from orkas_nb.core.messages import user_message
from orkas_nb.providers.auth import StaticKey
from orkas_nb.providers.base import ModelRequest, StreamDone, StreamRetry, ToolSpec
from orkas_nb.providers.retry import Candidate, Cooldowns, FailoverProvider, RetryPolicy

LOOKUP = ToolSpec(name="lookup", description="Describe a path.",
                  input_schema={"type": "object", "properties": {"path": {"type": "string"}},
                                "required": ["path"]})
FAST = RetryPolicy(max_retries=3, base_s=0.01, cap_s=0.05, jitter=lambda: 1.0)


def request(model: str = "gpt-4o-mini", text: str = "hi", **kw: Any) -> ModelRequest:
    return ModelRequest(model=model, system="You are terse.", messages=[user_message(text)],
                        tools=[LOOKUP], **kw)


def failover(*providers: Any, model: str = "gpt-4o-mini", policy: RetryPolicy = FAST,
             cooldowns: Cooldowns | None = None) -> FailoverProvider:
    cands = [Candidate(p, model, label=f"{p.id}#{i}") for i, p in enumerate(providers)]
    return FailoverProvider(cands, policy=policy, cooldowns=cooldowns or Cooldowns())


async def collect(provider: Any, req: ModelRequest) -> list[Any]:
    return [e async for e in provider.stream(req)]


def retries(events: list[Any]) -> list[StreamRetry]:
    return [e for e in events if isinstance(e, StreamRetry)]


def done(events: list[Any]) -> StreamDone:
    assert isinstance(events[-1], StreamDone), events[-1]
    return events[-1]


def key(k: str = "sk-test-key") -> StaticKey:
    return StaticKey(k)
