"""Re-record ``01-quickstart.cassette.jsonl`` from its authored script.

Run it after a change that alters what the quickstart sends to the model (the default tools,
the system prompt, the prompts): ``python notebooks/record_01_quickstart.py``. It executes the
notebook headless with the model replaced by a recorder around a ``ScriptedModel`` that plays
the answers below, so the cassette holds exactly the requests the notebook makes.
"""

from __future__ import annotations

import sys

from recording import HERE, main

NOTEBOOK = HERE / "01-quickstart.ipynb"
CASSETTE = "01-quickstart.cassette.jsonl"

RECORDER = f'''
from orkas_nb import RecordingProvider
from orkas_nb.testing import ScriptedModel, call, reply

recorder = RecordingProvider(ScriptedModel([
    reply("Let me read the file.", call("read_file", path="sales.csv")),
    reply("Three months are under 100: Feb (95), Apr (80) and Jun (70). I'll write them down.",
          call("write_file", path="weak_months.md",
               content="# Months below 100\\n\\n- Feb: 95\\n- Apr: 80\\n- Jun: 70\\n")),
    reply("Feb (95), Apr (80) and Jun (70) fell below 100. I saved them to `weak_months.md`."),
    reply("June was the weakest, at 70 — 30 under the target."),
]), {CASSETTE!r}, model="quickstart",
   note="authored: a ScriptedModel script, not a real model's answers")
'''


if __name__ == "__main__":
    sys.exit(main(NOTEBOOK, CASSETTE, RECORDER, "recorder"))
