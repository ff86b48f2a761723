"""What the tutorials' record scripts share: run a notebook headless with its replayed model
swapped for a recorder, then copy the cassette (and any files beside it) back here.

A record script supplies the recorder cell (a ``RecordingProvider`` around an authored
``ScriptedModel``, bound to the name ``recorder_name``) and, optionally, a cell to run right
after the one that selects the model. A tutorial whose agents all ask one model writes a script per
agent and routes each request to its agent's script with :func:`routed_recorder`.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent

#: The names a recorder cell's script is written with; :func:`routed_recorder` deletes them again.
SCRIPT_IMPORTS = """from orkas_nb import RecordingProvider
from orkas_nb.testing import ScriptedModel, call, reply
"""

#: The name :func:`routed_recorder` binds the recorder to (a record script's ``recorder_name``).
ROUTED_RECORDER = "_recorder"


def routed_recorder(cassette: str, model: str, routes: Sequence[tuple[str, str]]) -> str:
    """The end of a recorder cell that defines ``_scripts`` (agent name -> its list of replies).

    Each request goes to the script of the first agent in ``routes`` (``(agent, mark)`` pairs, in
    the order they are tried) whose mark its system prompt carries, so agents that ask in no fixed
    order (parallel dispatches) each get their own next reply; a request from no listed agent, or
    one more than an agent's script holds, fails the recording loudly. The recorder is bound to
    :data:`ROUTED_RECORDER`.
    """
    pairs = tuple((who, mark) for who, mark in routes)
    return f"""
def _answer(request):
    for who, mark in {pairs!r}:
        if mark in request.system:
            break
    else:
        raise AssertionError("a request from no agent of the script: " + request.system[:200])
    if not _scripts[who]:
        raise AssertionError(who + " was asked once more than its script allows")
    return _scripts[who].pop(0)


{ROUTED_RECORDER} = RecordingProvider(ScriptedModel(_answer), {cassette!r}, model={model!r},
                              note="authored: a ScriptedModel script, not a real model's answers")
del RecordingProvider, ScriptedModel, call, reply
"""


def record(notebook: Path, cassette: str, recorder_cell: str, recorder_name: str, *,
           after_model_cell: str | None = None, extra_files: tuple[str, ...] = ()) -> int:
    nb = nbformat.read(notebook, as_version=4)
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "code" and f"replay:{cassette}" in cell.source:
            # single quotes: IPython expands $name in double-quoted magic arguments
            cell.source = cell.source.replace(f'"replay:{cassette}"', f"'${recorder_name}'")
            if after_model_cell:
                nb.cells.insert(index + 1, nbformat.v4.new_code_cell(after_model_cell))
            break
    else:
        print(f"the notebook has no 'replay:{cassette}' model line", file=sys.stderr)
        return 1
    nb.cells.insert(0, nbformat.v4.new_code_cell(recorder_cell))
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(HERE.parent), os.environ.get("PYTHONPATH")]))
    with tempfile.TemporaryDirectory(prefix="orkas-record-") as tmp:
        NotebookClient(nb, timeout=120, kernel_name="python3",
                       resources={"metadata": {"path": tmp}}).execute()
        for name in (cassette, *extra_files):
            shutil.copy(Path(tmp) / name, HERE / name)
    return 0


def main(notebook: Path, cassette: str, recorder_cell: str, recorder_name: str, *,
         after_model_cell: str | None = None, extra_files: tuple[str, ...] = ()) -> int:
    """:func:`record`, then say what was written (a record script's whole ``main``)."""
    status = record(notebook, cassette, recorder_cell, recorder_name,
                    after_model_cell=after_model_cell, extra_files=extra_files)
    if status == 0:
        also = f" and {', '.join(extra_files)} beside it" if extra_files else ""
        print(f"recorded {HERE / cassette}{also}")
    return status

