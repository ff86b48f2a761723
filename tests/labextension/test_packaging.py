"""The prebuilt extension is in the wheel and enabled in the environment that installed it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PREFIX = "share/jupyter/labextensions/orkas-nb"


def _missing(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is None


def _need(module: str) -> None:
    if _missing(module):
        message = f"{module} is not installed (pip install -e '.[test]')"
        if os.environ.get("CI") or os.environ.get("ORKAS_CI"):
            pytest.fail(message)
        pytest.skip(message)


def test_listed_and_enabled_by_jupyter_labextension_list() -> None:
    _need("jupyterlab")
    out = subprocess.run([sys.executable, "-m", "jupyter", "labextension", "list"],
                         capture_output=True, text=True, timeout=120, check=False)
    text = re.sub(r"\x1b\[[0-9;]*m", "", out.stdout + out.stderr)
    assert re.search(r"orkas-nb v0\.1\.0 enabled\s+OK \(python, orkas_nb\)", text), text


@pytest.mark.slow
def test_the_wheel_carries_the_prebuilt_extension(tmp_path: Path) -> None:
    _need("hatch_jupyter_builder")
    if not (REPO / "orkas_nb" / "labextension" / "package.json").exists():
        pytest.fail("the extension is not built: pip install -e . (or npm run build in labextension/)")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "-q", "-w", str(tmp_path), str(REPO)], check=True, timeout=600)
    wheel = next(tmp_path.glob("orkas_nb-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    data = [n.split(".data/data/", 1)[1] for n in names if ".data/data/" in n]
    assert f"{PREFIX}/package.json" in data and f"{PREFIX}/install.json" in data
    assert any(re.fullmatch(rf"{PREFIX}/static/remoteEntry\.[0-9a-f]+\.js", n) for n in data)
    assert not [n for n in names if n.startswith("orkas_nb/labextension/")]  # only under share/
    meta = json.loads(zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith(f"{PREFIX}/package.json"))))
    assert meta["jupyterlab"]["_build"]["load"].startswith("static/remoteEntry.")
    assert meta["jupyterlab"]["mimeExtension"] and meta["jupyterlab"]["extension"]
