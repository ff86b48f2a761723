"""Kernels for the notebook tests: one shared kernel per module where tests can share it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .kernel import Kernel

SETUP = r'''
%load_ext orkas_nb
import asyncio, json, time
from orkas_nb import tool
from orkas_nb.testing import ScriptedModel, reply, call

def last_prompt(m, i=-1):
    return m.requests[i].messages[-1].text

def roles(m, i=-1):
    return [(x.role, getattr(x, "status", None)) for x in m.requests[i].messages]

@tool
async def slow(seconds: float = 30.0) -> str:
    """Wait, then answer.

    Args:
        seconds: how long to wait
    """
    await asyncio.sleep(seconds)
    return "waited"
'''


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("nb") / "analysis"
    folder.mkdir()
    (folder / "data.txt").write_text("alpha\nbeta\ngamma\n")
    return folder


@pytest.fixture(scope="module")
def kernel(ws: Path) -> Iterator[Kernel]:
    # The magic's tests read the text view; the widget and run views have their own suites.
    with Kernel(ws, env={"ORKAS_RENDERER": "text", "OPENROUTER_API_KEY": "sk-test-not-a-real-key"}) as k:
        k.run(SETUP)
        yield k
