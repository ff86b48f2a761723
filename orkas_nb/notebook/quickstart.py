"""``python -m orkas_nb quickstart``: copy the quickstart notebook into a folder and run it.

With no key and no network: the notebook replays its cassette. The executed notebook is saved
in place (open it to see the outputs), and the agent cells' transcripts are printed. ``--open``
starts JupyterLab on it instead, when JupyterLab is installed.
"""

from __future__ import annotations

import importlib.util
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
    import nbformat  # on use: missing_runner() explains their absence instead of a traceback
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


def missing_runner() -> str | None:
    """Why the notebook cannot run headless here, or None. nbclient and nbformat are
    dependencies; an environment that lost one gets one line, not a traceback."""
    missing = [name for name in ("nbformat", "nbclient") if importlib.util.find_spec(name) is None]
    if not missing:
        return None
    return (f"the quickstart runs its notebook with nbclient, and {' and '.join(missing)} "
            f"{'is' if len(missing) == 1 else 'are'} not installed: pip install nbclient nbformat "
            "(or pip install jupyterlab, which brings both), then run it again")


def main(folder: Path, open_lab: bool = False) -> int:
    notebook = copy_quickstart(folder.resolve())
    if open_lab:
        if shutil.which("jupyter-lab") is None:
            print("JupyterLab is not installed (pip install jupyterlab); running headless instead.")
        else:
            return subprocess.call(["jupyter-lab", str(notebook)], cwd=str(notebook.parent))
    problem = missing_runner()
    if problem:
        print(problem, file=sys.stderr)
        return 1
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
