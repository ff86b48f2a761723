"""The first command a user runs says what is missing instead of failing inside the notebook."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from orkas_nb.__main__ import main


def test_quickstart_without_nbclient_says_what_to_install(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "nbclient" else real(name, *a))
    assert main(["quickstart", "--dir", str(tmp_path / "qs")]) == 1
    err = capsys.readouterr().err
    assert "nbclient is not installed" in err and "pip install nbclient nbformat" in err
    assert len(err.strip().splitlines()) == 1  # one line, not a traceback
    assert (tmp_path / "qs" / "01-quickstart.ipynb").is_file()  # copied, ready to open in Jupyter
