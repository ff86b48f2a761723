"""An environment without nbclient gets one line saying what to install, not a traceback."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from orkas_nb.__main__ import main


def test_quickstart_without_nbclient_names_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "nbclient" else real(name, *a))
    assert main(["quickstart", "--dir", str(tmp_path / "qs")]) == 1
    out = capsys.readouterr()
    assert out.err.strip().splitlines() == ["the quickstart needs nbclient: pip install nbclient"]
    assert not (tmp_path / "qs").exists()  # nothing copied, nothing half-run
