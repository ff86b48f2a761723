"""Shared test helpers. Subpackage conftests add their own fixtures."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Sequence

import pytest

TESTS = Path(__file__).parent
if str(TESTS.parent) not in sys.path:  # `tests.fakes` and friends importable from any cwd
    sys.path.insert(0, str(TESTS.parent))


def normalise(messages: Sequence[Any]) -> list[dict[str, Any]]:
    """Messages without what legitimately differs between two runs (ids, clocks, durations)."""
    out = []
    for m in messages:
        d = m.model_dump(mode="json", exclude={"id", "created_at"})
        out.append(d)
    return out


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    return ws
