"""One attempt budget per request: exact request counts over real HTTP for every failure storm.

Each case runs against the loopback server answering every request with the same failure, with
1, 2 and 3 candidates (keys) on it. Waits are not slept for real: the provider's sleep advances a
clock that the cooldowns read, so a 20 s ``retry-after`` costs the test nothing yet is honoured.
"""

from __future__ import annotations

import pytest

from orkas_nb.core.errors import ProviderError
from orkas_nb.providers.openai_chat import OpenAIChatProvider
from orkas_nb.providers.retry import Candidate, Cooldowns, FailoverProvider, RetryPolicy
from tests.fakes.model_server import Fault, ModelServer
from tests.providers.helpers import key, request

POLICY = RetryPolicy(jitter=lambda: 1.0)  # the defaults: 4 retries per candidate, 300 s of waits
PER_CANDIDATE = POLICY.max_retries + 1


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def storm(fault: Fault, candidates: int) -> tuple[int, list[float], list[str]]:
    """Requests the server saw, the waits slept, and the retry notices' reasons."""
    clock = Clock()
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)
        clock.now += seconds

    with ModelServer(script=lambda _body: fault) as server:
        providers = [OpenAIChatProvider(base_url=server.openai_url, token_source=key(f"sk-{i}"))
                     for i in range(candidates)]
        failover = FailoverProvider(
            [Candidate(p, "gpt-4o-mini", label=f"key{i}") for i, p in enumerate(providers)],
            policy=POLICY, cooldowns=Cooldowns(clock), sleep=sleep)
        reasons: list[str] = []
        with pytest.raises(ProviderError):
            async for event in failover.stream(request()):
                if event.type == "retry":
                    reasons.append(event.reason)
        for p in providers:
            await p.aclose()
        return server.count("/v1/chat/completions"), slept, reasons


@pytest.mark.parametrize("candidates", [1, 2, 3])
@pytest.mark.parametrize("retry_after", ["0", "2"])
async def test_rate_limit_storm_spends_the_whole_budget_then_surfaces(candidates: int, retry_after: str) -> None:
    requests, slept, _ = await storm(Fault.status(429, retry_after=retry_after), candidates)
    assert requests == PER_CANDIDATE * candidates
    # Rotation between keys costs no wait; a round in which every key is resting waits once.
    assert len(slept) == (PER_CANDIDATE - 1 if retry_after == "2" else 0)
    assert all(s == float(retry_after) for s in slept)


@pytest.mark.parametrize("candidates", [1, 2, 3])
async def test_a_retry_after_past_the_cap_tries_each_key_once(candidates: int) -> None:
    requests, slept, _ = await storm(Fault.status(429, retry_after="600"), candidates)
    assert requests == candidates  # every other key is tried; nobody waits 10 minutes
    assert slept == []


@pytest.mark.parametrize("candidates", [1, 2, 3])
async def test_a_server_error_storm_retries_each_candidate_then_surfaces(candidates: int) -> None:
    requests, slept, reasons = await storm(Fault.status(500), candidates)
    assert requests == PER_CANDIDATE * candidates
    assert slept == [1.0, 2.0, 4.0, 8.0] * candidates  # each candidate's own backoff
    assert sum("switching" in r for r in reasons) == candidates - 1


async def test_the_total_wait_cap_bounds_a_request() -> None:
    requests, slept, _ = await storm(Fault.status(429, retry_after="100"), 1)
    # 100 s waits: 300 s of budget allow three of them, so four attempts instead of five.
    assert requests == 4 and slept == [100.0, 100.0, 100.0]


async def test_every_wait_says_how_long() -> None:
    _, slept, reasons = await storm(Fault.status(429, retry_after="45"), 2)
    waits = [r for r in reasons if "waiting" in r]
    assert waits and all("45.0 s" in r for r in waits)
    assert len(waits) == len(slept)
