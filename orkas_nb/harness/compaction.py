"""Compaction: keep a long run inside the model's context window (SPEC §5).

:class:`Compactor` is the runner's :class:`~orkas_nb.harness.turn.ContextPolicy`; it sees the
turn through :class:`~orkas_nb.harness.turn.TurnState` and builds what it measures or sends with
the turn's :class:`~orkas_nb.harness.requests.RequestBuilder`, never through the runner. At the start
of a turn and after each tool batch it estimates the next request — anchored on the provider's
last real input count plus an estimate of what was added since, scaled by the ratio of real to
estimated tokens it has seen (the window is counted in the provider's own tokens) — and, past
the threshold (80% of the window by default), replaces the older part of the history with a
summary written by the model:

    [head ............................][tail .......]   →   [summary][tail .......]

- The cut lands only before a message that is not a tool result, so no result is ever parted
  from its call (``repair.pairing_problems`` of the new history is empty).
- The tail is the longest suffix within ``keep_ratio`` of the window, and never less than the
  last assistant message with its results.
- The summary is an auxiliary call: its own system prompt, no tools, a small ``max_tokens``;
  the head is rendered as a transcript and summarised in chunks that each fit the window.
- The system prompt (and the memory frozen into it) is assembled by the runner for every
  request, so it comes back untouched; the user's request for the current turn is carried
  verbatim into the summary message.
- The session is rewritten atomically (``session.rewrite``) and a ``compaction`` event
  reports the estimated tokens before and after.
- No-gain guard: when the tail that must be kept already fills the budget, no summary call is
  made; a ``warning`` event says why.

- Pinned results: a tool with ``pinned_output = True`` (the ``skill`` tool: loaded
  instructions are durable guidance) has its successful results in the head carried verbatim
  into the summary message, one text block each after the summary, the latest per call
  arguments, and carried again by later compactions. They count against the budget like the tail.

A context-overflow error from the provider triggers ``on_overflow``: the same compaction,
forced (whatever the estimate says) with a smaller tail; the runner then retries once.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass

from ..core.errors import OrkasError, ProviderError
from ..core.events import Compaction, RunEvent, Warning
from ..core.messages import (
    Message,
    SummaryBlock,
    TextBlock,
    UserMessage,
    user_message,
)
from ..core.tokens import (
    RunningEstimate,
    estimate_bound,
    estimate_message,
    estimate_messages,
    estimate_request,
    estimate_text,
    estimate_tools,
)
from .compaction_parts import (  # noqa: F401  (re-exported: the cut and the transcript)
    PINNED_HEADER,
    _clip,
    choose_cut,
    chunk_transcript,
    minimal_tail_start,
    pinned_results,
    render,
)
from .repair import pairing_problems
from .turn import TurnState

DEFAULT_WINDOW = 128_000
MAX_SCALE = 3.0  # the most provider tokens per estimated token the compactor will believe

SUMMARY_SYSTEM = """\
You compress the earlier part of an agent's working session so the agent can continue \
without it. Write a faithful, dense summary for the agent itself, in the language the user \
writes in. Keep: the user's goals and constraints (quote short requests verbatim); decisions \
taken and why; facts discovered (file paths, names, numbers, errors and their fixes); what \
each tool call found, in one line each when routine; work finished; work still open and the \
next step. Drop pleasantries and repeated content. Do not invent anything; do not address \
the user; no preamble."""

VERBATIM = "\n\nThe user's request for the current turn, verbatim:\n"
SUMMARY_HEADER = "[Summary of the earlier part of this conversation, written when it was compacted]"


@dataclass
class CompactionConfig:
    """Knobs of the context policy. ``context_window`` overrides the provider's catalogue."""

    threshold: float = 0.8
    context_window: int | None = None
    keep_ratio: float = 0.3
    overflow_keep_ratio: float = 0.15
    summary_max_tokens: int = 2048
    transcript_result_chars: int = 4000
    prompt_verbatim_ratio: float = 0.1

    def __post_init__(self) -> None:
        if not 0.1 <= self.threshold <= 1.0:
            raise ValueError(f"compaction threshold must be between 0.1 and 1.0, not {self.threshold}")
        if self.context_window is not None and self.context_window < 1024:
            raise ValueError(f"context window of {self.context_window} tokens is too small to work in")
        if not 0.0 < self.keep_ratio < 1.0 or not 0.0 < self.overflow_keep_ratio < 1.0:
            raise ValueError("keep ratios must be between 0 and 1")


# -- the policy -----------------------------------------------------------------------------


class CompactionFailed(OrkasError):
    """The summary could not be written; the history was left as it was."""


# System prompts are few and long-lived (one per workspace and memory state) while compactors
# are built per agent, often one per notebook cell: their estimates are kept across agents.
_SYSTEM_ESTIMATES: dict[str, int] = {}


def _system_estimate(text: str) -> int:
    hit = _SYSTEM_ESTIMATES.get(text)
    if hit is None:
        if len(_SYSTEM_ESTIMATES) >= 64:
            _SYSTEM_ESTIMATES.clear()
        hit = _SYSTEM_ESTIMATES[text] = estimate_text(text)
    return hit


class Compactor:
    """The runner's context policy: estimate, and compact past the threshold (see module doc)."""

    def __init__(self, config: CompactionConfig | None = None) -> None:
        self.config = config or CompactionConfig()
        # Provider tokens per estimated token, learnt from real counts: the estimator is
        # calibrated on o200k, while the window is counted in the provider's own tokens.
        self.scale = 1.0
        # Estimated every step: keep the history's sums up to the last step, so a step costs
        # what it added, not O(history) (the system prompt's estimate is kept module-wide).
        self._history = RunningEstimate()

    # -- measuring --------------------------------------------------------------------------

    def window(self, turn: TurnState) -> int:
        if self.config.context_window:
            return self.config.context_window
        return turn.requests.capabilities().context_window or DEFAULT_WINDOW

    def _full_estimate(self, turn: TurnState, history: Sequence[Message]) -> int:
        request = turn.requests.main(list(history))
        return (_system_estimate(request.system) + estimate_tools(request.tools)
                + self._history.total(request.messages))

    def estimate(self, turn: TurnState, messages: Sequence[Message] | None = None) -> int:
        """Tokens of the next request: the last real count plus what was added since, or a
        full estimate when there is no usable real count (both in the provider's tokens)."""
        history = list(turn.requests.session.messages) if messages is None else list(messages)
        anchor = turn.last_input_anchor
        if turn.last_input_tokens and anchor is not None:
            for k in range(len(history) - 1, -1, -1):
                if history[k].id == anchor:
                    covered = self._full_estimate(turn, history[: k + 1])
                    if covered > 0:
                        self.scale = min(MAX_SCALE, max(0.5, turn.last_input_tokens / covered))
                    added = estimate_messages(history[k + 1 :])
                    return turn.last_input_tokens + math.ceil(self.scale * added)
        return math.ceil(self.scale * self._full_estimate(turn, history))

    # -- the hooks --------------------------------------------------------------------------

    def _surely_within(self, turn: TurnState, limit: float) -> bool:
        """The last real count plus a length bound of what was added since is within ``limit``:
        no estimate needed (most steps, far from the window, skip the estimator this way).
        Before any real count (a turn's start), the system prompt's and the tools' estimates
        (both cached) plus a length bound of the history, at the highest scale believed."""
        requests = turn.requests
        history = requests.session.messages
        anchor = turn.last_input_anchor
        if not turn.last_input_tokens or anchor is None:
            bound = estimate_bound(history)
            if bound is None:
                return False
            fixed = _system_estimate(requests.system_text()) + estimate_tools(requests.tools.specs())
            return MAX_SCALE * (fixed + bound) <= limit
        for k in range(len(history) - 1, -1, -1):
            if history[k].id == anchor:
                bound = estimate_bound(history[k + 1:])
                return bound is not None and turn.last_input_tokens + MAX_SCALE * bound <= limit
        return False

    async def after_tool_batch(self, turn: TurnState) -> AsyncIterator[RunEvent]:
        window = self.window(turn)
        limit = self.config.threshold * window
        if self._surely_within(turn, limit) or self.estimate(turn) <= limit:
            return
        async for event in self._compact(turn, window, forced=False):
            yield event

    async def on_overflow(self, turn: TurnState, error: ProviderError) -> AsyncIterator[RunEvent]:
        async for event in self._compact(turn, self.window(turn), forced=True):
            yield event

    # -- compaction -------------------------------------------------------------------------

    async def _compact(self, turn: TurnState, window: int, *, forced: bool) -> AsyncIterator[RunEvent]:
        session = turn.requests.session
        history = session.messages
        request = turn.requests.main(history)
        before = self.estimate(turn, history)  # first: it refreshes the learnt scale
        scale = self.scale
        fixed = math.ceil(scale * (estimate_text(request.system) + estimate_request("", [], request.tools)))
        sizes = [math.ceil(scale * estimate_message(m)) for m in history]
        keep_ratio = self.config.overflow_keep_ratio if forced else self.config.keep_ratio
        keep_ratio = min(keep_ratio, self.config.threshold / 2)  # room left to grow after it
        cut = choose_cut(history, sizes, int(keep_ratio * window))
        limit = (window if forced else self.config.threshold * window) - fixed - self.summary_cap(window)
        tools = turn.requests.tools
        pinned_names = {n for n in tools.names() if getattr(tools.get(n), "pinned_output", False)}
        pinned = pinned_results(history[:cut], history[cut:], pinned_names) if cut else []
        pinned_size = sum(math.ceil(scale * estimate_text(t)) for t in pinned)
        if cut == 0 or sum(sizes[cut:]) + pinned_size >= limit:
            kept = sum(sizes[cut:]) + pinned_size
            yield Warning(
                code="compaction_no_gain",
                message=(f"context is at ~{before} of {window} tokens, but the part that must be kept "
                         f"(~{kept} tokens from message {cut}) already fills it; compaction skipped"),
            )
            return
        head, tail = history[:cut], history[cut:]
        try:
            summary = await self._summarise(turn, head, window)
        except ProviderError as exc:
            yield Warning(code="compaction_failed", message=f"the summary call failed: {exc}")
            return
        except CompactionFailed as exc:
            yield Warning(code="compaction_failed", message=str(exc))
            return
        summary_message = UserMessage(
            origin="summary",
            content=[SummaryBlock(text=self._summary_text(summary, head, window),
                                  replaced_messages=cut, tokens_before=before),
                     *(TextBlock(text=t) for t in pinned)],
        )
        compacted = [summary_message, *tail]
        problems = pairing_problems(compacted)
        if problems:  # cannot happen with choose_cut; never write a broken history
            yield Warning(code="compaction_failed", message="cut would break pairing: " + problems[0])
            return
        session.rewrite(compacted)
        turn.last_input_tokens = None  # the old real count described the old history
        turn.stats.compactions += 1
        after = self.estimate(turn, compacted)
        yield Compaction(tokens_before=before, tokens_after=after, messages_replaced=cut)

    def _summary_text(self, summary: str, head: Sequence[Message], window: int) -> str:
        text = f"{SUMMARY_HEADER}\n\n{summary.strip()}"
        request = None
        for m in reversed(head):
            if isinstance(m, UserMessage) and m.origin == "prompt" and m.text.strip():
                request = m.text
                break
            if isinstance(m, UserMessage) and m.origin == "summary":
                own = "".join(b.text for b in m.content if isinstance(b, SummaryBlock))  # not pinned blocks
                if VERBATIM in own:
                    request = own.split(VERBATIM, 1)[1]  # carried from the previous compaction
                    break
        if request is not None:
            if estimate_text(request) > self.config.prompt_verbatim_ratio * window:
                request = _clip(request, int(self.config.prompt_verbatim_ratio * window * 2))
            text += VERBATIM + request
        return text

    def summary_cap(self, window: int) -> int:
        """The summary call's output cap: small, and never more than an eighth of the window."""
        return min(self.config.summary_max_tokens, window // 8)

    async def _summarise(self, turn: TurnState, head: Sequence[Message], window: int) -> str:
        requests = turn.requests
        cfg = self.config
        cap = self.summary_cap(window)
        overhead = estimate_text(SUMMARY_SYSTEM) + 200
        # Leave room for the answer, the prompt and the estimator's error on this text.
        budget = int((window - cap - overhead) * 0.8 / self.scale)  # in estimated tokens
        lines = [render(m, cfg.transcript_result_chars) for m in head]
        if sum(estimate_text(line) + 2 for line in lines) > budget:
            budget -= int(cap * 1.2)  # later chunks carry the summary so far
        if budget < 256:
            raise CompactionFailed(f"a {window}-token window leaves no room for a summary call")
        summary = ""
        for chunk in chunk_transcript(lines, budget):
            prompt = "Summarise this part of the session.\n\n"
            if summary:
                prompt = ("Here is the summary so far, followed by the next part of the session. "
                          "Write one updated summary covering both.\n\nSUMMARY SO FAR:\n"
                          f"{summary}\n\nNEXT PART:\n")
            request = requests.auxiliary(SUMMARY_SYSTEM, [user_message(prompt + chunk)], cap)
            done = await requests.provider.complete(request)
            turn.usage = turn.usage + done.usage
            summary = done.message.text.strip()
            if not summary:
                raise CompactionFailed("the model returned an empty summary; history left as it was")
        return summary
