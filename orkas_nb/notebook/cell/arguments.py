"""The magics' own arguments. A mistake in them is a one-line ``UsageError``, never a traceback."""

from __future__ import annotations

import argparse
import shlex
from dataclasses import dataclass

from IPython.core.error import UsageError

CELL_USAGE = "%%agent [-m MODEL] [-s SESSION] [--new] [--no-tools] [--background]"
LINE_USAGE = ("%agent sessions | show [SESSION] | new | clear | use SESSION | config | "
              "allow PATH | steer TEXT | stop [SESSION] | kb … | memory … | agents [new NAME] | "
              "skills | help")


@dataclass
class CellOptions:
    model: str | None = None
    session: str | None = None
    new: bool = False
    no_tools: bool = False
    background: bool = False
    help: bool = False


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{message}; usage: {CELL_USAGE}")


def _cell_parser() -> _Parser:
    p = _Parser(prog="%%agent", add_help=False)
    p.add_argument("-m", "--model")
    p.add_argument("-s", "--session")
    p.add_argument("--new", action="store_true")
    p.add_argument("--no-tools", dest="no_tools", action="store_true")
    p.add_argument("--background", action="store_true")
    p.add_argument("-h", "--help", action="store_true")
    return p


def split(line: str, usage: str) -> list[str]:
    try:
        return shlex.split(line)
    except ValueError as exc:
        raise UsageError(f"{exc} in {line.strip()!r}; usage: {usage}") from None


def parse_cell_line(line: str) -> CellOptions:
    ns = _cell_parser().parse_args(split(line, CELL_USAGE))
    opts = CellOptions(**vars(ns))
    if opts.new and opts.session:
        raise UsageError(f"use either --new or -s SESSION, not both; usage: {CELL_USAGE}")
    if opts.session is not None and not opts.session.strip():
        raise UsageError(f"-s needs a session name; usage: {CELL_USAGE}")
    if opts.model is not None and not opts.model.strip():
        raise UsageError(f"-m needs a model; usage: {CELL_USAGE}")
    return opts


CELL_HELP = f"""usage: {CELL_USAGE}
  PROMPT (the cell's body)   what to ask; {{var}}, {{In[n]}}, {{Out[n]}}, {{last_error}} are filled in
  -m MODEL      model string (e.g. openai/gpt-4o-mini) or $name of a model object in the notebook
  -s SESSION    run in this session (this cell only)
  --new         start a new session (it becomes the notebook's current one)
  --no-tools    no tools for this run
  --background  return at once; the run keeps streaming into this cell (%agent steer/stop)
line magics: {LINE_USAGE}"""
