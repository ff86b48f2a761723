"""``python -m orkas_nb quickstart``: copy the quickstart notebook into a folder and run it.

With no key and no network: the notebook replays its cassette. The executed notebook is saved
in place (open it to see the outputs), and the agent cells' transcripts are printed. ``--open``
starts JupyterLab on it instead, when JupyterLab is installed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

NOTEBOOK = "01-quickstart.ipynb"
FILES = (NOTEBOOK, "01-quickstart.cassette.jsonl")
TRANSCRIPT_MIME = "application/vnd.orkas.transcript+json"


def tutorials_folder() -> Path:
    """Where the tutorials are: packaged beside the code, or the repository's ``notebooks/``."""
    here = Path(__file__).resolve().parent.parent
    for candidate in (here / "_tutorials", here.parent / "notebooks"):
        if (candidate / NOTEBOOK).is_file():
            return candidate
    raise FileNotFoundError(f"cannot find {NOTEBOOK} (looked in {here / '_tutorials'} and "
                            f"{here.parent / 'notebooks'})")


def copy_quickstart(target: Path) -> Path:
    source = tutorials_folder()
    target.mkdir(parents=True, exist_ok=True)
    for name in FILES:
        shutil.copy(source / name, target / name)
    return target / NOTEBOOK


def execute(notebook: Path, timeout: float = 120.0) -> list[str]:
    """Run the notebook headless, save it in place; returns each agent cell's transcript text."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(notebook, as_version=4)
    package_root = str(Path(__file__).resolve().parents[2])
    env_path = os.environ.get("PYTHONPATH", "")
    if package_root not in env_path.split(os.pathsep):  # a checkout that is not pip-installed
        os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, env_path]))
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3",
                            resources={"metadata": {"path": str(notebook.parent)}})
    try:
        client.execute()
    finally:
        nbformat.write(nb, notebook)
    texts = []
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            if TRANSCRIPT_MIME in data:
                texts.append(data.get("text/plain", ""))
    return texts


def main(folder: Path, open_lab: bool = False) -> int:
    notebook = copy_quickstart(folder.resolve())
    if open_lab:
        if shutil.which("jupyter-lab") is None:
            print("JupyterLab is not installed (pip install jupyterlab); running headless instead.")
        else:
            return subprocess.call(["jupyter-lab", str(notebook)], cwd=str(notebook.parent))
    print(f"running {notebook} (replaying its cassette: no key, no network)\n")
    try:
        texts = execute(notebook)
    except Exception as exc:  # noqa: BLE001 - nbclient's CellExecutionError carries the cell and its error
        print(f"the quickstart failed:\n{exc}", file=sys.stderr)
        return 1
    for text in texts:
        print(text)
    print(f"saved with its outputs: {notebook}")
    return 0
