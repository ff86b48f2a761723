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

# Hypothesis times each example against a 200 ms deadline by default, and its too_slow health
# check times the drawing of the first examples: on a loaded 2-core CI machine either is the
# machine, not the code, and fails the run. No test here is about speed (benchmarks are), so
# neither applies to any property test (a test's own @settings inherits this profile).
try:
    from hypothesis import HealthCheck as _HealthCheck
    from hypothesis import settings as _hypothesis_settings
except ImportError:  # pragma: no cover - hypothesis is in the test extra
    pass
else:
    _hypothesis_settings.register_profile(
        "orkas", deadline=None, suppress_health_check=[_HealthCheck.too_slow])
    _hypothesis_settings.load_profile("orkas")

# A developer's own global skill folders (~/.claude/skills…) must not change what the tests send
# to a model; tests of the open tier turn it on for themselves (kernels inherit this).
os.environ.setdefault("ORKAS_OPEN_TIER_SKILLS", "0")


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


def _ci_should_fail(report: Any) -> str | None:
    """The skip's reason when, in CI, this skipped report must count as a failure."""
    if not report.skipped or not os.environ.get("ORKAS_CI") or hasattr(report, "wasxfail"):
        return None
    reason = str(report.longrepr[-1]) if isinstance(report.longrepr, tuple) else str(report.longrepr)
    if any(ok in reason for ok in LEGITIMATE_SKIPS):
        return None
    return reason


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):  # type: ignore[no-untyped-def]
    outcome = yield
    report = outcome.get_result()
    reason = _ci_should_fail(report)
    if reason is None:
        return
    report.outcome = "failed"
    report.longrepr = f"skipped in CI, where every dependency should be installed: {reason}"


class _SkippedInCI(pytest.Item):
    """Stands for a module that skipped itself while being collected; fails with the reason."""

    def __init__(self, *, reason: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.reason = reason

    def runtest(self) -> None:
        pytest.fail(f"skipped in CI, where every dependency should be installed: {self.reason}",
                    pytrace=False)

    def reportinfo(self):  # type: ignore[no-untyped-def]
        return self.path, None, f"{self.name} (the module skipped itself while being collected)"


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):  # type: ignore[no-untyped-def]
    # A module-level `pytest.importorskip` (or `skip(allow_module_level=True)`) skips while the
    # module is collected, before any test exists, so the hook above never sees it. In CI the
    # module is collected as one test that fails with the skip's reason instead (the rest of the
    # run goes on, unlike a collection error, which would stop it).
    outcome = yield
    report = outcome.get_result()
    reason = _ci_should_fail(report)
    if reason is None:
        return
    item = _SkippedInCI.from_parent(collector, name="skipped-in-CI", reason=reason)
    outcome.force_result(pytest.CollectReport(report.nodeid, "passed", None, [item]))
