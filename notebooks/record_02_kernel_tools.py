"""Re-record ``02-kernel-tools-and-approvals.cassette.jsonl`` from its authored script.

Run it after a change that alters what the tutorial sends to the model (the kernel tools, the
system prompt, the prompts): ``python notebooks/record_02_kernel_tools.py``. It executes the
notebook headless with the model replaced by a recorder around a ``ScriptedModel`` that plays
the answers below, so the cassette holds exactly the requests the notebook makes; the user's
approval answers (authored too) are recorded beside it.
"""

from __future__ import annotations

import sys

from recording import HERE, main

NOTEBOOK = HERE / "02-kernel-tools-and-approvals.ipynb"
CASSETTE = "02-kernel-tools-and-approvals.cassette.jsonl"

RECORDER = f'''
from orkas_nb import RecordingProvider
from orkas_nb.core.messages import ToolCallBlock
from orkas_nb.testing import ScriptedModel, call, reply

PLOT = """for month, value in sales.items():
    print(f"{{month}} {{'#' * (value // 10)}} {{value}}")"""

_recorder = RecordingProvider(ScriptedModel([
    reply("Let me see what is in your kernel.", call("list_variables")),
    # call()'s first parameter is the tool's name, so an argument called "name" is spelt out
    reply("", ToolCallBlock(id="call_inspect", name="inspect_variable", arguments={{"name": "sales"}})),
    reply("I'll compute it in your kernel.", call(
        "run_python",
        code="average = sum(sales.values()) / len(sales)\\n"
             "weakest = min(sales, key=sales.get)\\n"
             "print(f'weakest {{weakest}} ({{sales[weakest]}}), average {{average:.1f}}')")),
    reply("June was the weakest month (70). The average is 105.8; it is in `average`."),
    reply("", call("run_python", code=PLOT)),
    reply("You did not allow running code, so here it is as a cell to review.",
          call("propose_cell", code=PLOT)),
    reply("The cell below draws the bars as text; run it if it looks right to you."),
]), {CASSETTE!r}, model="kernel-tour",
   note="authored: a ScriptedModel script, not a real model's answers")
# the agent lists the user's variables: leave none of the recorder's behind
del RecordingProvider, ToolCallBlock, ScriptedModel, call, reply, PLOT
'''

# The user's answers, authored like the model's: allow the first run_python, deny the second.
# Put after the tutorial's setup cell. The package's views register on first use: load them
# first, so registering "widgets" again replaces the live view's approver for this recording.
ANSWERS = f'''
from orkas_nb.notebook import plugins as _plugins
_plugins.load_builtin()
from orkas_nb.notebook.approvals.widgets import RecordingApprover as _Recording, approvals_path as _path
_answers = iter(["once", "deny"])
_plugins.register_approver("widgets", lambda ctx, view: _Recording(lambda request: next(_answers),
                                                                   _path({CASSETTE!r})))
'''


if __name__ == "__main__":
    sys.exit(main(NOTEBOOK, CASSETTE, RECORDER, "_recorder", after_model_cell=ANSWERS,
                  extra_files=(CASSETTE + ".approvals.jsonl",)))
