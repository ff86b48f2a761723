"""Pytest fixtures for the loopback fakes. Use them from any conftest::

    from tests.fakes.fixtures import model_server  # noqa: F401

``model_server`` is a started :class:`~tests.fakes.model_server.ModelServer` (a thread on
127.0.0.1, a free port), stopped after the test; script it with ``model_server.push(...)``. It
is as strict as the official APIs (a key is required; bodies are checked against the SDKs'
types). ``compatible_model_server`` reads requests as llama.cpp, vLLM or Ollama do.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .model_server import ModelServer


@pytest.fixture
def model_server() -> Iterator[ModelServer]:
    server = ModelServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def compatible_model_server() -> Iterator[ModelServer]:
    server = ModelServer(compatible=True).start()
    try:
        yield server
    finally:
        server.stop()
