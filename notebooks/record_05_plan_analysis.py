"""Re-record ``05-plan-analysis.cassette.jsonl`` from its authored script.

Run it after a change that alters what the tutorial sends to the model (the commander's prompt or
tools, the plan's dispatch text, the agent files, the prompts): ``python
notebooks/record_05_plan_analysis.py``. It executes the notebook headless with the model replaced
by a recorder around a ``ScriptedModel``. The agents have no model of their own, so the commander
and the three agents ask the one recorder; the script answers each request from the script of the
agent whose system prompt it carries.
"""

from __future__ import annotations

import sys

from recording import HERE, ROUTED_RECORDER, SCRIPT_IMPORTS, main, routed_recorder

NOTEBOOK = HERE / "05-plan-analysis.ipynb"
CASSETTE = "05-plan-analysis.cassette.jsonl"

# which agent a request is from: the first whose mark its system prompt carries
ROUTES = (
    ("commander", "You are the commander of a team"),
    ("analyst", "You are the team's analyst"),
    ("researcher", "You are the team's researcher"),
    ("writer", "You are the team's writer"),
)

RECORDER = f'''
{SCRIPT_IMPORTS}
_steps = [
    {{"title": "Sales change per region", "assignee": "analyst", "wait_for": [],
     "input": "From data/sales.csv: each region's sales change from Q2 to Q3, in units and per cent."}},
    {{"title": "What the field reports say", "assignee": "researcher", "wait_for": [],
     "input": "From notes/field-reports.md: what happened in each region last quarter."}},
    {{"title": "Note for the team", "assignee": "writer", "wait_for": [1, 2],
     "input": "Write a three-sentence note for the team on which region fell most and why. "
              "Figures: {{{{step_1.output_summary}}}} Field reports: {{{{step_2.output_summary}}}}"}},
]
_scripts = {{
    "commander": [
        reply("", call("write_plan", title="Q3 sales: where and why", steps=_steps)),
        reply("The plan has three steps: the analyst computes each region's change and the researcher "
              "reads the field reports (side by side), then the writer turns both into a note. "
              "It runs as soon as this turn ends."),
        reply("Start with the **south**: sales fell 27.6% (98 to 71), and the field reports give two "
              "causes. The renovation is temporary, so the first thing to act on is the competitor "
              "near the station shop: a local offer there, before the renovated shops reopen."),
    ],
    "analyst": [
        reply("", call("read_file", path="data/sales.csv")),
        reply("From data/sales.csv, Q2 to Q3: north +6 (+5.0%), south -27 (-27.6%), "
              "east -4 (-2.8%), west +3 (+3.4%). The south fell most."),
    ],
    "researcher": [
        reply("", call("read_file", path="notes/field-reports.md")),
        reply("notes/field-reports.md: in the south, the two largest shops closed for renovation in "
              "August and a competitor opened next to the station shop in July; in the east, a late "
              "delivery in September (fixed)."),
    ],
    "writer": [
        reply("Sales in the south fell by more than a quarter last quarter, from 98 to 71. Two of our "
              "largest shops there were closed for renovation in August, and a competitor opened next "
              "to the station shop in July. The other regions held steady."),
    ],
}}

{routed_recorder(CASSETTE, "plan-analysis", ROUTES)}'''


if __name__ == "__main__":
    sys.exit(main(NOTEBOOK, CASSETTE, RECORDER, ROUTED_RECORDER))
