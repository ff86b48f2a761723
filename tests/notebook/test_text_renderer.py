"""The text renderer: readable, throttled, no ANSI, and the transcript takes its place."""

from __future__ import annotations

import asyncio
import io
import json
import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

from orkas_nb.core.events import RunResult, RunStats, TextDelta, ToolEnd, ToolStart, Warning
from orkas_nb.core.messages import Usage
from orkas_nb.notebook.views import text as text_renderer
from orkas_nb.notebook.views.renderer import RunInfo
from orkas_nb.notebook.views.slots import StreamSlot
from orkas_nb.notebook.views.text import TextRenderer, line_cut

from .kernel import MIME, REPO, Kernel


class Slot:
    def __init__(self) -> None:
        self.updates: list[dict[str, Any]] = []
        self.finals: list[dict[str, Any]] = []
        self.shown = False

    def update(self, bundle: dict[str, Any]) -> None:
        self.updates.append(bundle)

    def final(self, bundle: dict[str, Any]) -> None:
        self.finals.append(bundle)


class BlockSlot(Slot):
    """A display slot that can open slots below it (as ``DisplaySlot`` does); counts bytes."""

    def __init__(self, sent: list[int], blocks: list[BlockSlot] | None = None) -> None:
        super().__init__()
        self.sent = sent
        self.blocks = [self] if blocks is None else blocks
        self.data: dict[str, Any] | None = None

    def update(self, bundle: dict[str, Any]) -> None:
        super().update(bundle)
        self.sent.append(len(json.dumps(bundle)))
        self.data = bundle

    def final(self, bundle: dict[str, Any]) -> None:
        super().final(bundle)
        self.sent.append(len(json.dumps(bundle)))
        self.data = bundle

    def below(self) -> BlockSlot:
        block = BlockSlot(self.sent, self.blocks)
        self.blocks.append(block)
        return block

    def view(self) -> str:
        """The cell as a reader sees it: every block's latest text, top to bottom."""
        return "".join((b.data or {}).get("text/plain", "") for b in self.blocks)


def _play(r: TextRenderer) -> None:
    r.start(RunInfo(model="m", session="s"))
    for chunk in ["Hel", "lo ", "there."]:
        r.render(TextDelta(text=chunk))
    r.render(ToolStart(call_id="1", name="read_file", arguments={"path": "a.md"}))
    r.render(ToolEnd(call_id="1", name="read_file", status="ok", result="line one\nline two", duration_s=0.012))
    r.render(Warning(code="loop_guard", message="repeated"))
    r.render(TextDelta(text="Bye."))


@pytest.mark.parametrize("blocks", [False, True], ids=["one-slot", "blocks"])
async def test_text_is_throttled_and_nothing_is_lost(blocks: bool) -> None:
    slot = BlockSlot([]) if blocks else Slot()
    r = TextRenderer(slot, interval=10.0)
    _play(r)
    # start and each tool/warning line draw at once; text deltas in between wait for the timer
    assert len(slot.updates) == 4
    r.finish(RunResult(stats=RunStats(model_requests=2, tool_calls=1), duration_s=1.25))
    text = slot.updates[-1]["text/plain"]
    assert text == ("orkas · m · session s\nHello there.\n  → read_file(path='a.md')\n"
                    "  ← read_file [ok, 12 ms] line one\n  [loop_guard] repeated\nBye.\n"
                    "[done · 2 model requests · 1 tool calls · 1.2 s]\n")
    assert slot.finals == []  # no transcript source: the live text stays


async def test_a_pause_in_the_stream_is_flushed_by_the_timer() -> None:
    slot = Slot()
    r = TextRenderer(slot, interval=0.05)
    r.start(RunInfo(model="m"))
    r.render(TextDelta(text="a"))
    r.render(TextDelta(text="b"))
    await asyncio.sleep(0.15)
    assert slot.updates[-1]["text/plain"].endswith("ab")


@pytest.mark.parametrize("blocks", [False, True], ids=["one-slot", "blocks"])
async def test_the_transcript_replaces_the_live_view(blocks: bool) -> None:
    slot = BlockSlot([]) if blocks else Slot()
    r = TextRenderer(slot, transcript=lambda result: ({"text/plain": "T", "text/markdown": "**T**"}, {}))
    _play(r)
    r.finish(RunResult(stop_reason="cancelled"))
    assert "[stopped ·" in slot.updates[-1]["text/plain"]
    assert slot.finals == [{"text/plain": "T", "text/markdown": "**T**"}]


def test_a_terminal_gets_only_the_new_text() -> None:
    out = io.StringIO()
    slot = StreamSlot(out)
    r = TextRenderer(slot, interval=0.0, transcript=lambda result: ({"text/plain": "T"}, {}))
    _play(r)
    r.finish(RunResult())
    written = out.getvalue()
    assert written.count("Hello there.") == 1 and written.count("orkas · m") == 1
    assert written.endswith("[done · 0 model requests · 0 tool calls · 0.0 s]\n")
    assert "\x1b" not in written


# -- traffic: a long answer costs bytes in proportion to its length ----------------------------


def _answer(tokens: int) -> list[str]:
    """4-character tokens with a line break every 60 tokens, as a model's paragraphs come."""
    words = ["alph", "a be", "ta *", "*gam", "ma**", " `ep", "s` z", "eta "]
    return [("ok.\n" if i % 60 == 59 else words[i % len(words)]) for i in range(tokens)]


def _stream(monkeypatch: pytest.MonkeyPatch, tokens: int, transcript: Any = None) -> tuple[BlockSlot, str]:
    """Stream ``tokens`` tokens at 1,000 tokens/s (a simulated clock) into a view refreshed every
    0.25 s: a draw per 250 tokens (1,000 characters), ~40 draws for 10,000 tokens."""
    now = [0.0]
    monkeypatch.setattr(text_renderer.time, "monotonic", lambda: now[0])
    slot = BlockSlot([])
    r = TextRenderer(slot, interval=0.25, transcript=transcript)
    r.start(RunInfo(model="m"))
    for token in _answer(tokens):
        now[0] += 0.001
        r.render(TextDelta(text=token))
    r.finish(RunResult(duration_s=now[0]))
    return slot, r.text


def test_a_long_answer_sends_bytes_in_proportion_to_its_length(monkeypatch: pytest.MonkeyPatch) -> None:
    slot, text = _stream(monkeypatch, 10_000)
    assert slot.view() == text  # the blocks, top to bottom, read as the whole text
    assert len(slot.blocks) > 1 and all(b.data for b in slot.blocks)
    sent = sum(slot.sent)
    # resending the whole text at each of the ~40 draws cost ~20x the text; blocks cost ~2x
    assert sent < 3 * len(text), (sent, len(text))
    slot2, text2 = _stream(monkeypatch, 20_000)
    assert slot2.view() == text2
    assert sum(slot2.sent) / sent < 2.4  # twice the text, about twice the bytes (not 4x)


def test_a_long_run_ends_as_the_transcript_with_every_other_block_emptied(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    bundle = {"text/plain": "T", "text/markdown": "**T**"}
    slot, _ = _stream(monkeypatch, 3_000, transcript=lambda result: (bundle, {}))
    head, *rest = slot.blocks
    assert rest and head.finals == [bundle]
    assert all(b.finals == [{}] for b in rest)  # no fragment of the streamed text is left
    assert slot.view() == "T"


def test_tool_lines_and_the_running_line_in_blocks() -> None:
    slot = BlockSlot([])
    r = TextRenderer(slot, interval=0.0)
    r.start(RunInfo(model="m"))
    paragraph = "word " * 99 + "end.\n"  # 500 characters
    for _ in range(5):
        r.render(TextDelta(text=paragraph))
    r.render(ToolStart(call_id="1", name="read_file", arguments={"path": "a.md"}))
    r.render(SimpleNamespace(type="usage", usage=Usage(input_tokens=1200, output_tokens=34), model="m"))  # type: ignore[arg-type]
    for _ in range(5):
        r.render(TextDelta(text=paragraph))
    r.render(TextDelta(text="still going"))
    live = slot.blocks[-1].data["text/plain"]  # type: ignore[index]
    assert len(slot.blocks) >= 3 and live.endswith("still going\n[running · 1,200 in / 34 out tokens]\n")
    assert all("[running" not in b.data["text/plain"] for b in slot.blocks[:-1])  # type: ignore[index]
    r.finish(RunResult())
    assert "[running" not in slot.view()
    assert slot.view() == r.text and "  → read_file(path='a.md')\n" in r.text


def test_line_cut_splits_where_two_outputs_read_as_one() -> None:
    assert line_cut("one\ntwo\nthr") == 8
    assert line_cut("one\ntwo\n") == 4  # never at the very end: the open block keeps a line
    assert line_cut("a long line without breaks") == 20  # after the last space
    assert line_cut("x" * 5000) == 0  # nowhere to cut: the block stays open
    assert line_cut("") == 0


# -- in a real kernel: blocks are display outputs of the cell that started the run -------------

LONG = "\\n".join(f"line {i}: " + "word " * 40 for i in range(60))  # ~13,000 characters


@pytest.mark.kernel
@pytest.mark.slow
def test_in_a_kernel_a_long_answer_streams_in_blocks_of_its_own_cell(kernel: Kernel) -> None:
    kernel.run(f'm = ScriptedModel([reply("{LONG}", chunk_chars=40, delay_s=0.002)])')
    cell = kernel.run("%%agent -m $m --no-tools --background -s blocks\nwrite a lot")
    other = kernel.run("await asyncio.sleep(0.5)")  # runs while the answer streams
    kernel.run("r = await __import__('orkas_nb.notebook').notebook.wait(30)")
    ids = [o["transient"]["display_id"] for o in cell.outputs if o["msg_type"] == "display_data"]
    assert len(ids) > 3, "a 13,000-character answer is drawn in several outputs"
    assert not [o for o in other.outputs if o["msg_type"] == "display_data"]  # none strayed
    # while streaming, the blocks read top to bottom as the whole answer
    last_text = {i: d["text/plain"] for _, i, d in kernel.display_log if i in ids and MIME not in d and d}
    assert LONG.replace("\\n", "\n") in "".join(last_text[i] for i in ids)
    # at the end: the transcript in the first output, the others emptied
    shown = kernel.shown(cell)
    assert MIME in shown[0] and all(d == {} for d in shown[1:])


@pytest.mark.kernel
@pytest.mark.slow
def test_a_saved_notebook_holds_the_transcript_and_no_fragment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    setup = ("%load_ext orkas_nb\nfrom orkas_nb.testing import ScriptedModel, reply\n"
             f'model = ScriptedModel([reply("{LONG}", chunk_chars=400, delay_s=0.02)])')
    cells = [setup, "%%agent -m $model\nWrite a lot."]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])))
    monkeypatch.setenv("ORKAS_RENDERER", "text")
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    NotebookClient(nb, timeout=60, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    saved = tmp_path / "run.ipynb"
    nbformat.write(nb, saved)
    nbformat.validate(nbformat.read(saved, as_version=4))
    outputs = nbformat.read(saved, as_version=4).cells[1].outputs
    assert MIME in outputs[0]["data"] and "line 59:" in outputs[0]["data"]["text/markdown"]
    assert len(outputs) > 1 and all(o["data"] == {} for o in outputs[1:])
    assert "line 30:" not in "".join(json.dumps(o) for o in outputs[1:])


def test_a_terminal_gets_no_running_line_and_each_word_once() -> None:
    out = io.StringIO()
    r = TextRenderer(StreamSlot(out), interval=0.0)
    r.start(RunInfo(model="m"))
    r.render(TextDelta(text="Hello "))
    r.render(SimpleNamespace(type="usage", usage=Usage(input_tokens=5, output_tokens=1), model="m"))  # type: ignore[arg-type]
    r.render(TextDelta(text="world."))
    r.finish(RunResult())
    written = out.getvalue()
    assert written.count("Hello") == 1 and "[running" not in written and written == r.text
