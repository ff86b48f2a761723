"""The magic's own arguments."""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError

from orkas_nb.notebook.cell.arguments import CELL_USAGE, CellOptions, parse_cell_line


def test_options() -> None:
    assert parse_cell_line("") == CellOptions()
    assert parse_cell_line("-m openai/gpt-4o-mini -s 'my session' --no-tools --background") == CellOptions(
        model="openai/gpt-4o-mini", session="my session", no_tools=True, background=True)
    assert parse_cell_line("--model $m --new").new is True


@pytest.mark.parametrize("line,message", [
    ("--bogus", "unrecognized arguments: --bogus"),
    ("-m", "expected one argument"),
    ("--new -s x", "use either --new or -s SESSION"),
    ("-s ''", "-s needs a session name"),
    ("-m '  '", "-m needs a model"),
    ("-s 'open", "No closing quotation"),
    ("extra words", "unrecognized arguments: extra words"),
])
def test_mistakes_are_one_usage_line(line: str, message: str) -> None:
    with pytest.raises(UsageError) as info:
        parse_cell_line(line)
    text = str(info.value)
    assert message in text and text.endswith(CELL_USAGE) and "\n" not in text


def test_an_at_name_on_the_line_is_the_member_the_cell_speaks_to() -> None:
    assert parse_cell_line("@researcher").target == "researcher"
    assert parse_cell_line("-m $m @writer --background") == CellOptions(
        model="$m", target="writer", background=True)
    assert parse_cell_line("-s @odd").target is None  # an option's value is not an address


@pytest.mark.parametrize("line,message", [
    ("@a @b", "one @name per cell, not 2"),
    ("@", "'@' is not an agent's name"),
    ("@bad.name", "'@bad.name' is not an agent's name"),
])
def test_a_bad_at_name_is_one_usage_line(line: str, message: str) -> None:
    with pytest.raises(UsageError) as info:
        parse_cell_line(line)
    text = str(info.value)
    assert message in text and text.endswith(CELL_USAGE) and "\n" not in text
