"""The text renderer's live token line and cost (the ``usage`` run event)."""

from __future__ import annotations

from typing import Any

from orkas_nb.core.events import RunResult, RunStats, TextDelta, UsageUpdate
from orkas_nb.core.messages import Usage
from orkas_nb.notebook.views.renderer import RunInfo
from orkas_nb.notebook.views.text import TextRenderer
from orkas_nb.providers.catalog import cost_of


class Slot:
    def __init__(self) -> None:
        self.updates: list[dict[str, Any]] = []
        self.finals: list[dict[str, Any]] = []

    def update(self, bundle: dict[str, Any]) -> None:
        self.updates.append(bundle)

    def final(self, bundle: dict[str, Any]) -> None:
        self.finals.append(bundle)


def _catalog_cost(model: str, usage: Usage) -> float | None:
    return cost_of(usage, model)


def _run(model: str, cost: Any) -> tuple[Slot, TextRenderer]:
    slot = Slot()
    r = TextRenderer(slot, interval=0.0, cost=cost)
    r.start(RunInfo(agent="a", model=model, session="s"))
    r.render(TextDelta(text="Working on it"))
    r.render(UsageUpdate(usage=Usage(input_tokens=10_000, output_tokens=2_000), model_requests=1,
                         model=model.rsplit("/", 1)[-1]))
    return slot, r


def test_tokens_and_cost_show_live_on_a_redrawn_last_line() -> None:
    slot, r = _run("openai/gpt-4o-mini", _catalog_cost)
    shown = slot.updates[-1]["text/plain"]
    # gpt-4o-mini: 10k in at $0.15/M + 2k out at $0.60/M = $0.0027
    assert shown.endswith("[running · 10,000 in / 2,000 out tokens · $0.0027]\n")
    assert "Working on it\n[running" in shown
    assert "[running" not in r.text  # redrawn, never appended to the record
    r.render(TextDelta(text=" still"))
    assert "Working on it still\n[running" in slot.updates[-1]["text/plain"]
    result = RunResult(usage=Usage(input_tokens=10_000, output_tokens=2_000), duration_s=1.0,
                       stats=RunStats(model_requests=1))
    r.finish(result)
    last = slot.updates[-1]["text/plain"]
    assert "[running" not in last
    assert "10,000 in / 2,000 out tokens · $0.0027" in last.splitlines()[-1]


def test_an_unknown_price_shows_tokens_and_no_cost() -> None:
    slot, _ = _run("llamacpp/qwen2.5-7b", _catalog_cost)
    shown = slot.updates[-1]["text/plain"]
    assert shown.endswith("[running · 10,000 in / 2,000 out tokens]\n")
    assert "$" not in shown


def test_without_usage_events_nothing_extra_is_drawn() -> None:
    slot = Slot()
    r = TextRenderer(slot, interval=0.0, cost=_catalog_cost)
    r.start(RunInfo(agent="a", model="gpt-4o", session="s"))
    r.render(TextDelta(text="hello"))
    assert slot.updates[-1]["text/plain"] == r.text  # an older engine's stream reads as before


def test_a_runs_cost_prices_each_response_on_its_own_prompt_length() -> None:
    # claude-haiku-5-5 costs 5x more on a prompt over 100K tokens; three 60K-token prompts are
    # three short requests ($0.00625 each), not one 180K-token prompt ($0.09375).
    from orkas_nb.notebook.cell.prepare import _cost_source  # what %%agent gives the views

    slot = Slot()
    r = TextRenderer(slot, interval=0.0, cost=_cost_source(None))
    r.start(RunInfo(agent="a", model="anthropic/claude-haiku-5-5", session="s"))
    one = Usage(input_tokens=60_000, output_tokens=500)
    for n in (1, 2, 3):
        total = Usage(input_tokens=n * one.input_tokens, output_tokens=n * one.output_tokens)
        r.render(UsageUpdate(usage=total, model_requests=n, model="claude-haiku-5-5"))
    assert slot.updates[-1]["text/plain"].endswith("180,000 in / 1,500 out tokens · $0.0188]\n")
    r.finish(RunResult(usage=total, duration_s=1.0, stats=RunStats(model_requests=3)))
    assert "· $0.0188 ·" in slot.updates[-1]["text/plain"].splitlines()[-1]
