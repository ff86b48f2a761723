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

PLAN_SETUP = """\
import asyncio
from orkas_nb.notebook.lab import FormField, Plan, PlanStep, PlanWidget, StepForm
plan = Plan(title="Quarterly report", steps=[
    PlanStep(index=0, title="Load sales.csv", assignee="analyst"),
    PlanStep(index=1, title="Find the weakest months", assignee="analyst", wait_for=[0]),
    PlanStep(index=2, title="Plot them", assignee="plotter", wait_for=[1]),
    PlanStep(index=3, title="Choose the chart style", assignee="user", wait_for=[0],
             form=StepForm(prompt="Which chart style?",
                           fields=[FormField(name="style", kind="choice", choices=["bar", "line"])])),
    PlanStep(index=4, title="Write the summary", assignee="commander", wait_for=[2, 3]),
])
w = PlanWidget(plan)
actions = []
def on_action(a):
    actions.append((a.action, a.step, dict(a.values)))
    if a.action == "answer":
        w.set_step(a.step, status="done", output_summary=f"style={a.values['style']}")
    elif a.action == "retry":
        w.set_step(a.step, status="running", failure_reason="")
    elif a.action == "skip":
        w.set_step(a.step, status="skipped")
w.on_action(on_action)
w
"""

PLAN_SCRIPT = """\
for index, status in [(0, "running"), (0, "done"), (1, "running"), (3, "blocked"),
                      (1, "done"), (2, "running"), (2, "failed")]:
    await asyncio.sleep(0.4)
    w.set_step(index, status=status,
               **({"failure_reason": "matplotlib is missing"} if status == "failed" else {}))
w.set_state("paused")
"""

PLAN_CHECK = "print(actions)"

# A finished run's transcript with a plan snapshot (the teams engine will add ``plan``; readers
# ignore fields they do not know, and this one draws it).
PLAN_TRANSCRIPT = """\
from IPython.display import display
display({"application/vnd.orkas.transcript+json": {
    "schema_version": 1, "agent": "commander", "status": "end_turn", "duration_s": 3.2,
    "messages": [{"role": "user", "text": "Make the quarterly report"},
                 {"role": "assistant", "text": "The plan is **done**."}],
    "plan": w.plan},
    "text/plain": "orkas transcript"}, raw=True)
"""
