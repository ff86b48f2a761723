"""Fixtures for provider tests: the scripted loopback model server, and a clean cooldown book."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from orkas_nb.providers.retry import COOLDOWNS
from tests.fakes.fixtures import compatible_model_server, model_server  # noqa: F401  (shared fixtures)


@pytest.fixture(autouse=True)
def _fresh_cooldowns() -> Iterator[None]:
    # Cooldowns are process-wide on purpose (SPEC §6); tests must not inherit each other's.
    COOLDOWNS.clear()
    yield
    COOLDOWNS.clear()
