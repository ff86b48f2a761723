"""Every tutorial replays on a machine unlike the one that recorded it.

The cassettes were recorded where bubblewrap runs. Here each tutorial runs headless in a real
kernel on this machine as it is, and on two other "machines": a container that has bubblewrap
but refuses it (user namespaces off: a ``bwrap`` stub that fails as bubblewrap fails there)
and a machine with no ``bwrap`` at all. Each run has another HOME and a workspace at another path, and the two other machines
change more: the container's Python sizes objects differently (as 3.10 does), the other has
no local embedding model. A replay that drifted stops its cell with ReplayMismatchError, which
fails the run here.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

from orkas_nb.tools import isolation_status

pytestmark = [pytest.mark.kernel, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"
# each tutorial and how many %%agent cells it has
TUTORIALS = {"01-quickstart": 2, "02-kernel-tools-and-approvals": 2, "03-knowledge-and-memory": 2,
             "04-research-team": 4, "05-plan-analysis": 2, "06-mcp-server": 2,
             "07-self-evolution": 3}
TRANSCRIPT = "application/vnd.orkas.transcript+json"
# Exactly what bubblewrap prints where it may not create namespaces (Docker's default seccomp
# profile, Kubernetes pods, kernels with unprivileged user namespaces off).
REFUSING_BWRAP = "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n"
# Another interpreter's object sizes: a dict of six is 360 B on 3.10, 272 B on 3.11.
OTHER_SIZES = ("import sys as _sys\n_size = _sys.getsizeof\n"
               "_sys.getsizeof = lambda o, *d: _size(o, *d) + 88\ndel _sys")
NO_EMBEDDER = "import orkas_nb.memory.embedder_choice as _m\n_m.default_embedder = lambda: None\ndel _m"
REPORT = ("from orkas_nb.tools import isolation_status as _iso\n"
          "print('isolation:', _iso().mode, '|', _iso().detail)")


def path_without_bwrap(tmp: Path, path: str) -> str:
    """``path`` with each folder that holds a ``bwrap`` replaced by a copy of links without it."""
    out = []
    for n, entry in enumerate(p for p in path.split(os.pathsep) if p):
        folder = Path(entry)
        if not (folder / "bwrap").exists():
            out.append(entry)
            continue
        mirror = tmp / f"bin{n}"
        mirror.mkdir(parents=True)
        for item in folder.iterdir():
            if item.name != "bwrap":
                (mirror / item.name).symlink_to(item)
        out.append(str(mirror))
    return os.pathsep.join(out)


def machine(kind: str, tmp: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list[str]]:
    """Set up the environment of ``kind``; (the workspace, cells to run first)."""
    home = tmp / "another home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "ORKAS_MODEL", "JPY_SESSION_NAME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    if kind == "this machine":  # as it is (bubblewrap if it runs here), in another folder
        workspace, first = tmp / "another checkout" / "notebooks", []
    elif kind == "container":
        stub = tmp / "stub-bin"
        stub.mkdir()
        (stub / "bwrap").write_text(REFUSING_BWRAP)
        (stub / "bwrap").chmod(0o755)
        monkeypatch.setenv("PATH", f"{stub}{os.pathsep}{os.environ['PATH']}")
        workspace, first = tmp / "srv" / "notebooks" / "tour", [OTHER_SIZES]
    else:
        monkeypatch.setenv("PATH", path_without_bwrap(tmp / "no-bwrap", os.environ["PATH"]))
        assert shutil.which("bwrap") is None
        workspace, first = home / "work" / "orkas tutorials", [NO_EMBEDDER]
    workspace.mkdir(parents=True)
    return workspace, first


def run(tutorial: str, workspace: Path, first: list[str]) -> Any:
    for f in NOTEBOOKS.glob(f"{tutorial}.*"):
        shutil.copy(f, workspace / f.name)
    nb = nbformat.read(workspace / f"{tutorial}.ipynb", as_version=4)
    nb.cells[:0] = [nbformat.v4.new_code_cell(src) for src in first]
    nb.cells.append(nbformat.v4.new_code_cell(REPORT))
    try:
        NotebookClient(nb, timeout=120, kernel_name="python3",
                       resources={"metadata": {"path": str(workspace)}}).execute()
    finally:
        nbformat.write(nb, workspace / f"{tutorial}.ipynb")  # to read after a failure
    return nb


def stream_text(cell: Any) -> str:
    return "".join(o.get("text", "") for o in cell.outputs if o.get("output_type") == "stream")


@pytest.mark.parametrize("tutorial", TUTORIALS)
@pytest.mark.parametrize("kind", ["this machine", "container", "no-bwrap"])
def test_tutorial_replays_on_another_machine(tutorial: str, kind: str, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    workspace, first = machine(kind, tmp_path, monkeypatch)
    nb = run(tutorial, workspace, first)

    # the run really was on the other machine: bash had no sandbox, and said why
    isolation = stream_text(nb.cells[-1])
    if kind == "this machine":
        here = isolation_status()
        assert isolation == f"isolation: {here.mode} | {here.detail}\n"
    elif kind == "container":
        assert isolation.startswith("isolation: none |"), isolation
        assert "No permissions to create new namespace" in isolation
    else:
        assert isolation.startswith("isolation: none |"), isolation
        assert "not installed" in isolation
    agent_cells = [c for c in nb.cells if c.cell_type == "code" and c.source.startswith("%%agent")]
    assert len(agent_cells) == TUTORIALS[tutorial]
    for cell in agent_cells:
        assert not [o for o in cell.outputs if o.get("name") == "stderr" or o.get("output_type") == "error"]
        bundles = [o["data"][TRANSCRIPT] for o in cell.outputs if TRANSCRIPT in o.get("data", {})]
        assert len(bundles) == 1
        assert bundles[0]["provenance"]["replay"] == f"{tutorial}.cassette.jsonl"
        # the cell's answer: the agent's last message, or a team member's (kept as its lane)
        assert (bundles[0]["messages"] and bundles[0]["messages"][-1]["role"] == "assistant"
                or any(x["messages"] for x in bundles[0].get("lanes", [])))
    # the whole cassette played: the last cell ends with the last recorded answer (a member's
    # floor turn, with no commander message, carries it in its lane)
    answer = last_answer(NOTEBOOKS / f"{tutorial}.cassette.jsonl")
    if bundles[0]["messages"]:
        assert bundles[0]["messages"][-1]["text"] == answer
    else:
        assert answer in json.dumps(bundles[0].get("lanes", []), ensure_ascii=False)


def last_answer(cassette: Path) -> str:
    last = json.loads(cassette.read_text(encoding="utf-8").splitlines()[-1])
    return "".join(e["text"] for e in last["events"] if e["type"] == "text")
