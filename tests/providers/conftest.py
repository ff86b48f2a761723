"""Fixtures for provider tests: the scripted loopback model server, and a clean cooldown book.

Other suites can reuse the server fixture with
``from tests.providers.conftest import model_server  # noqa: F401`` in their own conftest,
or start :class:`tests.fakes.model_server.ModelServer` directly.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from orkas_nb.providers.retry import COOLDOWNS
from tests.fakes.model_server import ModelServer


@pytest.fixture
def model_server() -> Iterator[ModelServer]:
    server = ModelServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(autouse=True)
def _fresh_cooldowns() -> Iterator[None]:
    # Cooldowns are process-wide on purpose (SPEC §6); tests must not inherit each other's.
    COOLDOWNS.clear()
    yield
    COOLDOWNS.clear()
