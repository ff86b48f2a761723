"""In CI a skip for a missing dependency fails the run; elsewhere it stays a skip."""

from __future__ import annotations

from pathlib import Path

pytest_plugins = ["pytester"]

CONFTEST = (Path(__file__).parent / "conftest.py").read_text()
TESTS = """
import pytest
def test_missing():
    pytest.skip("bubblewrap unavailable")
def test_machine_fact():
    pytest.skip("no non-loopback address on this machine")
"""


def test_ci_turns_missing_dependency_skips_into_failures(pytester, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(TESTS)
    monkeypatch.setenv("ORKAS_CI", "1")
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(failed=1, skipped=1)
    monkeypatch.delenv("ORKAS_CI")
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(skipped=2)
