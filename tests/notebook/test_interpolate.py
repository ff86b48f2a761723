"""{var} references: what is filled in, what is left as written."""

from __future__ import annotations

import sys

import pytest

from orkas_nb.notebook.cell.interpolate import interpolate, last_error_text


class Obj:
    shape = (3, 4)

    @property
    def broken(self) -> int:
        raise RuntimeError("no")


NS = {"x": 42, "name": "Ada", "df": Obj(), "Out": {3: [1, 2]}, "In": ["", "transformed"], "items": [10, 20, 30]}
RAW = ["", "typed %%magic"]


@pytest.mark.parametrize("text,expected", [
    ("{x}", "42"),
    ("hi {name}!", "hi Ada!"),
    ("{df.shape}", "(3, 4)"),
    ("{items[-1]} {items[1]}", "30 20"),
    ("{Out[3]}", "[1, 2]"),
    ("{In[1]}", "typed %%magic"),  # raw input, not IPython's transformed code
    ("{{x}}", "{x}"),
    ('{"a": {x}}', '{"a": 42}'),
    ("{nope} {x.nope} {}", "{nope} {x.nope} {}"),
    ("{ x } {1, 2} f'{x!r}'", "{ x } {1, 2} f'{x!r}'"),
    ("{df.broken}", "{df.broken}"),
])
def test_references(text: str, expected: str) -> None:
    assert interpolate(text, NS, RAW).text == expected


def test_missing_cell_references_are_noted_and_long_values_cut() -> None:
    r = interpolate("{Out[9]} {In[7]} {df.broken}", NS, RAW)
    assert r.notes == ["{Out[9]} does not exist; left as written", "{In[7]} does not exist; left as written",
                       "{df.broken}: no attribute 'broken'; left as written"]
    long = interpolate("{s}", {"s": "z" * 100}, max_chars=10).text
    assert long == "z" * 10 + "\n[… 90 more characters cut]"


def test_user_variables_win_and_last_error_reads_what_ipython_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(sys, "last_value", raising=False)
    assert interpolate("{last_error}", {}).text == "{last_error}"  # no error yet: left as written
    try:
        raise ValueError("bad value")
    except ValueError as exc:
        monkeypatch.setattr(sys, "last_value", exc, raising=False)
        monkeypatch.setattr(sys, "last_type", ValueError, raising=False)
        monkeypatch.setattr(sys, "last_traceback", exc.__traceback__, raising=False)
    text = last_error_text()
    assert text.startswith("Traceback") and text.endswith("ValueError: bad value")
    assert interpolate("{last_error}", {}).text == text
    assert interpolate("{last_error}", {"last_error": "mine"}).text == "mine"
