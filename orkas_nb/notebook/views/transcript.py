"""The static transcript a cell keeps when a run ends (SPEC §14).

A saved notebook must read well with no kernel and no widget state, so the cell's last output is
a bundle of three views of the same :class:`Transcript`:

- ``application/vnd.orkas.transcript+json``: the data (this module's schema), which the
  labextension renders richly. The schema is versioned by ``schema_version``; fields are only
  ever *added* within a version, and readers must ignore fields they do not know.
- ``text/markdown``: what JupyterLab, nbconvert and GitHub show without the labextension.
- ``text/plain``: terminals and ``nbconvert --to script``; no ANSI escapes.

The transcript is built by :class:`TranscriptBuilder`, a renderer like the others (STYLE: rich):
it watches the run's events for timings and notices, and reads the messages the run appended
to its session, so what the cell shows is what was saved.
"""

from __future__ import annotations

import platform
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer

from ..._version import __version__
from ...core.errors import ErrorInfo
from ...core.events import (
    Compaction,
    MemberEvent,
    Retry,
    RunStats,
    ToolEnd,
    ToolStart,
    UsageUpdate,
    Warning,
)
from ...core.messages import (
    AssistantMessage,
    ImageBlock,
    ThinkingBlock,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from .lanes import HANDED_BACK, LaneTracker, tokens_text
from .transcript_lanes import LaneRecorder, TLane
from .transcript_messages import TAssistant, TMessage, TToolCall, TToolResult, TUser, _Model
from .transcript_text import ARGUMENT_CHARS  # noqa: F401  (re-exported)
from .transcript_text import ICON as _ICON
from .transcript_text import STATUS_WORDS as _STATUS_WORDS
from .transcript_text import call_line as _call_line
from .transcript_text import cut as _cut
from .transcript_text import duration as _duration
from .transcript_text import html as _html
from .transcript_text import quote as _quote
from .transcript_text import saved_arguments as _arguments

if TYPE_CHECKING:
    from ...core.events import RunEvent, RunResult
    from ...core.messages import Message
    from .renderer import RunInfo

TRANSCRIPT_MIME = "application/vnd.orkas.transcript+json"
SCHEMA_VERSION = 1
RESULT_CHARS = 4000  # per tool result kept in the saved notebook; the session file has it all

__all__ = [
    "SCHEMA_VERSION",
    "TRANSCRIPT_MIME",
    "Provenance",
    "TAssistant",
    "TLane",
    "TNotice",
    "TStats",
    "TToolCall",
    "TToolResult",
    "TUser",
    "Transcript",
    "TranscriptBuilder",
    "transcript_json_schema",
]


class TStats(RunStats):
    """The run's counters as saved: schema version 1 has no ``denials`` (each denied call is
    among the messages, with status "denied")."""

    denials: int = Field(0, exclude=True)


class TNotice(_Model):
    """Something the run said besides the conversation: a retry, a compaction, a warning."""

    kind: str
    text: str


class Provenance(_Model):
    """Where the transcript came from. No absolute paths: saved notebooks get shared."""

    generator: str = "orkas_nb"
    version: str = ""
    created_at: str = ""  # ISO 8601, UTC
    python: str = ""
    provider: str | None = None
    model: str = ""
    session: str = ""
    session_file: str | None = None  # relative to the workspace
    first_message: int = 0  # index of the run's first message in the session
    workspace: str = ""  # the folder's name only
    replay: str | None = None  # the cassette, when the model was replayed
    cell_id: str | None = None


class Transcript(_Model):
    schema_version: Literal[1] = SCHEMA_VERSION
    agent: str = "agent"
    prompt: str = ""
    status: str = "end_turn"  # a RunResult stop_reason
    messages: list[TMessage] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    # USD at the catalog's list prices when the run ended; None: price unknown (or a replay).
    cost_usd: float | None = None
    stats: TStats = Field(default_factory=TStats)
    duration_s: float = 0.0
    first_token_s: float | None = None
    output_files: list[str] = Field(default_factory=list)
    notices: list[TNotice] = Field(default_factory=list)
    # A team run's visible member runs, each placed after ``lane.after`` of the messages.
    lanes: list[TLane] = Field(default_factory=list)
    error: ErrorInfo | None = None
    provenance: Provenance = Field(default_factory=Provenance)

    @model_serializer(mode="wrap")
    def _drop_no_lanes(self, handler: SerializerFunctionWrapHandler):  # no return type: the schema stays
        # a run without lanes saves the JSON it saved before lanes existed
        data = handler(self)
        if isinstance(data, dict) and not data.get("lanes"):
            data.pop("lanes", None)
        return data

    # -- views --------------------------------------------------------------------------------

    def summary(self) -> str:
        parts = [self.provenance.model or "model?"]
        if self.provenance.session:
            parts.append(f"session {self.provenance.session}")
        parts.append(f"{self.stats.model_requests} model request{'s' * (self.stats.model_requests != 1)}")
        parts.append(f"{self.stats.tool_calls} tool call{'s' * (self.stats.tool_calls != 1)}")
        if self.usage.input_tokens or self.usage.output_tokens:
            parts.append(f"{self.usage.input_tokens:,} in / {self.usage.output_tokens:,} out tokens")
        if self.cost_usd is not None:
            parts.append(f"${self.cost_usd:.4f}")
        parts.append(f"{self.duration_s:.1f} s")
        if self.status != "end_turn":
            parts.append(_STATUS_WORDS.get(self.status, self.status))
        return " · ".join(parts)

    def to_markdown(self) -> str:
        out: list[str] = [f"**orkas** · {self.summary()}", ""]
        lanes = list(self.lanes)
        for n, m in enumerate([*self.messages, None]):
            while lanes and lanes[0].after <= n:
                out += _lane_markdown(lanes.pop(0))
            if m is not None:
                out += _message_markdown(m)
        for n in self.notices:
            out += [f"> *{n.kind}:* {n.text}", ""]
        if self.error is not None:
            out += [f"**error** ({self.error.kind}): {self.error.message}", ""]
        if self.output_files:
            out += ["Files written: " + ", ".join(f"`{f}`" for f in self.output_files), ""]
        return "\n".join(out).rstrip() + "\n"

    def to_text(self) -> str:
        out: list[str] = [f"orkas · {self.summary()}"]
        lanes = list(self.lanes)
        for n, m in enumerate([*self.messages, None]):
            while lanes and lanes[0].after <= n:
                lane = lanes.pop(0)
                name = f"[{lane.member}]"
                out += [f"{name} {line}" for m2 in lane.messages
                        for text in _message_text(m2) for line in text.split("\n")]
                if lane.handed_back:
                    out.append(f"{name} [{HANDED_BACK}]")
                out.append(f"{name} [{_lane_facts(lane)}]")
            if m is not None:
                out += _message_text(m)
        out += [f"[{n.kind}] {n.text}" for n in self.notices]
        if self.error is not None:
            out.append(f"error ({self.error.kind}): {self.error.message}")
        if self.output_files:
            out.append("files written: " + ", ".join(self.output_files))
        return "\n".join(out) + "\n"

    def bundle(self) -> dict[str, Any]:
        return {
            TRANSCRIPT_MIME: self.model_dump(mode="json"),
            "text/markdown": self.to_markdown(),
            "text/plain": self.to_text(),
        }


def _lane_facts(lane: TLane) -> str:
    return (f"{lane.kind} · {lane.status} · {lane.model_requests} model requests · "
            f"{tokens_text(lane.usage, lane.cost_usd)}")


def _message_markdown(m: TUser | TAssistant | TToolResult) -> list[str]:
    if isinstance(m, TUser):
        if m.origin == "tool_images":
            return []
        label = "steer" if m.origin == "steer" else "you"
        return [_quote(f"**{label}:** {m.text}"), ""]
    if isinstance(m, TAssistant):
        out = [m.text, ""] if m.text else []
        out += [f"- `{_call_line(c)}`" for c in m.tool_calls]
        return out + [""] if m.tool_calls else out
    head = f"{_ICON.get(m.status, '•')} {m.name} — {m.status}"
    if m.duration_s is not None:
        head += f" · {_duration(m.duration_s)}"
    body = m.text + ("\n…" if m.truncated else "")
    fence = "````" if "```" in body else "```"
    return [f"<details><summary>{_html(head)}</summary>", "", f"{fence}text", body, fence, "",
            "</details>", ""]


def _lane_markdown(lane: TLane) -> list[str]:
    """A member's run, folded under one line: who, how it came, status, tokens, cost."""
    out = [f"<details><summary>{_html(lane.member)} · {_html(_lane_facts(lane))}</summary>", ""]
    for m in lane.messages:
        out += _message_markdown(m)
    if lane.handed_back:
        out += [f"*{HANDED_BACK}*", ""]
    return out + ["</details>", ""]


def _message_text(m: TUser | TAssistant | TToolResult) -> list[str]:
    if isinstance(m, TUser):
        if m.origin == "tool_images":
            return []
        return [("steer> " if m.origin == "steer" else "you> ") + m.text]
    if isinstance(m, TAssistant):
        return ([m.text] if m.text else []) + [f"  → {_call_line(c)}" for c in m.tool_calls]
    first = (m.text.splitlines() or [""])[0][:100]
    took = f" {_duration(m.duration_s)}" if m.duration_s is not None else ""
    return [f"  ← {m.name} [{m.status}{took}] {first}"]


def convert_messages(messages: Sequence[Message], durations: dict[str, float] | None = None,
                     files: dict[str, list[str]] | None = None) -> list[TUser | TAssistant | TToolResult]:
    """Core messages → transcript messages (thinking signatures and image data stay out)."""
    durations = durations or {}
    files = files or {}
    out: list[TUser | TAssistant | TToolResult] = []
    for m in messages:
        if isinstance(m, UserMessage):
            images = sum(isinstance(b, ImageBlock) for b in m.content)
            out.append(TUser(text=m.text, origin=m.origin, images=images))
        elif isinstance(m, AssistantMessage):
            thinking = "".join(b.text for b in m.content if isinstance(b, ThinkingBlock) and not b.redacted)
            out.append(TAssistant(
                text=m.text, thinking=thinking, provider=m.provider, model=m.model,
                usage=m.usage, stop_reason=m.stop_reason,
                tool_calls=[TToolCall(id=c.id, name=c.name, arguments=_arguments(c.arguments),
                                      raw_arguments=c.raw_arguments) for c in m.tool_calls],
            ))
        elif isinstance(m, ToolResultMessage):
            text, cut = _cut(m.text, RESULT_CHARS)
            out.append(TToolResult(
                tool_call_id=m.tool_call_id, name=m.name, status=m.status, text=text,
                truncated=cut, images=sum(isinstance(b, ImageBlock) for b in m.content),
                duration_s=durations.get(m.tool_call_id),
                output_files=files.get(m.tool_call_id, []),
            ))
    return out


class TranscriptBuilder:
    """A renderer that turns a run into a :class:`Transcript` and hands it to ``publish``.

    ``new_messages()`` returns what the run appended to its session; it is read at ``finish``,
    which the runner calls only after the record is saved (SPEC §3.6).
    """

    def __init__(
        self,
        new_messages: Callable[[], Sequence[Message]],
        publish: Callable[[Transcript], None] | None = None,
        provenance: Provenance | None = None,
        cost: Callable[[str, Usage], float | None] | None = None,
    ) -> None:
        self._new_messages = new_messages
        self._cost = cost  # (model, usage) -> USD or None, as the live views take it
        self._model: str | None = None  # the model that answered, from "usage" events
        self._publish = publish
        self._provenance = provenance or Provenance()
        self._durations: dict[str, float] = {}
        self._files: dict[str, list[str]] = {}
        self._notices: list[TNotice] = []
        self.tracker = LaneTracker(cost)
        self._lanes = LaneRecorder(self.tracker, lambda: len(self._new_messages()))
        self._info: RunInfo | None = None
        self.transcript: Transcript | None = None

    def start(self, info: RunInfo) -> None:
        self._info = info
        self.tracker.configure(model=info.model, members=info.members)

    def render(self, event: RunEvent) -> None:
        if isinstance(event, ToolStart):
            self._lanes.on_call(event)
        elif isinstance(event, ToolEnd):
            self._durations[event.call_id] = event.duration_s
            if event.output_files:
                self._files[event.call_id] = list(event.output_files)
        elif isinstance(event, Retry):
            self._notices.append(TNotice(kind="retry", text=f"attempt {event.attempt} in "
                                         f"{event.delay_s:.1f} s: {event.reason}"))
        elif isinstance(event, Compaction):
            self._notices.append(TNotice(kind="compaction", text=f"{event.messages_replaced} messages "
                                         f"summarised ({event.tokens_before:,} → {event.tokens_after:,} tokens)"))
        elif isinstance(event, Warning):
            self._notices.append(TNotice(kind=event.code, text=event.message))
        elif isinstance(event, UsageUpdate):
            self._model = event.model or self._model
            self.tracker.on_commander_usage(event)
        elif isinstance(event, MemberEvent):
            self._lanes.on(event)

    def finish(self, result: RunResult) -> None:
        transcript = self.build(result)
        if self._publish is not None:
            self._publish(transcript)

    def build(self, result: RunResult) -> Transcript:
        """The transcript of the finished run (built once; later calls return the same)."""
        if self.transcript is not None:
            return self.transcript
        info = self._info
        prov = self._provenance.model_copy(update={
            "version": __version__,
            "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "python": platform.python_version(),
        })
        if info is not None:
            prov = prov.model_copy(update={"model": prov.model or info.model,
                                           "session": prov.session or info.session})
        self.transcript = Transcript(
            agent=getattr(info, "agent", "agent"),
            prompt=getattr(info, "prompt", ""),
            status=result.stop_reason,
            messages=convert_messages(self._new_messages(), self._durations, self._files),
            usage=result.usage,
            cost_usd=self._total_cost(result, prov.model),
            stats=TStats(**result.stats.model_dump()),
            duration_s=result.duration_s,
            first_token_s=result.first_token_s,
            output_files=list(result.output_files),
            notices=self._notices,
            lanes=self._lanes.lanes(),
            error=result.error.model_copy() if result.error is not None else None,
            provenance=prov,
        )
        return self.transcript

    def _total_cost(self, result: RunResult, model: str) -> float | None:
        """The run's cost; a team's is the commander's plus each lane's at its own price."""
        if self._cost is None:
            return None
        if self.tracker.lanes:
            return self.tracker.total_cost()
        return self._cost(self._model or model, result.usage)


def transcript_json_schema() -> dict[str, Any]:
    """The JSON schema of the MIME bundle's data, for the labextension and for stability tests."""
    return Transcript.model_json_schema(mode="serialization")
