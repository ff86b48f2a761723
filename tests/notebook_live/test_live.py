"""The live view in a real kernel, seen and clicked through the comm channel."""

from __future__ import annotations

import time

import pytest

from orkas_nb.notebook.views.widgets.live import safe_cut

from .kernel_harness import WidgetKernel, markdown_of

pytestmark = [pytest.mark.kernel, pytest.mark.slow]

BURST_SETUP = r'''
words = ["alpha", "beta", "gamma", "delta", "**bold**", "`code`", "epsilon", "zeta"]
parts = []
for i in range(250):
    parts.append(" ".join(words) + (".\n\n" if i % 10 == 9 else " "))
    if i == 120:
        parts.append("\n```python\nx = 1\n\ny = 2\n```\n\n")
BURST = "".join(parts)
'''


def text_models(k: WidgetKernel, since: float = 0.0):
    return [m for m in k.find("orkas-text", open_only=False) if m.opened >= since]


def shown_text(k: WidgetKernel, since: float = 0.0) -> str:
    return "".join(markdown_of(m) for m in text_models(k, since))


def test_burst_streams_before_the_end_coalesced_and_complete(kernel: WidgetKernel) -> None:
    kernel.run(BURST_SETUP)
    burst = kernel.run("print(len(BURST), len(BURST) // 4)")
    chars = int(kernel.stream_text[-1].split()[0])
    assert chars // 4 >= 2000  # a 2,000-token burst at ~4 chars a token
    before = len(kernel.models)
    # ~2,000 chunks of 4 chars, 1 ms apart: the stream lasts a few seconds.
    ex = kernel.start(
        "agent = Agent(ScriptedModel([reply(BURST, chunk_chars=4, delay_s=0.001)]), default_tools=False)\n"
        "result, view = await drive(agent, 'write')"
    )
    kernel.pump(lambda: any(markdown_of(m) for m in text_models(kernel, ex.started)), timeout=30,
                what="the first text in the widget")
    assert not ex.done, "text must be in the widget while the run is still going"
    kernel.wait(ex, timeout=60)
    assert burst.status == "ok"

    models = text_models(kernel, ex.started)
    assert len(kernel.models) > before
    ids = {m.comm_id for m in models}
    updates = [u for u in kernel.updates if u.comm_id in ids and "outputs" in u.keys]
    frozen = len(models) - 1
    duration = updates[-1].sent - updates[0].sent  # the kernel's clock: when each was sent
    assert duration > 1.0, "the stream should have lasted long enough to measure a rate"
    # a refresh sends the live block once: an update, or the opening of a new block (whose
    # freezing sends one update of the block it closes), so refreshes = updates + 1
    refreshes = len(updates) + 1
    assert refreshes <= 20 * duration + 3, (refreshes, duration)
    # and no second holds much more than 20, whatever the jitter on the way
    worst = max(sum(1 for u in updates if s.sent <= u.sent < s.sent + 1.0) for s in updates)
    assert worst <= 26, worst

    final = shown_text(kernel, ex.started)
    kernel.run("assert result.text == BURST, (len(result.text), len(BURST))\n"
               "print(repr(view.text == BURST), view.flushes)")
    assert final == kernel_value(kernel, "BURST")
    assert frozen >= 1, "an 8 KB answer is cut into frozen blocks"

    # the view gave way to the static transcript: the display slot holds it, the widgets are gone
    updates_out = [o for o in ex.outputs if o["msg_type"] == "update_display_data"]
    assert updates_out and updates_out[-1]["data"]["text/markdown"].startswith("**transcript**")
    live = kernel.find("orkas-live", open_only=False)[-1]
    assert live.closed and all(m.closed for m in models)


def kernel_value(k: WidgetKernel, expr: str) -> str:
    """The value of an expression in the kernel, as text (through a JSON round trip)."""
    k.stream_text.clear()
    k.run(f"import json as _j; print(_j.dumps({expr}))")
    import json

    return json.loads("".join(k.stream_text))


def test_tool_cards_notices_and_status(kernel: WidgetKernel) -> None:
    kernel.run(r'''
@tool(read_only=True)
def lookup(key: str) -> str:
    "Look a key up."
    return "value of " + key

@tool
def broken() -> str:
    "Always fails."
    raise ValueError("no luck")

agent = Agent(ScriptedModel([
    reply("Looking.", call("lookup", key="k1"), call("broken")),
    reply("Done: **k1**."),
]), tools=[lookup, broken], default_tools=False)
''')
    kernel.run("result, view = await drive(agent, 'go')")
    cards = kernel.find("orkas-tool", open_only=False)[-2:]
    titles = [c.state["titles"][0] for c in cards]
    assert titles[0].startswith("✓ lookup · ok · ") and titles[0].endswith(" s")
    assert titles[1].startswith("✗ broken · error")
    bodies = [kernel.children(c)[0].state["value"] for c in cards]
    assert "&quot;key&quot;: &quot;k1&quot;" in bodies[0] and "value of k1" in bodies[0]
    assert "error (error)" in bodies[1] and "no luck" in bodies[1]
    assert "orkas-tool-failed" in cards[1].classes
    # text before the calls, then the cards, then the answer: in the order they happened
    body = kernel.find("orkas-body", open_only=False)[-1]
    order = [("text" if "orkas-text" in m.classes else "tool" if "orkas-tool" in m.classes else "?")
             for m in kernel.children(body)]
    assert order == ["text", "tool", "tool", "text"]
    status = kernel.find("orkas-status", open_only=False)[-1].state["value"]
    assert "done" in status and "tokens in" in status



def test_tokens_and_cost_reach_the_status_line_before_the_run_ends(kernel: WidgetKernel) -> None:
    kernel.run(r'''
from orkas_nb.core.messages import Usage
from orkas_nb.providers.catalog import cost_of

@tool(read_only=True)
def pause() -> str:
    "Wait a little."
    return "ok"

agent = Agent(ScriptedModel([
    reply("One.", call("pause"), usage=Usage(input_tokens=10_000, output_tokens=2_000)),
    reply("Two " * 400, chunk_chars=4, delay_s=0.005, usage=Usage(input_tokens=12_000, output_tokens=800)),
]), model_name="gpt-4o-mini", tools=[pause], default_tools=False)
''')
    ex = kernel.start("result, view = await drive(agent, 'go', cost=lambda m, u: cost_of(u, m))")

    def status() -> str:
        found = kernel.find("orkas-status", open_only=False)
        return found[-1].state.get("value", "") if found and found[-1].opened >= ex.started else ""

    kernel.pump(lambda: "tokens in 10,000 / out 2,000" in status(), timeout=30,
                what="the first response's tokens in the status line")
    assert not ex.done, "tokens must show while the run is still going"
    assert "$0.0027" in status() and "running" in status()
    kernel.wait(ex, timeout=60)
    assert ex.status == "ok"
    final = kernel.find("orkas-status", open_only=False)[-1].state["value"]
    assert "tokens in 22,000 / out 2,800" in final and "$0.0050" in final  # 22k*0.15 + 2.8k*0.6


def test_stop_ends_a_run_within_a_second_and_the_session_stays_valid(kernel: WidgetKernel) -> None:
    kernel.run(r'''
@tool
async def slow(seconds: float) -> str:
    "Wait."
    await asyncio.sleep(seconds)
    return "waited"

agent = Agent(ScriptedModel([reply("Waiting.", call("slow", seconds=30)), reply("after")]),
              tools=[slow], default_tools=False)
''')
    ex = kernel.start("result, view = await drive(agent, 'wait')")
    kernel.pump(lambda: any(c.state.get("titles", ("",))[0].startswith("⏳ slow")
                            for c in kernel.find("orkas-tool")), timeout=30, what="the slow tool")
    stop = kernel.find("orkas-stop")[-1]
    clicked = time.time()  # the kernel stamps its messages with this clock
    kernel.click(stop.comm_id)
    kernel.wait(ex, timeout=30)
    took = ex.idle_sent - clicked
    assert took < 2.0, f"Stop took {took:.2f} s"  # users feel ~1 s; typical 0.15 s, margin for a loaded CI
    kernel.run(r'''
from orkas_nb.harness.repair import open_calls
assert result.stop_reason == "cancelled", result.stop_reason
assert open_calls(agent.messages) == []
assert agent.messages[-1].status == "interrupted"
''')
    # the session is valid: the same agent runs its next turn
    kernel.run("result, view = await drive(agent, 'again'); assert result.text == 'after'")


def test_kernel_interrupt_stops_cleanly(kernel: WidgetKernel) -> None:
    kernel.run("agent = Agent(ScriptedModel([reply('x' * 4000, chunk_chars=4, delay_s=0.01), "
               "reply('next')]), default_tools=False)")
    ex = kernel.start("result, view = await drive(agent, 'long')")
    kernel.pump(lambda: shown_text(kernel, ex.started).startswith("x"), timeout=30, what="text")
    sent = time.time()  # the kernel stamps its messages with this clock
    kernel.interrupt()
    kernel.wait(ex, timeout=30)
    assert ex.idle_sent - sent < 2.0  # users feel ~1 s; typical 0.15 s, margin for a loaded CI
    kernel.run("assert result.stop_reason == 'cancelled'; assert view._finished\n"
               "result, view = await drive(agent, 'again'); assert result.text == 'next'")


def test_steer_is_folded_into_the_running_turn(kernel: WidgetKernel) -> None:
    kernel.run(r'''
steered = []

@tool
async def slow(seconds: float) -> str:
    "Wait until both steers are queued (a handshake, not a race with a 1.5 s sleep)."
    for _ in range(int(seconds * 100)):
        if len(steered) >= 2:
            break
        await asyncio.sleep(0.01)
    return "waited"

model = ScriptedModel([reply("Working.", call("slow", seconds=60)), reply("Steered answer.")])
agent = Agent(model, tools=[slow], default_tools=False)
_steer = agent.steer
agent.steer = lambda text: (_steer(text), steered.append(text))[0]
''')
    ex = kernel.start("result, view = await drive(agent, 'work')")
    kernel.pump(lambda: any(c.state.get("titles", ("",))[0].startswith("⏳ slow")
                            for c in kernel.find("orkas-tool")), timeout=30, what="the slow tool")
    box = kernel.find("orkas-steer-input")[-1]
    kernel.set_state(box.comm_id, value="also check the totals")
    kernel.click(kernel.find("orkas-steer-send")[-1].comm_id)
    # Enter in the box: the browser syncs the value, then sends a "submit" event
    kernel.set_state(box.comm_id, value="and the averages")
    kernel.send_comm(box.comm_id, {"method": "custom", "content": {"event": "submit"}})
    kernel.wait(ex, timeout=90)
    kernel.run(r'''
second = model.requests[1].messages
steers = [m.text for m in second if m.role == "user" and m.origin == "steer"]
assert steers == ["also check the totals", "and the averages"], steers
assert result.text == "Steered answer."
''')
    notices = [m.state["value"] for m in kernel.find("orkas-steer-notice", open_only=False)]
    assert any("folded into the run: also check the totals" in n for n in notices)


def test_bad_steer_input_is_ignored_and_answer_after_end_is_harmless(kernel: WidgetKernel) -> None:
    kernel.run("agent = Agent(ScriptedModel([reply('ok')]), default_tools=False)\n"
               "result, view = await drive(agent, 'hi')\n"
               "view._on_steer(); view._on_stop()\n"  # after the end: no effect, no error
               "assert result.text == 'ok'")


@pytest.mark.parametrize(
    "text, cut",
    [
        ("one\n\ntwo", 5),
        ("no blank line at all", 0),
        ("a\n\n```\ncode\n\nmore code\n```\nb", 3),
        ("a\n\n```\nopen fence\n\nstill code", 3),
        ("line one\nline two\nthree", 18),  # no blank line: the last line break
        ("```\nall code\nno end", 0),
    ],
)
def test_safe_cut_never_splits_inside_a_code_fence(text: str, cut: int) -> None:
    assert safe_cut(text) == cut
