"""Credentials: where a provider's key comes from, and how an OAuth-style token is refreshed.

A provider asks its :class:`TokenSource` for a token before each request. When the server
rejects it (401), the provider calls ``refresh()`` once and retries with the new token; a
source that cannot refresh (a plain key) says so through ``refreshable`` and the 401 becomes an
:class:`~orkas_nb.core.errors.AccountError` for the rotation layer.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import time
from collections.abc import Awaitable, Callable
from typing import Protocol, runtime_checkable

from pydantic import BaseModel

from ..core.errors import AccountError, ConfigError

__all__ = ["RefreshingToken", "StaticKey", "Token", "TokenSource", "fingerprint", "key_from_env"]


class Token(BaseModel):
    """A bearer token and, when known, the epoch second it stops working."""

    value: str
    expires_at: float | None = None


@runtime_checkable
class TokenSource(Protocol):
    refreshable: bool

    async def token(self) -> str: ...

    async def refresh(self) -> str: ...


class StaticKey:
    """An API key that never changes (from the environment or config)."""

    refreshable = False

    def __init__(self, key: str) -> None:
        self.key = key

    async def token(self) -> str:
        return self.key

    async def refresh(self) -> str:
        raise AccountError("the API key was rejected and a plain key cannot be refreshed")


class RefreshingToken:
    """A token fetched by ``fetch`` and fetched again before it expires or after a rejection.

    ``fetch`` is the pluggable part (an OAuth refresh-token exchange, a CLI login helper…);
    concurrent callers share one fetch. ``margin_s`` renews that long before expiry.
    """

    refreshable = True

    def __init__(self, fetch: Callable[[], Awaitable[Token]], *, margin_s: float = 60.0) -> None:
        self._fetch = fetch
        self._margin = margin_s
        self._current: Token | None = None
        self._lock = asyncio.Lock()
        self.fetches = 0

    def _fresh(self) -> bool:
        t = self._current
        return t is not None and (t.expires_at is None or t.expires_at - self._margin > time.time())

    async def token(self) -> str:
        if self._fresh():
            return self._current.value  # type: ignore[union-attr]
        return await self.refresh(stale=self._current)

    async def refresh(self, stale: Token | None = None) -> str:
        rejected = self._current if stale is None else stale
        async with self._lock:
            if self._current is not rejected and self._fresh():  # another task already renewed it
                return self._current.value  # type: ignore[union-attr]
            self.fetches += 1
            self._current = await self._fetch()
            return self._current.value


def key_from_env(*names: str, required_for: str | None = None) -> str | None:
    """The first non-empty variable among ``names``; a ConfigError naming them if required."""
    for name in names:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    if required_for is not None:
        raise ConfigError(
            f"no API key for {required_for}: set {' or '.join(names)} in the environment "
            f"or pass api_key=... (or a token_source)"
        )
    return None


def fingerprint(secret: str | None) -> str:
    """A short non-reversible label for a key, so cooldowns and logs never hold the key."""
    if not secret:
        return "nokey"
    return hashlib.sha256(secret.encode()).hexdigest()[:10]
