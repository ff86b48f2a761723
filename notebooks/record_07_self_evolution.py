"""Re-record ``07-self-evolution.cassette.jsonl`` from its authored script.

Run it after a change that alters what the tutorial sends to the model (the reflection's prompt,
tools or summary, the agent file, the prompts): ``python notebooks/record_07_self_evolution.py``.
It executes the notebook headless with the model replaced by a recorder around a
``ScriptedModel`` that answers the researcher and the reflection, each from its own script.
"""

from __future__ import annotations

import sys

from recording import HERE, ROUTED_RECORDER, SCRIPT_IMPORTS, main, routed_recorder

NOTEBOOK = HERE / "07-self-evolution.ipynb"
CASSETTE = "07-self-evolution.cassette.jsonl"

# which agent a request is from: the first whose mark its system prompt carries
ROUTES = (
    ("reflection", "You review how the agent"),
    ("researcher", "You are the team's researcher"),
)

RECORDER = f'''
{SCRIPT_IMPORTS}
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

{routed_recorder(CASSETTE, "self-evolution", ROUTES)}'''


if __name__ == "__main__":
    sys.exit(main(NOTEBOOK, CASSETTE, RECORDER, ROUTED_RECORDER))
