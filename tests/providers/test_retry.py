"""The retry/rotation policy itself: backoff bounds, cooldowns, surfacing, cancellation."""

from __future__ import annotations

import asyncio
import time

import pytest

from orkas_nb.core.errors import AccountError, ContextOverflowError, RateLimitError, TransientError
from orkas_nb.harness.cancellation import AbortSignal
from orkas_nb.harness.runner import Runner
from orkas_nb.providers.openai_chat import OpenAIChatProvider
from orkas_nb.providers.retry import Candidate, Cooldowns, FailoverProvider, RetryPolicy
from orkas_nb.testing import ScriptedModel, reply
from tests.fakes.model_server import Fault, Reply
from tests.providers.helpers import collect, done, key, request, retries


def test_backoff_is_exponential_jittered_and_capped_at_30s():
    high = RetryPolicy(jitter=lambda: 1.0)
    low = RetryPolicy(jitter=lambda: 0.0)
    assert [high.backoff(n) for n in range(1, 8)] == [1, 2, 4, 8, 16, 30, 30]
    assert [low.backoff(n) for n in range(1, 4)] == [0.5, 1, 2]
    assert all(RetryPolicy().backoff(n) <= 30 for n in range(1, 50))


def test_retry_after_wins_over_backoff():
    err = TransientError("503", status=503, retry_after=7.0)
    assert RetryPolicy().wait_for(err, 1) == 7.0


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _failover(*scripts, policy=None, cooldowns=None):
    cands = [Candidate(ScriptedModel(s, id=f"p{i}"), "m", label=f"p{i}") for i, s in enumerate(scripts)]
    slept: list[float] = []
    clock = Clock()
    cooldowns = cooldowns or Cooldowns(clock)

    async def sleep(s: float) -> None:
        slept.append(s)
        if cooldowns.clock is clock:
            clock.now += s

    provider = FailoverProvider(cands, policy=policy or RetryPolicy(jitter=lambda: 1.0),
                                cooldowns=cooldowns, sleep=sleep)
    return provider, slept


async def test_waits_are_announced_before_they_happen():
    provider, slept = _failover([TransientError("boom"), TransientError("boom"), reply("ok")])
    events = await collect(provider, request("m"))
    assert [(r.attempt, r.delay_s) for r in retries(events)] == [(1, 1.0), (2, 2.0)]
    assert slept == [1.0, 2.0]
    assert done(events).message.text == "ok"


async def test_request_and_overflow_errors_are_never_retried():
    for error in (ContextOverflowError("too long"), AccountError("nope")):
        provider, slept = _failover([error, reply("never")])
        with pytest.raises(type(error)):
            await collect(provider, request("m"))
        assert slept == []


async def test_all_candidates_cooling_after_account_errors_fails_fast():
    book = Cooldowns()
    provider, _ = _failover([AccountError("a")], [AccountError("b")], cooldowns=book)
    with pytest.raises(AccountError):
        await collect(provider, request("m"))
    assert book.remaining("p0") > 590 and book.remaining("p1") > 590
    again, _ = _failover([reply("x")], [reply("y")], cooldowns=book)
    with pytest.raises(AccountError, match="cooling down"):
        await collect(again, request("m"))


async def test_rate_limited_everywhere_waits_in_place():
    provider, _ = _failover([RateLimitError("slow", retry_after=2.0), reply("ok")],
                                [RateLimitError("slow", retry_after=3.0)])
    events = await collect(provider, request("m"))
    kinds = [(r.rotated_to, r.delay_s) for r in retries(events)]
    assert kinds == [("p1", 0.0), ("p0", 2.0)]  # rotate first; both resting: wait for the first back
    assert done(events).message.text == "ok"


async def test_fallback_candidate_answers_with_its_own_model():
    first = ScriptedModel([AccountError("no")], id="a")
    second = ScriptedModel([reply("hi")], id="b")
    provider = FailoverProvider([Candidate(first, "big"), Candidate(second, "small")], cooldowns=Cooldowns())
    await collect(provider, request("big"))
    assert second.requests[0].model == "small"


async def test_stop_during_a_retry_wait_ends_the_turn_at_once(model_server):
    model_server.push(Fault.status(429, retry_after="20"), Reply(text="never"))
    provider = FailoverProvider([Candidate(OpenAIChatProvider(base_url=model_server.openai_url,
                                                              token_source=key()), "gpt-4o-mini")],
                                cooldowns=Cooldowns())
    runner = Runner(provider, "gpt-4o-mini")
    abort = AbortSignal()
    seen = []
    started = time.monotonic()

    async def consume() -> None:
        async for event in runner.run("hi", abort=abort):
            seen.append(event)
            if event.type == "retry":
                abort.abort("user pressed Stop")

    await asyncio.wait_for(consume(), timeout=5)
    assert time.monotonic() - started < 2.0  # generous: the wait was 20 s
    assert seen[-1].result.stop_reason == "cancelled"
    assert model_server.count("/v1/chat/completions") == 1
