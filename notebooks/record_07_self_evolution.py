"""Re-record ``07-self-evolution.cassette.jsonl`` from its authored script.

Run it after a change that alters what the tutorial sends to the model (the reflection's prompt,
tools or summary, the agent file, the prompts): ``python notebooks/record_07_self_evolution.py``.
It executes the notebook headless with the model replaced by a recorder around a
``ScriptedModel`` that answers the researcher and the reflection, each from its own script.
"""

from __future__ import annotations

import sys

from recording import HERE, main

NOTEBOOK = HERE / "07-self-evolution.ipynb"
CASSETTE = "07-self-evolution.cassette.jsonl"

RECORDER = f'''
from orkas_nb import RecordingProvider
from orkas_nb.testing import ScriptedModel, call, reply

_SKILL = """---
name: units-always
description: Use whenever you report a number read from a data file.
---
Every number you report carries its unit, taken from the column name (latency_ms: ms).
Say which file and how many rows it comes from.
"""

_scripts = {{
    "researcher": [
        reply("", call("read_file", path="data/latency.csv")),
        reply("The average latency is 182."),
        reply("", call("read_file", path="data/latency.csv")),
        reply("The average latency is 182 ms, over 5 requests (data/latency.csv)."),
        reply("", call("skill", name="units-always")),
        reply("", call("read_file", path="data/latency.csv")),
        reply("The highest latency is 240 ms (request e), over 5 requests (data/latency.csv)."),
    ],
    "reflection": [
        reply("", call("write_skill", name="units-always", text=_SKILL),
              call("update_profile", text="Weak: reported numbers without their unit once; "
                                          "the user had to ask again.")),
        reply("Added units-always: the user asked again for an answer that lacked its unit."),
    ],
}}


def _answer(request):
    if "You review how the agent" in request.system:
        who = "reflection"
    elif "You are the team's researcher" in request.system:
        who = "researcher"
    else:
        raise AssertionError("a request from no agent of the script: " + request.system[:200])
    if not _scripts[who]:
        raise AssertionError(who + " was asked once more than its script allows")
    return _scripts[who].pop(0)


_recorder = RecordingProvider(ScriptedModel(_answer), {CASSETTE!r}, model="self-evolution",
                              note="authored: a ScriptedModel script, not a real model's answers")
del RecordingProvider, ScriptedModel, call, reply
'''


if __name__ == "__main__":
    sys.exit(main(NOTEBOOK, CASSETTE, RECORDER, "_recorder"))
