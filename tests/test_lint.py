"""The package passes ruff with the project's configuration (``[tool.ruff]`` in pyproject.toml).

The rules are selected there explicitly, so a newer ruff with a wider default set does not
change what this test asks. Without ruff installed (it comes with the ``test`` extra) the test
is skipped, which in CI is a failure (tests/conftest.py).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _ruff() -> str:
    try:
        from ruff.__main__ import find_ruff_bin  # the binary the ruff wheel installs
    except ImportError:
        found = shutil.which("ruff")
        if found is None:
            pytest.skip("ruff is not installed (pip install -e '.[test]')")
        return found
    return str(find_ruff_bin())


def test_the_package_has_no_lint_findings() -> None:
    done = subprocess.run([_ruff(), "check", "--no-cache", "--output-format", "concise",
                           "orkas_nb"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"ruff found:\n{done.stdout}{done.stderr}"
