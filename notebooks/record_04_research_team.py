"""Re-record ``04-research-team.cassette.jsonl`` from its authored script.

Run it after a change that alters what the tutorial sends to the model (the commander's prompt or
tools, the agent files, the prompts): ``python notebooks/record_04_research_team.py``. It executes
the notebook headless with the model replaced by a recorder around a ``ScriptedModel``. The
members have no model of their own, so the commander and both members ask the one recorder; the
two parallel dispatches ask it in no fixed order, so the script answers each request from the
script of the agent whose system prompt it carries (the replay then matches each recorded call by
its content, in whatever order the members ask).
"""

from __future__ import annotations

import sys

from recording import HERE, ROUTED_RECORDER, SCRIPT_IMPORTS, main, routed_recorder

NOTEBOOK = HERE / "04-research-team.ipynb"
CASSETTE = "04-research-team.cassette.jsonl"

# which agent a request is from: the first whose mark its system prompt carries
ROUTES = (
    ("commander", "You are the commander of a team"),
    ("researcher", "You are the team's researcher"),
    ("writer", "You are the team's writer"),
)

RECORDER = f'''
{SCRIPT_IMPORTS}
_scripts = {{
    "commander": [
        reply("I'll ask both at once.",
              call("dispatch_to", agent="researcher",
                   task="From data/survey.csv: the satisfaction score and the number of answers per team."),
              call("dispatch_to", agent="writer",
                   task="Draft a two-sentence summary of notes/interviews.md for the team newsletter.")),
        reply("Onboarding went well on people, less well on logistics.\\n\\n"
              "- **Survey** (data/survey.csv): sales 4.2, engineering 3.8, support **3.1** out of 5; "
              "44 answers in all.\\n"
              "- **Interviews** (notes/interviews.md): new hires liked the buddy system, but five of "
              "eight found the first week too long on paperwork, and three support hires had no "
              "laptop on day one.\\n\\n"
              "The support team's low score matches the missing laptops: that is the first thing to fix."),
        reply("", call("hand_off_to", agent="writer",
                       message="The user wants to work on the newsletter paragraph about onboarding with you.")),
        # after the hand-back the commander's turn resumes with the writer's last reply
        reply("The newsletter paragraph is settled. Ask me again for anything else on onboarding."),
    ],
    "researcher": [
        reply("", call("read_file", path="data/survey.csv")),
        reply("Satisfaction (out of 5) and answers per team, from data/survey.csv: sales 4.2 (9), "
              "engineering 3.8 (21), support 3.1 (14); 44 answers in all."),
        reply("Support is least satisfied: 3.1 out of 5, from 14 answers (data/survey.csv)."),
    ],
    "writer": [
        reply("", call("read_file", path="notes/interviews.md")),
        reply("New hires loved having a buddy in their first weeks. But many spent too long on "
              "paperwork, and some support hires started without a laptop."),
        reply("Here is a first go at the paragraph:\\n\\n"
              "Our newest colleagues say the buddy system made them feel at home from day one. "
              "The first week still holds too much paperwork, and three people in support started "
              "without a laptop. We are fixing both before the next hires arrive.\\n\\n"
              "Tell me what to change."),
        reply("Our new colleagues love the buddy system, but the first week holds too much "
              "paperwork and some support hires had no laptop. Support rated onboarding 3.1 out "
              "of 5, the lowest score, and we are fixing both before the next hires arrive.\\n"
              "<handback />"),
    ],
}}

{routed_recorder(CASSETTE, "research-team", ROUTES)}'''


if __name__ == "__main__":
    sys.exit(main(NOTEBOOK, CASSETTE, RECORDER, ROUTED_RECORDER))
