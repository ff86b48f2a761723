"""Kernel tools against a real kernel's namespace, display channel and payloads."""

from __future__ import annotations

import json

import pytest

from .kernel_harness import WidgetKernel

pytestmark = [pytest.mark.kernel, pytest.mark.slow]

TOOLS = r'''
import numpy as np
from orkas_nb.harness.tool_protocol import ToolContext
from orkas_nb.notebook.kernel_tools import kernel_tools
from orkas_nb.harness.approval import allow_all, deny_all
from pathlib import Path

KT = {t.name: t for t in kernel_tools(approver=allow_all)}
DENY = {t.name: t for t in kernel_tools(approver=deny_all)}
NONE = {t.name: t for t in kernel_tools()}

async def use(tools, _tool, **arguments):
    ctx = ToolContext(workspace=Path.cwd(), abort=AbortSignal(), call_id="c1")
    try:  # as the dispatcher does: a raising tool is an error observation
        out = await tools[_tool].execute(tools[_tool].validate(arguments), ctx)
    except Exception as exc:
        return {"text": f"Error: {type(exc).__name__}: {exc}", "error": True}
    return {"text": out.text, "error": out.is_error}
'''


def result_of(k: WidgetKernel, call: str) -> dict:
    k.stream_text.clear()
    k.run(f"import json as _j\n_r = await {call}\nprint(_j.dumps(_r))")
    return json.loads("".join(k.stream_text).splitlines()[-1])


@pytest.fixture(scope="module")
def tools_kernel(kernel: WidgetKernel) -> WidgetKernel:
    kernel.run(TOOLS)
    kernel.run("import pandas as pd\n"
               "frame = pd.DataFrame({'month': ['Jan', 'Feb', 'Mar'] * 10, 'revenue': range(30)})\n"
               "grid = np.arange(12.0).reshape(3, 4)\nconfig = {'alpha': 1, 'nested': {'k': [1, 2, 3]}}\n"
               "story = 'x' * 50_000\nclass Box: pass\nbox = Box(); box.inner = {'deep': 1}")
    return kernel


def test_list_variables_shows_shapes_and_sizes_not_internals(tools_kernel: WidgetKernel) -> None:
    r = result_of(tools_kernel, "use(KT, 'list_variables')")
    lines = {line.split(" | ")[0]: line for line in r["text"].splitlines()}
    assert lines["grid"] == "grid | numpy.ndarray | 3×4 | 96 B"
    assert lines["config"].startswith("config | dict | len 2 | ")
    assert "story" in lines and "len 50000" in lines["story"]
    assert lines["frame"].startswith("frame | pandas.DataFrame | 30×2 | ")
    for hidden in ("np", "In", "Out", "get_ipython", "exit", "_r"):
        assert hidden not in lines


def test_inspect_previews_are_capped_and_never_evaluate(tools_kernel: WidgetKernel) -> None:
    r = result_of(tools_kernel, "use(KT, 'inspect_variable', name='grid')")
    assert r["text"].startswith("numpy.ndarray, shape 3×4, 96 B\ndtype float64")
    assert "min 0.0, max 11.0, mean 5.5" in r["text"]
    r = result_of(tools_kernel, "use(KT, 'inspect_variable', name='frame')")
    assert r["text"].startswith("pandas.DataFrame, shape 30×2, ")
    assert "month: object" in r["text"] or "month: str" in r["text"]
    assert "revenue: int64" in r["text"] and "first rows:" in r["text"]
    assert len(r["text"].splitlines()) < 20  # the head, not the 30 rows
    r = result_of(tools_kernel, "use(KT, 'inspect_variable', name='frame.revenue')")
    assert r["text"].startswith("pandas.Series, shape 30, ") and "dtype int64" in r["text"]
    r = result_of(tools_kernel, "use(KT, 'inspect_variable', name='story', max_chars=500)")
    assert len(r["text"]) < 600 and "more chars" in r["text"]
    r = result_of(tools_kernel, "use(KT, 'inspect_variable', name='box.inner')")
    assert "'deep': 1" in r["text"]
    r = result_of(tools_kernel, "use(KT, 'inspect_variable', name='__import__(\"os\").getcwd()')")
    assert r["error"] and "is not a variable name" in r["text"]
    r = result_of(tools_kernel, "use(KT, 'inspect_variable', name='missing')")
    assert r["error"] and "no variable named 'missing'" in r["text"]


def test_run_python_without_consent_runs_nothing(tools_kernel: WidgetKernel) -> None:
    for tools in ("DENY", "NONE"):
        r = result_of(tools_kernel, f"use({tools}, 'run_python', code='sneaky = 1')")
        assert r["error"] and "nothing was run" in r["text"]
    tools_kernel.run("assert 'sneaky' not in globals()")


def test_run_python_captures_output_errors_and_shows_displays(tools_kernel: WidgetKernel) -> None:
    code = "import sys\nprint('hello')\nprint('warn', file=sys.stderr)\nfrom IPython.display import HTML\n" \
           "display(HTML('<b>shown</b>'))\nmade = [1, 2]\nlen(made) * 10"
    tools_kernel.stream_text.clear()
    ex = tools_kernel.run(f"_r = await use(KT, 'run_python', code={code!r})")
    r = result_of(tools_kernel, "asyncio.sleep(0, _r)")
    assert not r["error"]
    assert "stdout:\nhello" in r["text"] and "stderr:\nwarn" in r["text"]
    assert "text/html shown in the cell" in r["text"] and "20" in r["text"]
    # the display and the last value went to the cell, as in a cell of the user's
    shown = [o["data"] for o in ex.outputs if o["msg_type"] == "display_data"]
    assert any("<b>shown</b>" in d.get("text/html", "") for d in shown)
    assert any(d.get("text/plain") == "20" for d in shown)
    tools_kernel.run("assert made == [1, 2]")

    r = result_of(tools_kernel, "use(KT, 'run_python', code='x = 1\\n1 / 0')")
    assert r["error"] and "ZeroDivisionError: division by zero (line 2)" in r["text"]
    r = result_of(tools_kernel, "use(KT, 'run_python', code='await asyncio.sleep(0)\\nawaited = 5')")
    assert not r["error"]
    r = result_of(tools_kernel, "use(KT, 'run_python', code='def broken(:')")
    assert r["error"] and "SyntaxError" in r["text"]
    tools_kernel.run("assert awaited == 5")


def test_run_python_keeps_other_threads_output_out_of_the_observation(tools_kernel: WidgetKernel) -> None:
    """A kernel thread that writes to stderr while the code runs (logging, comm handling) is
    not the code's output: the model sees only what the code printed (and a replay matches)."""
    tools_kernel.run(
        "import threading, sys, time\n"
        "_noisy = threading.Event()\n"
        "def _chatter():\n"
        "    while not _noisy.is_set():\n"
        "        print('kernel thread chatter', file=sys.stderr)\n"
        "        time.sleep(0.005)\n"
        "threading.Thread(target=_chatter, daemon=True).start()")
    try:
        code = "import time\nprint('mine')\ntime.sleep(0.3)\nprint('also mine')"
        tools_kernel.run(f"_r = await use(KT, 'run_python', code={code!r})")
    finally:
        tools_kernel.run("_noisy.set(); time.sleep(0.05)")
    r = result_of(tools_kernel, "asyncio.sleep(0, _r)")
    assert r["text"] == "stdout:\nmine\nalso mine\n", r["text"]


def test_propose_cell_sets_the_next_input_and_tells_the_model_when(tools_kernel: WidgetKernel) -> None:
    ex = tools_kernel.run("_r = await use(KT, 'propose_cell', code='df.describe()')")
    payloads = ex.reply["content"]["payload"]
    assert {"source": "set_next_input", "text": "df.describe()", "replace": False} in payloads
    tools_kernel.run("assert 'only when the whole %%agent cell has finished' in _r['text']\n"
                     "assert 'only when the whole' in KT['propose_cell'].description")


def test_run_python_plots_appear_in_the_cell(tools_kernel: WidgetKernel) -> None:
    tools_kernel.run("%matplotlib inline")
    code = "import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])\nplt.title('trend')"
    ex = tools_kernel.run(f"_r = await use(KT, 'run_python', code={code!r})")
    images = [o["data"] for o in ex.outputs if o["msg_type"] == "display_data" and "image/png" in o["data"]]
    assert len(images) == 1 and len(images[0]["image/png"]) > 1000
    r = result_of(tools_kernel, "asyncio.sleep(0, _r)")
    assert "image/png shown in the cell" in r["text"] and not r["error"]


def test_the_kernel_interrupt_stops_busy_agent_code_and_the_run(tools_kernel: WidgetKernel) -> None:
    import time

    tools_kernel.run(r'''
from orkas_nb.harness.approval import allow_all
model = ScriptedModel([reply("Spinning.", call("run_python", code="n = 0\nwhile True:\n    n += 1")),
                       reply("never asked")])
agent = Agent(model, tools=kernel_tools(approver=allow_all), default_tools=False)
''')
    ex = tools_kernel.start("result, view = await drive(agent, 'spin')")
    tools_kernel.pump(lambda: any(c.state.get("titles", ("",))[0].startswith("⏳ run_python")
                                  for c in tools_kernel.find("orkas-tool")), timeout=30, what="run_python")
    time.sleep(0.3)  # let the loop spin
    sent = time.time()  # the kernel stamps its messages with this clock
    tools_kernel.interrupt()
    tools_kernel.wait(ex, timeout=30)
    assert ex.idle_sent - sent < 2.0  # users feel ~1 s; typical 0.15 s, margin for a loaded CI
    tools_kernel.run(r'''
assert result.stop_reason == "cancelled", result
assert n > 0 and len(model.requests) == 1
from orkas_nb.harness.repair import open_calls
assert open_calls(agent.messages) == [] and "KeyboardInterrupt" in agent.messages[2].text
''')
