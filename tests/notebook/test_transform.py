"""The input transformer and the renderer registry."""

from __future__ import annotations

import ast

import pytest

from orkas_nb.core.errors import ConfigError
from orkas_nb.notebook import plugins
from orkas_nb.notebook.cell.transform import make_transformer


def test_agent_cells_become_one_awaited_call() -> None:
    t = make_transformer(lambda: True)
    out = t(["\n", "%%agent -m $m\n", "say {x}\n", "  indented '''quotes\"\"\"\n"])
    assert len(out) == 1 and out[0].startswith("await __import__('orkas_nb.notebook.cell.run'")
    call = ast.parse(out[0], mode="exec").body[0].value.value  # type: ignore[attr-defined]
    assert [a.value for a in call.args] == ["-m $m", "say {x}\n  indented '''quotes\"\"\"\n"]


@pytest.mark.parametrize("lines", [["%%agents\n", "x\n"], ["%%agent?\n"], ["x = 1\n", "%%agent\n"],
                                   ["%agent show\n"], []])
def test_other_cells_are_left_alone(lines: list[str]) -> None:
    assert make_transformer(lambda: True)(list(lines)) == lines


def test_without_top_level_await_the_cell_is_left_to_the_cell_magic() -> None:
    lines = ["%%agent\n", "hi\n"]
    assert make_transformer(lambda: False)(list(lines)) == lines


def test_renderer_choice() -> None:
    assert plugins.choose_renderer("auto", None)[0] == "text"
    plugins.register_renderer("fancy", lambda ctx: None, available=lambda shell: shell == "lab", priority=5)  # type: ignore[arg-type,return-value]
    try:
        assert plugins.choose_renderer("auto", "lab")[0] == "fancy"
        assert plugins.choose_renderer("auto", "terminal")[0] == "text"
        assert plugins.choose_renderer("text", "lab")[0] == "text"
        with pytest.raises(ConfigError, match="no renderer named 'nope'"):
            plugins.choose_renderer("nope", "lab")
    finally:
        plugins._renderers.pop("fancy")
