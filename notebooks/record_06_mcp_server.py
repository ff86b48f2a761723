"""Re-record ``06-mcp-server.cassette.jsonl`` from its authored script.

Run it after a change that alters what the tutorial sends to the model (the MCP tools' names,
descriptions or results, the system prompt, the prompts): ``python notebooks/record_06_mcp_server.py``.
It executes the notebook headless with the model replaced by a recorder around a ``ScriptedModel``
that plays the answers below; the glossary server really runs and really answers.
"""

from __future__ import annotations

import sys

from recording import HERE, main

NOTEBOOK = HERE / "06-mcp-server.ipynb"
CASSETTE = "06-mcp-server.cassette.jsonl"

RECORDER = f'''
from orkas_nb import RecordingProvider
from orkas_nb.testing import ScriptedModel, call, reply

_recorder = RecordingProvider(ScriptedModel([
    reply("", call("mcp__glossary__lookup", term="idempotent")),
    reply("In your glossary, **idempotent** means an operation that gives the same result however "
          "many times it runs (from the glossary server's `lookup`)."),
    reply("", call("mcp__glossary__glossary_stats")),
    reply("The glossary holds **3 terms**, and yes: the server was given its token "
          "(`token_set` is true), without the token's value ever reaching me."),
]), {CASSETTE!r}, model="mcp-tour",
   note="authored: a ScriptedModel script, not a real model's answers")
del RecordingProvider, ScriptedModel, call, reply
'''


if __name__ == "__main__":
    sys.exit(main(NOTEBOOK, CASSETTE, RECORDER, "_recorder"))
