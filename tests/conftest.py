"""Shared test helpers. Subpackage conftests add their own fixtures."""

from __future__ import annotations

import os
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


# In CI (ORKAS_CI=1, set by .ci/run) every system dependency is installed on purpose, so a
# test that skips because one is missing hides a broken install step: make it fail instead.
# Skips that describe the machine rather than a missing install stay skips.
LEGITIMATE_SKIPS = (
    "no fallback to show",  # this Python's sqlite3 can already load extensions
    "no non-loopback address",  # a machine with loopback only
)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):  # type: ignore[no-untyped-def]
    outcome = yield
    report = outcome.get_result()
    if not report.skipped or not os.environ.get("ORKAS_CI") or hasattr(report, "wasxfail"):
        return
    reason = str(report.longrepr[-1]) if isinstance(report.longrepr, tuple) else str(report.longrepr)
    if any(ok in reason for ok in LEGITIMATE_SKIPS):
        return
    report.outcome = "failed"
    report.longrepr = f"skipped in CI, where every dependency should be installed: {reason}"
