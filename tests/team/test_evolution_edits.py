"""The record of files agents wrote (names and hashes) survives kill -9 and damage."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from orkas_nb.team.evolution.edits import Written, WrittenFiles

ROOT = Path(__file__).resolve().parents[2]

CHILD = """
import sys
from pathlib import Path
from orkas_nb.team.evolution.edits import WrittenFiles
ws = Path(sys.argv[1]); record = WrittenFiles(ws); i = 0
while True:
    (ws / f"f{i % 50}.md").write_text(f"v{i}")
    record.claim("researcher", [f"f{i % 50}.md"]); i += 1
    if i == 20:
        (ws / "started").write_text("")
"""


def test_a_kill_9_mid_claim_leaves_a_loadable_record(workspace):
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(workspace)], env=env)
    try:
        deadline = time.monotonic() + 60
        while not (workspace / "started").exists() and time.monotonic() < deadline:
            assert child.poll() is None
            time.sleep(0.02)
        time.sleep(0.3)
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    record = WrittenFiles(workspace)
    raw = Written.model_validate_json(record.path.read_bytes())  # whole, never torn
    assert len(raw.files) >= 20 and {w for w, _ in raw.files.values()} == {"researcher"}
    assert record.edited("researcher") is not None  # and it reads back through the API


def test_a_damaged_record_is_an_empty_one_and_the_next_claim_replaces_it(workspace):
    record = WrittenFiles(workspace)
    record.path.parent.mkdir(parents=True)
    record.path.write_bytes(b'{"files": {"a.md": ["researcher", "ab')  # torn
    assert record.edited("researcher") == []
    (workspace / "a.md").write_text("mine")
    record.claim("researcher", ["a.md"])
    (workspace / "a.md").write_text("the user's")
    assert record.edited("researcher") == ["a.md"]
    assert record.edited("researcher") == []  # one edit, one correction


def test_the_last_writer_owns_a_file_and_a_deleted_file_is_forgotten(workspace):
    record = WrittenFiles(workspace)
    for name in ("a.md", "b.md"):
        (workspace / name).write_text("x")
    record.claim("researcher", ["a.md", "b.md"])
    record.claim("writer", ["./a.md"])  # the same file, spelled another way
    (workspace / "a.md").write_text("edited")
    (workspace / "b.md").unlink()
    assert record.edited("researcher") == []
    assert record.edited("writer") == ["a.md"]
    assert record.load().files == {}
