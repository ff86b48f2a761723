"""The magics' own arguments. A mistake in them is a one-line ``UsageError``, never a traceback."""

from __future__ import annotations

import argparse
import re
import shlex
from dataclasses import dataclass

from IPython.core.error import UsageError

CELL_USAGE = "%%agent [-m MODEL] [-s SESSION] [--new] [--no-tools] [--background] [--plan] [@NAME]"
LINE_USAGE = ("%agent sessions | show [SESSION] | new | clear | use SESSION | config | "
              "allow PATH | steer TEXT | stop [SESSION] | kb … | memory … | agents [new NAME] | "
              "skills | plan [SESSION | answer N K=V | retry N | skip N | resume | stop] | "
              "mcp … | packages … | evolve … | help")


_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")  # as an agent file may name it
_VALUED = {"-m", "--model", "-s", "--session"}  # options whose next word is their value


@dataclass
class CellOptions:
    model: str | None = None
    session: str | None = None
    new: bool = False
    no_tools: bool = False
    background: bool = False
    plan: bool = False  # ask the team's commander for a plan, and show it from the start
    help: bool = False
    target: str | None = None  # ``@name``: the cell speaks to that member of the team


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
    p.add_argument("--plan", action="store_true")
    p.add_argument("-h", "--help", action="store_true")
    return p


def split(line: str, usage: str) -> list[str]:
    try:
        return shlex.split(line)
    except ValueError as exc:
        raise UsageError(f"{exc} in {line.strip()!r}; usage: {usage}") from None


def _take_target(words: list[str]) -> tuple[str | None, list[str]]:
    """The ``@name`` word of the line (not an option's value), and the other words."""
    targets = [i for i, w in enumerate(words)
               if w.startswith("@") and (i == 0 or words[i - 1] not in _VALUED)]
    if len(targets) > 1:
        raise UsageError(f"one @name per cell, not {len(targets)}; usage: {CELL_USAGE}")
    if not targets:
        return None, words
    word = words[targets[0]]
    if not _NAME.fullmatch(word[1:]):
        raise UsageError(f"{word!r} is not an agent's name (letters, digits, - and _); "
                         f"usage: {CELL_USAGE}")
    return word[1:], words[:targets[0]] + words[targets[0] + 1:]


def parse_cell_line(line: str) -> CellOptions:
    target, words = _take_target(split(line, CELL_USAGE))
    ns = _cell_parser().parse_args(words)
    opts = CellOptions(**vars(ns), target=target)
    if opts.new and opts.session:
        raise UsageError(f"use either --new or -s SESSION, not both; usage: {CELL_USAGE}")
    if opts.session is not None and not opts.session.strip():
        raise UsageError(f"-s needs a session name; usage: {CELL_USAGE}")
    if opts.model is not None and not opts.model.strip():
        raise UsageError(f"-m needs a model; usage: {CELL_USAGE}")
    return opts


CELL_HELP = f"""usage: {CELL_USAGE}
  @NAME         speak to the team's agent NAME (the workspace's .orkas/agents/NAME.md)
  PROMPT (the cell's body)   what to ask; {{var}}, {{In[n]}}, {{Out[n]}}, {{last_error}} are filled in
  -m MODEL      model string (e.g. openai/gpt-4o-mini) or $name of a model object in the notebook
  -s SESSION    run in this session (this cell only)
  --new         start a new session (it becomes the notebook's current one)
  --no-tools    no tools for this run
  --background  return at once; the run keeps streaming into this cell (%agent steer/stop)
  --plan        the team's commander plans the work first; the plan is shown and runs live
line magics: {LINE_USAGE}"""
