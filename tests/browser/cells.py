"""Notebook cells the browser tests run: a scripted model, the magic, the views."""

from __future__ import annotations

# Until the magic registers the lab view on %load_ext, the setup registers it explicitly
# (register() is idempotent, so this stays correct once it does).
SETUP = """\
%load_ext orkas_nb
import orkas_nb.notebook.live as _live
import orkas_nb.notebook.lab.plugin as _lab
_live.register(); _lab.register()
from orkas_nb.testing import ScriptedModel, reply, call
"""

ANSWER = (
    "## Summary of notes.txt\n\n"
    "The file lists **three** things to do before Friday. First, finish the report on the "
    "quarterly numbers; second, book the room for the review; third, send the draft to Ana.\n\n"
    "```python\n"
    "todo = ['report', 'room', 'draft']\n"
    "print(len(todo))\n"
    "```\n\n"
    "Nothing in the file is overdue yet, and none of the items depends on another one, "
    "so they can be done in any order this week."
)

STREAMING_MODEL = f"""\
model = ScriptedModel([
    reply("I will read the notes first.\\n\\n", call("read_file", path="notes.txt"), delay_s=0.05),
    reply({ANSWER!r}, chunk_chars=4, delay_s=0.06),
])
"""

APPROVAL_MODEL = """\
model = ScriptedModel([
    reply("I need to run some Python.", call("run_python", code="answer = 6 * 7\\nprint(answer)")),
    reply("The answer is computed: **42**, and it is stored in `answer`.", chunk_chars=6, delay_s=0.03),
])
"""

STOP_MODEL = """\
model = ScriptedModel([
    reply("counting " + " ".join(str(i) for i in range(2000)), chunk_chars=5, delay_s=0.05),
])
"""

AGENT_CELL = "%%agent -m $model\nRead notes.txt and summarise it."
