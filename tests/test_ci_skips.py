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
# Skips raised while a module is collected (before any of its tests exists).
MODULE_SKIPS = {
    "test_importorskip": """
import pytest
pytest.importorskip("no_such_module_orkas")
def test_never_runs():
    pass
""",
    "test_module_skip": """
import pytest
pytest.skip("chromium is not installed", allow_module_level=True)
def test_never_runs():
    pass
""",
    "test_module_machine_fact": """
import pytest
pytest.skip("no non-loopback address here", allow_module_level=True)
""",
}


def test_ci_turns_missing_dependency_skips_into_failures(pytester, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(TESTS)
    monkeypatch.setenv("ORKAS_CI", "1")
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(failed=1, skipped=1)
    monkeypatch.delenv("ORKAS_CI")
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(skipped=2)


def test_ci_turns_module_level_skips_into_failures(pytester, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(**MODULE_SKIPS, test_fine="def test_ok():\n    pass\n")
    monkeypatch.setenv("ORKAS_CI", "1")
    result = pytester.runpytest("-p", "no:cacheprovider", "-rA")
    # The two missing dependencies fail (the rest of the run goes on); the machine fact skips.
    result.assert_outcomes(passed=1, failed=2, skipped=1)
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*skipped in CI*could not import 'no_such_module_orkas'*"])
    result.stdout.fnmatch_lines(["*skipped in CI*chromium is not installed*"])
    result.stdout.fnmatch_lines(["FAILED test_importorskip.py::skipped-in-CI*"])
    result.stdout.fnmatch_lines(["FAILED test_module_skip.py::skipped-in-CI*"])
    monkeypatch.delenv("ORKAS_CI")
    result = pytester.runpytest("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, skipped=3)
    assert result.ret == 0
