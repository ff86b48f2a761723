"""Notebook cells the browser tests run: a scripted model, the magic, the views."""

from __future__ import annotations

# What a user writes: the magic registers the package's views (the run view among them) itself.
SETUP = """\
%load_ext orkas_nb
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

# Priced as gpt-4o-mini (usage per response), so the run bar shows tokens and cost mid-run.
STREAMING_MODEL = f"""\
from orkas_nb.core.messages import Usage
model = ScriptedModel([
    reply("I will read the notes first.\\n\\n", call("read_file", path="notes.txt"), delay_s=0.05,
          usage=Usage(input_tokens=1200, output_tokens=30)),
    reply({ANSWER!r}, chunk_chars=4, delay_s=0.06, usage=Usage(input_tokens=1500, output_tokens=120)),
])
model.default_model = "gpt-4o-mini"
"""

APPROVAL_MODEL = """\
model = ScriptedModel([
    reply("I need to run some Python.", call("run_python", code="answer = 6 * 7\\nprint(answer)")),
    reply("The answer is computed: **42**, and it is stored in `answer`.", chunk_chars=6, delay_s=0.03),
])
"""

# A real MCP server (mcp-server-time, the test extra) approved in the cell, with the user's
# config folder (consent, the always-allowed pairs) kept in {config}, outside the workspace.
# The first run with a connector answers the front-end handshake late (~2.5 s measured here,
# against 0.04 s idle): past the 3 s the lab fixture allows on a loaded machine it falls back
# to the built-in widgets, which this test is not about; a longer wait for this kernel only.
MCP_SETUP = """\
import os
os.environ["ORKAS_CONFIG_DIR"] = {config!r}
os.environ["ORKAS_KEYRING"] = "0"
os.environ["ORKAS_HANDSHAKE_TIMEOUT"] = "30"  # see below
%agent mcp add time mcp-server-time --local-timezone UTC
%agent mcp test time --yes
"""

MCP_MODEL = """\
model = ScriptedModel([
    reply("The time in Tokyo first.", call("mcp__time__get_current_time", timezone="Asia/Tokyo")),
    reply("And in Lisbon.", call("mcp__time__get_current_time", timezone="Europe/Lisbon")),
    reply("Both clocks are read: " + "Tokyo is ahead of Lisbon by many hours today. " * 12,
          chunk_chars=6, delay_s=0.05),
])
"""

LONG_CODE_MODEL = """\
model = ScriptedModel([
    reply("Running the long job.", call("run_python", code="import time\\nfor i in range(600):\\n    time.sleep(0.1)")),
    reply("unreachable"),
])
"""

STOP_MODEL = """\
model = ScriptedModel([
    reply("counting " + " ".join(str(i) for i in range(2000)), chunk_chars=5, delay_s=0.05),
])
"""

AGENT_CELL = "%%agent -m $model\nRead notes.txt and summarise it."

# The plan view over the real executor: a team's agents answer from the loopback model server
# (tests/fakes/model_server.py), scripted per member by the test; {url} is the server's.
PLAN_SETUP = """\
%load_ext orkas_nb
from orkas_nb.providers.openai_chat import OpenAIChatProvider
from orkas_nb.providers.auth import StaticKey
p = OpenAIChatProvider(base_url={url!r}, token_source=StaticKey("sk-test"))
p.default_model = "gpt-4o-mini"
"""

PLAN_CELL = "%%agent --plan -m $p\nAnalyse the onboarding survey."

PLAN_STEPS = [
    {"title": "Count the answers", "assignee": "researcher", "wait_for": []},
    {"title": "Read the interviews", "assignee": "writer", "wait_for": []},
    {"title": "Choose the chart style", "assignee": "user", "wait_for": [],
     "form": {"prompt": "Which chart style?",
              "fields": [{"name": "style", "kind": "choice", "choices": ["bar", "line"]}]}},
    {"title": "Write the summary", "assignee": "writer", "wait_for": [1, 2, 3],
     "input": "Survey: {{step_1.output_summary}} Interviews: {{step_2.output_summary}}"},
]
