"""Retries and rotation under the runner (SPEC §6): one logical stream over several attempts.

:class:`FailoverProvider` wraps a list of :class:`Candidate` (provider, model, label) and reads
like a chain: ``stream`` (rotation) → ``_decide`` (what the last failure calls for). Decisions
come from the error's ``action`` only:

====================  ===========================================================
transient             retry the same candidate: backoff ``base·2^n`` with jitter, capped
                      at 30 s (a server's ``retry-after`` on a 5xx/529 is honoured up to
                      120 s); once the candidate's attempts are spent, the next one
rate limit (429)      cool the candidate down for ``retry-after`` (or the backoff) and
                      rotate; with no other candidate ready, wait for the first one back
                      (at most 120 s)
account (401/403…)    no retry on this key: cool it down 10 min (in process) and rotate
request / overflow    surfaced at once (another key fails the same way; the runner
                      compacts on overflow)
====================  ===========================================================

**One budget per request.** Every attempt counts, a switch with no wait included: each
candidate gets at most ``max_retries + 1`` attempts, so a request makes at most
``(max_retries + 1) × candidates`` of them, and the waits of one request add up to at most
``max_total_wait_s``. Whatever would go past either bound surfaces the last error instead.
(Before, a switch to a ready candidate was free, and two keys answering 429 with
``retry-after: 0`` rotated forever.)

Every wait or switch is announced in the stream as :class:`StreamRetry` before it happens (the
runner re-emits it as a ``retry`` event), its reason saying how long it waits. Once the first
content event (text, thinking or a tool call) has been yielded, nothing is retried or rotated:
the error is surfaced, because the user has seen output and the model may have proposed side
effects. Thinking counts as content because it was already shown to the user and a second
attempt would show it twice.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..core.errors import AccountError, ConfigError, ProviderError
from .base import (
    LLMProvider,
    ModelRequest,
    ProviderCapabilities,
    StreamEvent,
    StreamingProvider,
    StreamRetry,
    StreamText,
    StreamThinking,
    StreamToolCall,
    capabilities_of,
)
from .catalog import Catalog, catalog_of

__all__ = ["COOLDOWNS", "Candidate", "Cooldowns", "FailoverProvider", "RetryPolicy"]

ACCOUNT_COOLDOWN_S = 600.0
_CONTENT = (StreamText, StreamThinking, StreamToolCall)


@dataclass(frozen=True)
class RetryPolicy:
    """How long to wait before attempt ``n`` (1-based) of a retry in place."""

    max_retries: int = 4  # retries per candidate: each gets at most max_retries + 1 attempts
    base_s: float = 1.0
    cap_s: float = 30.0  # our own backoff never waits longer than this at once
    max_retry_after_s: float = 120.0  # a server asking for longer than this is surfaced instead
    max_total_wait_s: float = 300.0  # all the waits of one request together
    jitter: Callable[[], float] = field(default=random.random, compare=False)

    def backoff(self, n: int) -> float:
        """Exponential with jitter in [50%, 100%] of the step, never above the cap."""
        step = min(self.cap_s, self.base_s * (2 ** (n - 1)))
        return min(self.cap_s, step * (0.5 + 0.5 * self.jitter()))

    def wait_for(self, error: ProviderError, n: int) -> float:
        if error.retry_after is not None:
            return error.retry_after
        return self.backoff(n)


class Cooldowns:
    """Candidates resting after a failure, by label; shared by every agent of the process."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._until: dict[str, float] = {}

    def cool(self, label: str, seconds: float) -> None:
        self._until[label] = max(self._until.get(label, 0.0), self.clock() + seconds)

    def remaining(self, label: str) -> float:
        return max(0.0, self._until.get(label, 0.0) - self.clock())

    def clear(self) -> None:
        self._until.clear()


COOLDOWNS = Cooldowns()


@dataclass
class Candidate:
    """One way to answer: a provider (holding one key) and a model. ``label`` names it in
    cooldowns and retry notices; it must not contain the key (use a fingerprint)."""

    provider: LLMProvider
    model: str
    label: str = ""

    def __post_init__(self) -> None:
        if not self.label:
            self.label = f"{self.provider.id}/{self.model}"


class FailoverProvider(StreamingProvider):
    """Retries and rotation as a provider; see the module docstring."""

    def __init__(
        self,
        candidates: Sequence[Candidate],
        *,
        policy: RetryPolicy | None = None,
        cooldowns: Cooldowns | None = None,
        sleep: Callable[[float], Awaitable[Any]] | None = None,
    ) -> None:
        if not candidates:
            raise ConfigError("a FailoverProvider needs at least one candidate")
        self.candidates = list(candidates)
        self.policy = policy or RetryPolicy()
        self.cooldowns = cooldowns if cooldowns is not None else COOLDOWNS
        self._sleep = sleep or asyncio.sleep
        first = self.candidates[0]
        self.id = first.provider.id
        self.default_model = first.model

    @property
    def catalog(self) -> Catalog | None:
        """The first candidate's catalog (the registry gives every candidate the same one)."""
        return catalog_of(self.candidates[0].provider)

    def capabilities(self, model: str) -> ProviderCapabilities:
        first = self.candidates[0]
        return capabilities_of(first.provider, first.model if model == self.default_model else model)

    def secrets(self) -> list[str]:
        out: list[str] = []
        for c in self.candidates:
            fn = getattr(c.provider, "secrets", None)
            if callable(fn):
                out.extend(fn())
        return out

    async def validate_auth(self) -> None:
        await self.candidates[0].provider.validate_auth()

    def _request_for(self, request: ModelRequest, candidate: Candidate, index: int) -> ModelRequest:
        # The first candidate answers the caller's model; fallbacks answer their own.
        if index == 0 or request.model == candidate.model:
            return request
        return request.model_copy(update={"model": candidate.model})

    def _next_ready(self, after: int, usable: Callable[[int], bool]) -> int | None:
        n = len(self.candidates)
        for step in range(1, n):
            index = (after + step) % n
            if usable(index) and self.cooldowns.remaining(self.candidates[index].label) == 0:
                return index
        return None

    def _first_ready(self) -> int:
        for index, c in enumerate(self.candidates):
            if self.cooldowns.remaining(c.label) == 0:
                return index
        return min(range(len(self.candidates)), key=lambda i: self.cooldowns.remaining(self.candidates[i].label))

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        index = self._first_ready()
        wait = self.cooldowns.remaining(self.candidates[index].label)
        if wait > self.policy.max_retry_after_s:
            labels = ", ".join(c.label for c in self.candidates)
            raise AccountError(
                f"every candidate is cooling down after an account error or a long rate limit ({labels}); "
                f"the first is usable again in {wait:.0f} s"
            )
        budget = _Budget(len(self.candidates), self.policy)
        while True:
            if wait > 0:  # every candidate is resting (rate limits): wait for the first one back
                await self._sleep(wait)
            budget.attempted(index, wait)
            candidate = self.candidates[index]
            produced = False
            try:
                async for event in candidate.provider.stream(self._request_for(request, candidate, index)):
                    if not produced and isinstance(event, _CONTENT):
                        produced = True
                    yield event
                return
            except ProviderError as error:
                if produced or error.action not in ("retry", "rotate"):
                    raise
                decision = self._decide(error, index, budget)
                if decision is None:
                    raise
                next_index, wait, reason = decision
                rotated = self.candidates[next_index].label if next_index != index else None
                yield StreamRetry(attempt=budget.total, delay_s=round(wait, 3), reason=reason,
                                  error_kind=type(error).__name__, rotated_to=rotated)
                index = next_index

    def _decide(self, error: ProviderError, index: int, budget: _Budget) -> tuple[int, float, str] | None:
        """(candidate to try next, seconds to wait first, why) or None to surface ``error``."""
        label = self.candidates[index].label
        policy = self.policy
        if isinstance(error, AccountError):
            self.cooldowns.cool(label, ACCOUNT_COOLDOWN_S)
            budget.spend(index)
            why = f"{label}: account refused ({error})"
        else:
            wait = policy.wait_for(error, budget.used[index])
            if error.action == "rotate":  # rate limited: rest this one, use another if any
                self.cooldowns.cool(label, wait)
                why = f"{label}: rate limited"
            elif wait <= policy.max_retry_after_s and budget.left(index) and budget.affords(wait):
                return index, wait, f"{label}: {error}; retrying in {wait:.1f} s"
            else:  # this candidate's attempts (or the wait it asks for) are spent: rest it, move on
                self.cooldowns.cool(label, wait)
                budget.spend(index)
                why = f"{label}: {error}"
        other = self._next_ready(index, budget.left)
        if other is not None:
            return other, 0.0, f"{why}; switching to {self.candidates[other].label}"
        # Nobody ready: wait for whichever candidate with attempts left is back first.
        waiting = [i for i in range(len(self.candidates)) if budget.left(i)]
        if not waiting:
            return None
        soonest = min(waiting, key=lambda i: self.cooldowns.remaining(self.candidates[i].label))
        wait = self.cooldowns.remaining(self.candidates[soonest].label)
        if wait > policy.max_retry_after_s or not budget.affords(wait):
            return None
        return soonest, wait, f"{why}; waiting {wait:.1f} s"


class _Budget:
    """What one request has spent: attempts per candidate and seconds waited."""

    def __init__(self, candidates: int, policy: RetryPolicy) -> None:
        self.per_candidate = policy.max_retries + 1
        self.max_wait_s = policy.max_total_wait_s
        self.used = [0] * candidates
        self.spent: set[int] = set()  # refused, or asked for more than the budget allows
        self.waited_s = 0.0

    @property
    def total(self) -> int:
        return sum(self.used)

    def attempted(self, index: int, waited_s: float) -> None:
        self.used[index] += 1
        self.waited_s += waited_s

    def left(self, index: int) -> bool:
        return index not in self.spent and self.used[index] < self.per_candidate

    def spend(self, index: int) -> None:
        self.spent.add(index)

    def affords(self, wait_s: float) -> bool:
        return self.waited_s + wait_s <= self.max_wait_s
