"""Re-record ``03-knowledge-and-memory.cassette.jsonl`` from its authored script.

Run it after a change that alters what the tutorial sends to the model (the knowledge base's
search results, the memory tool, the system prompt, the prompts):
``python notebooks/record_03_knowledge_and_memory.py``. It executes the notebook headless with
the model replaced by a recorder around a ``ScriptedModel`` that plays the answers below.
"""

from __future__ import annotations

import sys

from recording import HERE, main

NOTEBOOK = HERE / "03-knowledge-and-memory.ipynb"
CASSETTE = "03-knowledge-and-memory.cassette.jsonl"

RECORDER = f'''
from orkas_nb import RecordingProvider
from orkas_nb.testing import ScriptedModel, call, reply

_recorder = RecordingProvider(ScriptedModel([
    reply("Let me look in your documents.", call("kb_search", query="2.0 release date", k=2)),
    reply("", call("kb_search", query="data migration owner and risks", k=2)),
    reply("The 2.0 release moved from 1 December 2026 to **15 January 2027**, because the data "
          "migration is not ready (docs/meeting-2026-11-02.md:1-9). **Ana** owns the data "
          "migration (docs/migration.md:1-12); Ben owns the release notes."),
    reply("", call("memory", action="add", target="notes",
                   content="2.0 release: 2027-01-15 (moved from 2026-12-01); feature freeze "
                           "2027-01-08; data migration owner: Ana.")),
    reply("- Saved to the project notes: the 2.0 release is on 2027-01-15, feature freeze "
          "2027-01-08.\\n"
          "- Migration risks (docs/migration.md:1-12):\\n"
          "  - the `orders` export takes about six hours (40 million rows);\\n"
          "  - the old tables keep totals in cents, the new warehouse in euros: convert before "
          "comparing totals."),
]), {CASSETTE!r}, model="kb-tour",
   note="authored: a ScriptedModel script, not a real model's answers")
del RecordingProvider, ScriptedModel, call, reply
'''


if __name__ == "__main__":
    sys.exit(main(NOTEBOOK, CASSETTE, RECORDER, "_recorder"))
