"""One reflection: a cheap model reads a summary of the agent's recent activity and may create
or fix private skills and rewrite the skill profile, through four tools and nothing else.

It runs as an ordinary harness turn (the same runner, tool loop and provider path as any
agent) with its own in-memory session, so nothing of it reaches the agent's conversation. Its
tokens are counted from the turn's usage events; when the per-reflection cap or what remains
of the total cap is reached, the turn is aborted at the next boundary: every write made so
far is complete (each one atomic) and recorded, none after it starts.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence

from ...core.events import Done, UsageUpdate
from ...core.messages import Usage
from ...harness.cancellation import AbortSignal
from ...harness.config import RunConfig
from ...harness.runner import Runner
from ...harness.session import InMemorySession
from ...harness.tool_protocol import ToolRegistry, tool
from ...providers.base import LLMProvider
from .library import PrivateLibrary, Refused
from .store import Reflection, SignalRecord

__all__ = ["REFLECTION_PROMPT", "Meter", "activity_summary", "reflect"]

# The turn's running usage total -> its cost in USD so far, None when the price is unknown.
# The composition root prices it (the catalog is below the team layer's reach).
Meter = Callable[[Usage], float | None]

MAX_SUMMARY_SIGNALS = 40

REFLECTION_PROMPT = """\
You review how the agent {agent!r} has been working and improve its private skills.
A skill is a SKILL.md file: YAML front matter with `name` (lowercase letters, digits and single
hyphens, equal to the skill's folder name) and `description` (when to use it), then Markdown
instructions. Create a skill only for a lesson the activity below shows (the user corrected the
agent, it recovered from an error, it kept failing); fix a skill of yours after reading it; keep
the skill profile (what the agent is good and weak at) to a few lines. You may change nothing.
Finish with one short sentence saying what you changed and why."""


def activity_summary(agent: str, description: str, signals: Sequence[SignalRecord],
                     profile: str, private: Sequence[str]) -> str:
    """What the reflection reads: counts and short structural notes, never a transcript."""
    weights = Counter[str]()
    for s in signals:
        weights[s.kind] += s.weight
    lines = [f"Agent: {agent} — {description}" if description else f"Agent: {agent}",
             "Signals (kind: summed weight): " + (", ".join(f"{k}: {v:g}" for k, v in
                                                            sorted(weights.items())) or "none"),
             "Recent observations:"]
    lines += [f"- {s.kind}: {s.note}" for s in list(signals)[-MAX_SUMMARY_SIGNALS:]]
    lines.append("Current skill profile: " + (profile.strip() or "(empty)"))
    lines.append("Private skills: " + (", ".join(private) or "none"))
    return "\n".join(lines)


def _tools(library: PrivateLibrary) -> ToolRegistry:
    def list_private_skills() -> str:
        """The names of the agent's private skills, and the names other libraries hold (which
        cannot be written)."""
        return json.dumps({"private": library.names(), "taken_by_other_libraries": sorted(library.others)})

    def read_skill(name: str) -> str:
        """Read one private skill (required before changing it).

        Args:
            name: the skill's name.
        """
        try:
            return library.read_skill(name)
        except Refused as exc:
            raise ValueError(str(exc)) from None

    def write_skill(name: str, text: str) -> str:
        """Create or replace one private skill.

        Args:
            name: the skill's name (also its folder).
            text: the whole SKILL.md, front matter included.
        """
        try:
            change = library.write_skill(name, text)
        except Refused as exc:
            raise ValueError(str(exc)) from None
        return f"saved {change.path}"

    def update_profile(text: str) -> str:
        """Replace the agent's skill profile (a few lines: strengths, weaknesses).

        Args:
            text: the new profile.
        """
        try:
            library.write_profile(text)
        except Refused as exc:
            raise ValueError(str(exc)) from None
        return "profile saved"

    registry = ToolRegistry()
    for fn in (list_private_skills, read_skill, write_skill, update_profile):
        registry.add(tool(fn, read_only=fn is list_private_skills or fn is read_skill,
                          concurrency_safe=False))
    return registry


async def reflect(record: Reflection, library: PrivateLibrary, provider: LLMProvider, model: str,
                  summary: str, *, cap: int, max_steps: int,
                  meter: Meter | None = None) -> Reflection:
    """Run one reflection into ``record`` (status, tokens, changes, refusals); never raises for
    what the model does, only for what the caller must see (the provider's failure is caught
    by the engine)."""
    runner = Runner(provider, model, tools=_tools(library), session=InMemorySession(),
                    system_prompt=REFLECTION_PROMPT.format(agent=record.agent),
                    name=f"reflection-{record.agent}",
                    config=RunConfig(max_steps=max_steps, compaction=False,
                                     max_tokens=max(256, min(cap // 2, 4096))))
    abort = AbortSignal()
    spent = 0
    capped = False
    result = None
    async for event in runner.run(summary, abort=abort):
        if isinstance(event, UsageUpdate):
            spent = event.usage.input_tokens + event.usage.output_tokens
            record.input_tokens, record.output_tokens = (event.usage.input_tokens,
                                                         event.usage.output_tokens)
            record.cost_usd = meter(event.usage) if meter is not None else None
            if spent >= cap and not capped:
                capped = True
                abort.abort(f"token cap reached ({spent} of {cap})")
        elif isinstance(event, Done):
            result = event.result
    record.changes = list(library.changes)
    record.refusals = list(library.refusals)
    if capped:
        record.status, record.reason = "capped", f"stopped at the token cap ({spent} of {cap} tokens)"
    elif result is not None and result.stop_reason == "error":
        record.status = "failed"
        record.reason = result.error.message if result.error else "the reflection failed"
    else:
        record.reason = (result.text if result is not None else "")[:500]
    return record
