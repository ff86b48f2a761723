"""%%agent and %agent in a real kernel (one kernel shared by the module's tests)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orkas_nb.harness.session import JsonlSession
from orkas_nb.notebook.views.transcript import Transcript

from .kernel import MIME, Kernel

pytestmark = [pytest.mark.kernel, pytest.mark.slow]


def test_the_magic_runs_a_tool_loop_in_the_notebooks_folder(kernel: Kernel, ws: Path) -> None:
    kernel.run('''
m = ScriptedModel([
    reply("Reading it.", call("read_file", path="data.txt")),
    reply("Saving.", call("write_file", path="out/summary.txt", content="3 words")),
    reply("data.txt has three words; I saved that to out/summary.txt."),
])''')
    cell = kernel.run("%%agent -m $m -s tools\nWhat is in data.txt?")
    assert cell.status == "ok"
    assert (ws / "out" / "summary.txt").read_text() == "3 words"
    # The second model request carried the file's content back as the tool result.
    second = kernel.value("[x.text for x in m.requests[1].messages if x.role == 'tool']")
    assert any("beta" in t for t in second)
    t = Transcript.model_validate(kernel.transcript(cell))
    assert [m.role for m in t.messages] == ["user", "assistant", "tool", "assistant", "tool", "assistant"]
    assert [m.status for m in t.messages if m.role == "tool"] == ["ok", "ok"]
    assert t.output_files == ["out/summary.txt"]
    assert t.provenance.session == "tools" and t.provenance.session_file == ".orkas/sessions/tools.jsonl"
    assert all(m.duration_s is not None for m in t.messages if m.role == "tool")
    shown = kernel.shown(cell)[-1]
    assert "three words" in shown["text/markdown"] and "read_file" in shown["text/plain"]
    # What the cell shows is what was saved.
    saved = JsonlSession(ws / ".orkas/sessions/tools.jsonl", readonly=True).messages
    assert len(saved) == 6 and saved[-1].text == t.messages[-1].text


def test_references_reach_the_model_without_touching_exception_handling(kernel: Kernel) -> None:
    kernel.run("x = 41 + 1\nm = ScriptedModel([reply('ok')])")
    produced = kernel.run("[n * n for n in range(4)]")
    n = produced.reply["execution_count"]
    failed = kernel.run("1 / 0", allow_error=True)
    assert failed.status == "error" and failed.error["ename"] == "ZeroDivisionError"
    kernel.run(f"%%agent -m $m --no-tools\nx={{x}} out={{Out[{n}]}} in={{In[{n}]}} "
               "keep={unknown} lit={{x}} json={\"a\": 1}\nerror: {last_error}")
    prompt = kernel.value("last_prompt(m)")
    assert prompt.startswith("x=42 out=[0, 1, 4, 9] in=[n * n for n in range(4)] keep={unknown} "
                             'lit={x} json={"a": 1}\nerror: Traceback')
    assert "ZeroDivisionError: division by zero" in prompt and "1 / 0" in prompt
    assert "interactiveshell.py" not in prompt  # IPython's own frames are left out
    # The kernel's error handling is untouched: errors still show as errors afterwards.
    assert kernel.value("get_ipython().custom_exceptions == ()") is True
    again = kernel.run("undefined_name", allow_error=True)
    assert again.error["ename"] == "NameError" and again.error["traceback"]
    kernel.run("m = ScriptedModel([reply('ok')])")
    cell = kernel.run("%%agent -m $m --no-tools\nsee {Out[9999]}")
    assert kernel.value("last_prompt(m)") == "see {Out[9999]}"
    assert "{Out[9999]} does not exist" in kernel.shown(cell)[-1]["text/plain"]


BAD = [
    ("%%agent --bogus\nhi", "unrecognized arguments: --bogus"),
    ("%%agent -m\nhi", "argument -m/--model: expected one argument"),
    ("%%agent --new -s other\nhi", "use either --new or -s SESSION"),
    ("%%agent -m $nothing_here\nhi", "the notebook has no variable 'nothing_here'"),
    ('%%agent -s "unclosed\nhi', "No closing quotation"),
    ("%%agent -m $m\n   \n", "the cell has no prompt"),
    ("%agent frob", "unknown subcommand 'frob'"),
    ("%agent", "a subcommand is needed"),
    ("%agent use", "%agent use needs one session name"),
    ("%agent show a b", "takes at most one session name"),
    ("%agent stop", "no background run to stop"),
    ("%agent stop one two", "%agent stop takes at most one session name"),
    ("%agent allow /definitely/not/here", "is not a folder"),
]


def test_bad_magic_arguments_print_one_usage_line(kernel: Kernel) -> None:
    kernel.run("m = ScriptedModel([])")
    for code, expected in BAD:
        cell = kernel.run(code, allow_error=True)
        err = cell.stream("stderr").strip()
        assert err.startswith("UsageError: ") and "\n" not in err, (code, err)
        assert expected in err, (code, err)
        assert cell.error is None and "Traceback" not in err, code
    for code in ("%%agent -h\nignored", "%agent help"):
        shown = kernel.run(code).stream()
        assert shown.startswith("usage: %%agent [-m MODEL]") and "%agent sessions" in shown


def test_a_failed_run_and_a_missing_model_are_one_line_errors(kernel: Kernel) -> None:
    from orkas_nb.core.errors import RateLimitError  # noqa: F401 - the kernel imports its own

    kernel.run("from orkas_nb.core.errors import RequestError\n"
               "m = ScriptedModel([RequestError('the request was malformed', status=400)])")
    cell = kernel.run("%%agent -m $m --no-tools -s failing\nhi", allow_error=True)
    assert cell.error["traceback"] == ["orkas: the run failed: RequestError: the request was malformed"]
    t = Transcript.model_validate(kernel.transcript(cell))
    assert t.status == "error" and t.error.kind == "RequestError"
    cell = kernel.run("%%agent -m no-such-provider/x --no-tools\nhi", allow_error=True)
    assert cell.error is not None and cell.error["traceback"][0].startswith("orkas: ")
    kernel.run("%config Agent.renderer = 'nope'")
    try:
        kernel.run("m = ScriptedModel([reply('x')])")
        cell = kernel.run("%%agent -m $m --no-tools\nhi", allow_error=True)
        (line,) = cell.error["traceback"]
        assert line.startswith("orkas: no renderer named 'nope'; known: ") and "text" in line
    finally:
        kernel.run("%config Agent.renderer = 'text'")


def test_kernel_interrupt_ends_a_run_within_a_second(kernel: Kernel, ws: Path) -> None:
    kernel.run('m = ScriptedModel([reply("Waiting.", call("slow", seconds=60)), reply("after")])')
    cell = kernel.send("%%agent -m $m -s interrupted\nwait for it")
    kernel.pump(lambda: any("→ slow" in d.get("text/plain", "") for d in kernel.shown(cell))
                or cell.done, 30, "the tool to start")
    assert not cell.done, cell.outputs
    import time

    t0 = time.time()  # the kernel's reply is stamped with the same clock
    kernel.km.interrupt_kernel()
    kernel.pump(lambda: cell.done, 30, "the interrupted cell to end")
    took = cell.reply_sent - t0
    assert took < 2.0, f"the run took {took:.2f} s to end after the interrupt"  # typical 0.15 s; margin for CI
    assert cell.error["ename"] == "RunInterrupted"
    assert cell.error["traceback"] == ["RunInterrupted: the run was interrupted; the session is saved"]
    t = Transcript.model_validate(kernel.transcript(cell))
    assert t.status == "cancelled" and t.messages[-1].status == "interrupted"
    # The session is valid as saved (nothing left to repair) and the next cell continues it.
    session = JsonlSession(ws / ".orkas/sessions/interrupted.jsonl", readonly=True)
    assert session.repair_notes == []
    assert [m.role for m in session.messages] == ["user", "assistant", "tool"]
    kernel.run("%%agent -m $m -s interrupted\ngo on")
    assert kernel.value("roles(m)") == [["user", None], ["assistant", None], ["tool", "interrupted"],
                                        ["user", None]]


def test_background_runs_stream_after_the_cell_returns_and_obey_steer_and_stop(kernel: Kernel) -> None:
    kernel.run('m = ScriptedModel([reply("streaming " * 30, chunk_chars=10, delay_s=0.02)])')
    cell = kernel.run("%%agent -m $m --no-tools --background -s bg\nstream something")
    assert cell.status == "ok"
    done = kernel.run("r = await __import__('orkas_nb.notebook').notebook.wait(20); print(r.stop_reason)")
    assert done.stream().strip() == "end_turn"
    final = [d for t, i, d in kernel.display_log if MIME in d and t > cell.replied_at]
    assert final, "the transcript arrived after the cell had returned"
    assert "streaming streaming" in final[-1]["text/markdown"]
    # steer and stop reach a background run.
    kernel.run('m = ScriptedModel([reply("", call("slow", seconds=30)), reply("never")])')
    waiting = kernel.run("%%agent -m $m --background -s bg\nwait")
    kernel.pump(lambda: any("→ slow" in d.get("text/plain", "") for d in kernel.shown(waiting)),
                60, "the slow tool to start")  # not a 0.3 s sleep a loaded kernel may outlast
    out = kernel.run("%agent steer also count to three")
    assert "queued" in out.stream()
    kernel.run("%agent stop")
    r = kernel.run("r = await __import__('orkas_nb.notebook').notebook.wait(10); print(r.stop_reason)")
    assert r.stream().strip() == "cancelled"
    shown = kernel.run("%agent show bg").stream()
    assert "← slow [interrupted] [interrupted: stopped by the user (%agent stop)]" in shown
    assert "steer> also count to three" in shown


def test_two_background_runs_in_two_sessions_are_each_controllable(kernel: Kernel) -> None:
    kernel.run('m1 = ScriptedModel([reply("", call("slow", seconds=30)), reply("one done")])\n'
               'm2 = ScriptedModel([reply("", call("slow", seconds=30)), reply("two done")])')
    runs = [kernel.run("%%agent -m $m1 --background -s one\nwait"),
            kernel.run("%%agent -m $m2 --background -s two\nwait")]
    kernel.pump(lambda: all(any("→ slow" in d.get("text/plain", "") for d in kernel.shown(c))
                            for c in runs), 60, "both slow tools to start")
    listed = kernel.run("%agent sessions").stream()
    assert listed.count("(running in the background)") == 2, listed
    busy = kernel.run("%%agent -m $m1 -s one\nagain", allow_error=True)
    assert "a background run is still going in session 'one'" in busy.stream("stderr")
    # With two runs, steer needs to know which: the current session's run, if any.
    kernel.run("%agent use two")
    assert "session two" in kernel.run("%agent steer and then stop").stream()
    kernel.run("%agent use one")
    # Stop one by name: the other keeps going.
    assert "session one" in kernel.run("%agent stop one").stream()
    r = kernel.run("r = await __import__('orkas_nb.notebook').notebook.wait(10, session='one'); print(r.stop_reason)")
    assert r.stream().strip() == "cancelled"
    assert "(running in the background)" in kernel.run("%agent sessions").stream()
    missing = kernel.run("%agent stop one", allow_error=True)
    assert "no background run in session 'one' (running: two)" in missing.stream("stderr")
    # No name: every background run stops.
    assert "session two" in kernel.run("%agent stop").stream()
    r = kernel.run("r = await __import__('orkas_nb.notebook').notebook.wait(10, session='two'); print(r.stop_reason)")
    assert r.stream().strip() == "cancelled"
    assert "steer> and then stop" in kernel.run("%agent show two").stream()
    assert "no background run to stop" in kernel.run("%agent stop", allow_error=True).stream("stderr")


def test_without_top_level_await_the_run_is_a_task_on_the_kernels_loop(kernel: Kernel) -> None:
    kernel.run("%config Agent.top_level_await = False")
    try:
        kernel.run('m = ScriptedModel([reply("slowly " * 20, chunk_chars=7, delay_s=0.02)])')
        cell = kernel.run("%%agent -m $m --no-tools -s fallback\nstream")
        assert "run_cell_magic" in kernel.value("In[-2]")  # IPython's own cell magic path ran
        r = kernel.run("r = await __import__('orkas_nb.notebook').notebook.wait(20); print(r.stop_reason)")
        assert r.stream().strip() == "end_turn"
        late = [d for t, i, d in kernel.display_log if MIME in d and t > cell.replied_at]
        assert late and "slowly slowly" in late[-1]["text/plain"]
    finally:
        kernel.run("%config Agent.top_level_await = True")


def test_line_magics_manage_sessions_and_config(kernel: Kernel, ws: Path) -> None:
    kernel.run("%config Agent.model = '$m'")
    try:
        kernel.run("m = ScriptedModel([reply('one'), reply('two')])")
        kernel.run("%agent use notes")
        kernel.run("%%agent --no-tools\nfirst")
        listing = kernel.run("%agent sessions").stream()
        assert any(line.startswith("* notes ") for line in listing.splitlines()), listing
        assert " B " in listing and " ago" in listing  # size and last use
        shown = kernel.run("%agent show").stream()
        assert "session notes: 2 messages" in shown and "agent> one" in shown
        new = kernel.run("%agent new").stream()
        assert "new session: analysis-2" in new  # named from the working folder
        kernel.run("%%agent --no-tools\nsecond")
        assert kernel.value("len(m.requests[-1].messages)") == 1  # a fresh conversation
        assert "agent> one" in kernel.run("%agent show notes").stream()
        kernel.run("m = ScriptedModel([reply('three'), reply('four')])")
        kernel.run("%%agent -s elsewhere --no-tools\nthird")  # -s: this cell only
        kernel.run("%%agent --no-tools\nfourth")
        assert kernel.value("[x.text for x in m.requests[-1].messages]") == ["second", "two", "fourth"]
        kernel.run("m = ScriptedModel([reply('five')])")
        kernel.run("%%agent --new --no-tools\nfifth")  # --new: a fresh session, now current
        assert "* analysis-3 " in kernel.run("%agent sessions").stream()
        kernel.run("%agent use analysis-2")
        cleared = kernel.run("%agent clear").stream()
        assert "cleared session analysis-2 (4 messages)" in cleared
        assert (ws / ".orkas/sessions/analysis-2.jsonl").read_bytes() == b""
        config = kernel.run("%agent config").stream()
        assert "model            $m" in config and f"workspace        {ws}" in config
        assert "keys set         openrouter (OPENROUTER_API_KEY)" in config and "sk-test" not in config
        (ws.parent / "extra").mkdir(exist_ok=True)
        kernel.run("%agent allow ../extra")
        (allowed,) = [line for line in kernel.run("%agent config").stream().splitlines()
                      if line.startswith("allowed folders  ")]
        # among the others this shared kernel's earlier tests allowed (any order: pytest-randomly)
        assert str(ws.parent / "extra") in allowed.removeprefix("allowed folders  ").split(", ")
        bad = kernel.run("%config Agent.max_steps = 0", allow_error=True)
        assert "max_steps must be at least 1" in bad.stream("stderr") + json.dumps(bad.outputs)
    finally:
        kernel.run("%config Agent.model = ''")
        kernel.run("%agent use analysis")


def test_widget_messages_reach_the_kernel_while_the_cell_is_busy(kernel: Kernel) -> None:
    # The tool waits for a button click; the run can only end if the click is handled while
    # the %%agent cell is still running (SPEC 14.1: an awaited cell, not a blocking one).
    kernel.run('''
import ipywidgets
button, clicked = ipywidgets.Button(description="go"), asyncio.Event()
button.on_click(lambda _: clicked.set())

@tool
async def wait_for_click() -> str:
    """Wait until the user clicks the button."""
    await asyncio.wait_for(clicked.wait(), 20)
    return "clicked"

m = ScriptedModel([reply("", call("wait_for_click")), reply("The button was clicked.")])''')
    model_id = kernel.value("button.model_id")
    cell = kernel.send("%%agent -m $m -s click\nwait for the click")
    kernel.pump(lambda: any("→ wait_for_click" in d.get("text/plain", "") for d in kernel.shown(cell))
                or cell.done, 30, "the tool to start")
    assert not cell.done
    msg = kernel.kc.session.msg("comm_msg", {"comm_id": model_id,
                                             "data": {"method": "custom", "content": {"event": "click"}}})
    kernel.kc.shell_channel.send(msg)
    kernel.pump(lambda: cell.done, 20, "the run to end")
    assert cell.status == "ok"
    t = Transcript.model_validate(kernel.transcript(cell))
    assert [m.text for m in t.messages if m.role == "tool"] == ["clicked"]


def test_allowed_folders_reach_the_workspace_tools(kernel: Kernel, ws: Path) -> None:
    shared = ws.parent / "shared"
    shared.mkdir(exist_ok=True)
    (shared / "facts.txt").write_text("the sky is green\n")
    script = f'reply("", call("read_file", path={str(shared / "facts.txt")!r})), reply("done")'
    kernel.run(f"m = ScriptedModel([{script}, {script}])")
    refused = kernel.run("%%agent -m $m -s allow\nread the facts")
    before = Transcript.model_validate(kernel.transcript(refused)).messages[2]
    assert before.status != "ok" and "green" not in before.text
    kernel.run("%agent allow ../shared")
    allowed = kernel.run("%%agent -m $m -s allow\nread the facts again")
    after = Transcript.model_validate(kernel.transcript(allowed)).messages[2]
    assert after.status == "ok" and "the sky is green" in after.text
    home = kernel.run("%agent allow ~", allow_error=True).stream("stderr")
    assert home.startswith("UsageError: ") and "whole home folder" in home


def test_the_approval_policy_asks_denies_or_allows_in_a_real_kernel(kernel: Kernel, ws: Path) -> None:
    def scratch() -> Path:
        folder = ws / "scratch"
        folder.mkdir(exist_ok=True)
        (folder / "x.txt").write_text("x")
        return folder

    def run(answer: str | None, allow_stdin: bool = True) -> tuple[str, list[str]]:
        kernel.run('m = ScriptedModel([reply("", call("bash", command="rm -r scratch")), reply("ok")])')
        asked: list[str] = []

        def on_stdin(request: dict) -> str:
            asked.append(request["prompt"])
            return answer or ""

        cell = kernel.send("%%agent -m $m -s approvals\nclean up", allow_stdin=allow_stdin)
        kernel.pump(lambda: cell.done, 60, "the run", on_stdin=on_stdin)
        assert cell.status == "ok", cell.outputs
        result = Transcript.model_validate(kernel.transcript(cell)).messages[2]
        denied = result.status != "ok" and "Denied, nothing was run" in result.text
        return ("denied" if denied else result.status), asked

    folder = scratch()
    status, asked = run("d")
    assert status == "denied" and folder.exists() and len(asked) == 1
    assert "destructive_delete" in asked[0] and "rm -r scratch" in asked[0]
    status, asked = run(None, allow_stdin=False)  # nbclient / nbconvert: nobody to ask
    assert status == "denied" and folder.exists() and asked == []
    status, asked = run("o")
    assert status == "ok" and not folder.exists()
    scratch()
    kernel.run("%config Agent.allow = ['destructive_delete']")
    try:
        status, asked = run(None, allow_stdin=False)
        assert status == "ok" and not folder.exists() and asked == []
    finally:
        kernel.run("%config Agent.allow = []")


def test_the_magic_prices_the_run_from_the_catalog_by_default(kernel: Kernel) -> None:
    kernel.run("from orkas_nb.core.messages import Usage\n"
               "m = ScriptedModel([reply('priced', usage=Usage(input_tokens=10_000, output_tokens=2_000))])\n"
               "m.default_model = 'gpt-4o-mini'\n"
               "local = ScriptedModel([reply('free?', usage=Usage(input_tokens=10, output_tokens=2))])\n"
               "local.default_model = 'llama3.2:3b'")
    cell = kernel.run("%%agent -m $m --no-tools -s priced\nhow much?")
    t = Transcript.model_validate(kernel.transcript(cell))
    assert t.cost_usd == pytest.approx((10_000 * 0.15 + 2_000 * 0.60) / 1e6)  # gpt-4o-mini list price
    assert "$0.0027" in kernel.shown(cell)[-1]["text/markdown"]
    # The live text view showed the tokens (and the cost) before the transcript replaced it.
    live = [o["data"]["text/plain"] for o in cell.outputs if "data" in o and "text/plain" in o["data"]]
    assert any("10,000 in / 2,000 out tokens · $0.0027" in text for text in live)
    unknown = kernel.run("%%agent -m $local --no-tools -s local\nand this?")
    t2 = Transcript.model_validate(kernel.transcript(unknown))
    assert t2.cost_usd is None and "$" not in kernel.shown(unknown)[-1]["text/markdown"]
