"""Record and replay model traffic: reproducible tutorials and tests with no key and no network.

``RecordingProvider(inner, path)`` wraps any provider and writes a cassette: one JSON object a
line, a header first, then one line per model call with its (normalised) request and every
event it streamed, or the error it raised. ``ReplayProvider(path)`` plays a cassette back,
offline. The cassette holds provider-neutral stream events, not HTTP bytes, so a
recording made against a local llama.cpp server replays with no server at all.

Matching. Both sides normalise a request before comparing it, removing what legitimately
changes between two runs of the same notebook: message ids and clocks, tool-call ids (renamed
``call_1``, ``call_2``… in order of appearance), other ids the runtime draws at random (a
team's task ids, ``task_1``…), the session id (the prompt-cache key),
absolute paths under the given roots (by default the working folder and HOME) and of this
Python's libraries, ISO timestamps and durations, and a *host note* ending a tool result
(:data:`HOST_NOTE`). A request that still differs fails loudly with
:class:`ReplayMismatchError` carrying a unified diff of the two normalised requests.

Replay does not depend on the machine. What a request says is the same on every machine: tool
descriptions and the system prompt name no capability of the host (bubblewrap, network,
browser, embedder), so they are matched like the rest, and a changed tool name, schema,
description, message or result still fails. The one thing a host may add is a host note, the
last line of a tool result in the form ``[host: …]`` (bash says after a failing command whether
it ran in the sandbox); it is the only text matching skips.

Secrets never reach the file: API keys known to the inner provider or found in the
environment, ``sk-…`` tokens and ``Bearer …`` values are replaced by ``<SECRET>``.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import sysconfig
import time
from collections.abc import AsyncIterator, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import TypeAdapter

from ..core import errors as _errors
from ..core.errors import OrkasError, ProviderError, ReplayMismatchError
from ..core.messages import HOST_NOTE, AssistantMessage, ToolCallBlock, ToolResultMessage
from .base import (
    LLMProvider,
    ModelRequest,
    ProviderCapabilities,
    StreamEvent,
    StreamingProvider,
    capabilities_of,
)

if TYPE_CHECKING:
    from .catalog import Catalog

__all__ = ["CASSETTE_VERSION", "HOST_NOTE", "RecordingProvider", "ReplayProvider",
           "normalise_request"]

CASSETTE_VERSION = 1
_EVENT: TypeAdapter[Any] = TypeAdapter(StreamEvent)
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?")
_DURATION = re.compile(r"\b\d+(?:\.\d+)?\s?(?:ms|s)\b")
# what core.messages.new_id makes: a lowercase prefix, "_", 20 hex digits (80 random bits)
_RUNTIME_ID = re.compile(r"\b([a-z]+)_[0-9a-f]{20}\b")
_SECRET_PATTERNS = (
    re.compile(r"sk-[A-Za-z0-9_\-]{16,}"),
    re.compile(r"(?i)bearer\s+[A-Za-z0-9._\-~+/=]{8,}"),
)
_SECRET_ENV = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")
# Fields of a message the model never sees: they differ between runs and would defeat matching.
_UNSEEN = {"id", "created_at", "usage", "provider", "model", "stop_reason"}
_DIFF_LINES = 80
# Matching drops a host note ending a tool result (see the module docstring), and only that.
_HOST_NOTE_LINE = re.compile(r"\n" + re.escape(HOST_NOTE) + r"[^\n\]]*\]\Z")


def _path_rules(roots: Iterable[str | Path] | None) -> list[tuple[str, str]]:
    """(absolute prefix, placeholder) pairs, longest first so nested roots win.

    Each prefix is given as it appears inside the JSON text the rules apply to, so a path with
    a quote or a backslash is replaced too.
    """
    rules: dict[str, str] = {}
    if roots is None:
        roots = [Path.cwd()]
    for n, root in enumerate(roots):
        text = str(Path(root).expanduser().resolve())
        if text not in ("/", ""):
            rules[text] = "<ROOT>" if n == 0 else f"<ROOT{n}>"
    home = os.path.expanduser("~")
    if home not in ("/", "", "~"):
        rules.setdefault(home, "~")
    # A traceback names this Python's library folders, which hold its version and prefix.
    for key, placeholder in (("purelib", "<SITE>"), ("platlib", "<SITE>"), ("stdlib", "<STDLIB>")):
        path = sysconfig.get_paths().get(key)
        if path and path.count("/") > 2:
            rules.setdefault(path, placeholder)
    escaped = {json.dumps(k, ensure_ascii=False)[1:-1]: v for k, v in rules.items()}
    return sorted(escaped.items(), key=lambda kv: -len(kv[0]))


def normalise_request(
    request: ModelRequest, roots: Iterable[str | Path] | None = None
) -> dict[str, Any]:
    """The request as a cassette compares it (see the module docstring)."""
    call_names: dict[str, str] = {}

    def call_id(raw: str) -> str:
        return call_names.setdefault(raw, f"call_{len(call_names) + 1}")

    messages = []
    for message in request.messages:
        data = message.model_dump(mode="json", exclude=_UNSEEN)
        if isinstance(message, AssistantMessage):
            for block, raw in zip(data["content"], message.content):
                if isinstance(raw, ToolCallBlock):
                    block["id"] = call_id(raw.id)
        elif isinstance(message, ToolResultMessage):
            data["tool_call_id"] = call_id(message.tool_call_id)
            for block in data["content"]:
                if block.get("type") == "text":
                    block["text"] = _HOST_NOTE_LINE.sub("", block["text"])
        messages.append(data)
    data = {
        "model": request.model,
        "system": request.system,
        "tools": [t.model_dump(mode="json") for t in request.tools],
        "max_tokens": request.max_tokens,
        "temperature": request.temperature,
        "purpose": request.purpose,
        "messages": messages,
    }
    text = json.dumps(data, ensure_ascii=False, sort_keys=True)
    for prefix, placeholder in _path_rules(roots):
        text = text.replace(prefix, placeholder)
    text = _TIMESTAMP.sub("<TIME>", text)
    text = _DURATION.sub("<DURATION>", text)
    return json.loads(_renumber_ids(text))


def _renumber_ids(text: str) -> str:
    """Ids the runtime draws at random (``new_id``: a team's ``task_…``) as ``task_1``, ``task_2``…
    per prefix in order of appearance, as tool-call ids are."""
    names: dict[str, str] = {}
    counts: dict[str, int] = {}

    def rename(match: re.Match[str]) -> str:
        raw, prefix = match.group(0), match.group(1)
        if raw not in names:
            counts[prefix] = counts.get(prefix, 0) + 1
            names[raw] = f"{prefix}_{counts[prefix]}"
        return names[raw]

    return _RUNTIME_ID.sub(rename, text)


def _scrub(text: str, secrets: Sequence[str]) -> str:
    for value in secrets:
        if value and len(value) >= 6:
            text = text.replace(value, "<SECRET>")
    for pattern in _SECRET_PATTERNS:
        text = pattern.sub("<SECRET>", text)
    return text


def _error_record(exc: BaseException) -> dict[str, Any]:
    record: dict[str, Any] = {"kind": type(exc).__name__, "message": str(exc)}
    if isinstance(exc, ProviderError):
        record.update(status=exc.status, retry_after=exc.retry_after)
    return record


def _error_from_record(record: dict[str, Any]) -> Exception:
    cls = getattr(_errors, record.get("kind", ""), None)
    message = record.get("message", "")
    if isinstance(cls, type) and issubclass(cls, ProviderError):
        return cls(message, status=record.get("status"), retry_after=record.get("retry_after"))
    if isinstance(cls, type) and issubclass(cls, OrkasError):
        return cls(message)
    return ProviderError(f"{record.get('kind')}: {message}")


class RecordingProvider(StreamingProvider):
    """Wraps ``inner`` and writes every call to a new cassette at ``path`` (overwritten)."""

    def __init__(
        self,
        inner: LLMProvider,
        path: str | Path,
        *,
        model: str | None = None,
        roots: Iterable[str | Path] | None = None,
        note: str = "",
    ) -> None:
        self.inner = inner
        self.id = inner.id
        self.default_model = model or getattr(inner, "default_model", None)
        self.path = Path(path)
        self.roots = list(roots) if roots is not None else None
        self.note = note
        self._index = 0
        self._header_written = False
        self._secrets = [os.environ.get(name, "") for name in _SECRET_ENV]
        secrets_of = getattr(inner, "secrets", None)
        if callable(secrets_of):
            self._secrets.extend(secrets_of())

    @property
    def catalog(self) -> Catalog | None:
        from .catalog import catalog_of  # a replay-only process never loads the price table

        return catalog_of(self.inner)

    def capabilities(self, model: str) -> ProviderCapabilities:
        return capabilities_of(self.inner, model)

    async def validate_auth(self) -> None:
        await self.inner.validate_auth()

    def _write(self, record: dict[str, Any]) -> None:
        line = _scrub(json.dumps(record, ensure_ascii=False), self._secrets)
        mode = "a" if self._header_written else "w"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with open(self.path, mode, encoding="utf-8") as fh:
            if not self._header_written:
                fh.write(_scrub(json.dumps(self._header(record), ensure_ascii=False), self._secrets))
                fh.write("\n")
                self._header_written = True
            fh.write(line + "\n")

    def _header(self, first: dict[str, Any]) -> dict[str, Any]:
        model = self.default_model or first["request"]["model"]
        caps = self.capabilities(model)
        return {
            "type": "header",
            "version": CASSETTE_VERSION,
            "provider": self.id,
            "model": model,
            "context_window": caps.context_window,
            "images_in_tool_results": caps.images_in_tool_results,
            "recorded_at": time.strftime("%Y-%m-%d", time.gmtime()),
            "note": self.note,
        }

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        record: dict[str, Any] = {
            "type": "interaction",
            "index": self._index,
            "request": normalise_request(request, self.roots),
            "events": [],
        }
        self._index += 1
        try:
            async for event in self.inner.stream(request):
                record["events"].append(event.model_dump(mode="json"))
                yield event
        except Exception as exc:
            record["error"] = _error_record(exc)
            self._write(record)
            raise
        self._write(record)


class ReplayProvider(StreamingProvider):
    """Plays a cassette back in order; see the module docstring for matching rules."""

    def __init__(self, path: str | Path, *, roots: Iterable[str | Path] | None = None) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise _errors.ConfigError(f"no cassette at {str(self.path)!r}")
        self.roots = list(roots) if roots is not None else None
        lines = [ln for ln in self.path.read_text(encoding="utf-8").splitlines() if ln.strip()]
        try:
            records = [json.loads(ln) for ln in lines]
        except json.JSONDecodeError as exc:
            raise _errors.ConfigError(f"cassette {self.path} is not JSONL: {exc}") from exc
        if not records or records[0].get("type") != "header":
            raise _errors.ConfigError(f"cassette {self.path} has no header line")
        self.header: dict[str, Any] = records[0]
        if self.header.get("version") != CASSETTE_VERSION:
            raise _errors.ConfigError(
                f"cassette {self.path} has version {self.header.get('version')}, "
                f"this orkas_nb reads version {CASSETTE_VERSION}"
            )
        self.interactions: list[dict[str, Any]] = [r for r in records[1:] if r.get("type") == "interaction"]
        self.id: str = self.header.get("provider") or "replay"
        self.default_model: str = self.header.get("model") or "replay"
        self._used = [False] * len(self.interactions)

    @property
    def position(self) -> int:
        """How many recorded calls have been played."""
        return sum(self._used)

    @property
    def remaining(self) -> int:
        return len(self.interactions) - self.position

    def rewind(self) -> None:
        """Start again from the first recorded call (replay the same cassette twice)."""
        self._used = [False] * len(self.interactions)

    def capabilities(self, model: str) -> ProviderCapabilities:
        return ProviderCapabilities(
            images_in_tool_results=self.header.get("images_in_tool_results", True),
            context_window=self.header.get("context_window"),
        )

    async def validate_auth(self) -> None:
        return None

    def _match(self, request: ModelRequest) -> dict[str, Any]:
        """The first unplayed recorded call equal to ``request``.

        Calls normally replay in recorded order; taking the first equal unplayed one also
        lets agents that ran concurrently (a team) replay in whatever order they ask.
        """
        seen = normalise_request(request, self.roots)
        pending = [i for i, used in enumerate(self._used) if not used]
        if not pending:
            raise ReplayMismatchError(
                f"cassette {self.path} has {len(self.interactions)} recorded calls; this run made a "
                f"call number {len(self.interactions) + 1}. Last message of the request:\n"
                + json.dumps(seen["messages"][-1:], indent=1, ensure_ascii=False)[:2000]
            )
        for index in pending:
            if self.interactions[index]["request"] == seen:
                self._used[index] = True
                return self.interactions[index]
        expected = pending[0]
        want = json.dumps(self.interactions[expected]["request"], indent=1, sort_keys=True, ensure_ascii=False)
        got = json.dumps(seen, indent=1, sort_keys=True, ensure_ascii=False)
        diff = list(
            difflib.unified_diff(
                want.splitlines(), got.splitlines(),
                fromfile=f"cassette call {expected + 1}", tofile="this run", lineterm="", n=2,
            )
        )
        if len(diff) > _DIFF_LINES:
            diff = diff[:_DIFF_LINES] + [f"... ({len(diff) - _DIFF_LINES} more diff lines)"]
        raise ReplayMismatchError(
            f"call {expected + 1} of {len(self.interactions)} does not match cassette "
            f"{self.path}:\n" + "\n".join(diff)
            + "\nRecord the cassette again if the change is intended."
        )

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        recorded = self._match(request)
        for data in recorded.get("events", []):
            yield _EVENT.validate_python(data)
        if "error" in recorded:
            raise _error_from_record(recorded["error"])
