"""What the tutorials' record scripts share: run a notebook headless with its replayed model
swapped for a recorder, then copy the cassette (and any files beside it) back here.

A record script supplies the recorder cell (a ``RecordingProvider`` around an authored
``ScriptedModel``, bound to the name ``recorder_name``) and, optionally, a cell to run right
after the one that selects the model.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent


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

