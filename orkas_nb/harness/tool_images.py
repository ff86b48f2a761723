"""Move images out of tool results for providers that take text only there (SPEC §4).

The session keeps each image in its tool result (the record does not depend on today's
provider); the request sent to such a provider carries a text-only copy of the result and,
after the run of results that answers one assistant message, a user message
(``origin="tool_images"``) holding the images, each introduced by the call it came from.
Both copies are cached on the original (immutable) message, so every request reuses the same
objects and the provider's per-message wire cache keeps working.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.messages import (
    ImageBlock,
    Message,
    TextBlock,
    ToolResultMessage,
    UserMessage,
    shared_prefix,
)

_CACHE_KEY = "tool_images_split"


def _split(result: ToolResultMessage) -> tuple[ToolResultMessage, UserMessage]:
    cached = result.wire_cache.get(_CACHE_KEY)
    if cached is not None:
        return cached
    images = [b for b in result.content if isinstance(b, ImageBlock)]
    texts = [b for b in result.content if not isinstance(b, ImageBlock)]
    note = f"[{len(images)} image(s) follow in the next message]"
    stripped = result.model_copy(update={"content": [*texts, TextBlock(text=note)]})
    carrier = UserMessage(
        id=f"img_{result.id}",
        created_at=result.created_at,
        origin="tool_images",
        content=[TextBlock(text=f"Image(s) returned by tool call {result.name} ({result.tool_call_id}):"), *images],
    )
    result.wire_cache[_CACHE_KEY] = (stripped, carrier)
    return stripped, carrier


def _has_images(message: Message) -> bool:
    if not isinstance(message, ToolResultMessage):
        return False
    cache = message.wire_cache
    flag = cache.get("has_images")
    if flag is None:  # cached: this runs over the whole history on every request
        flag = cache["has_images"] = any(isinstance(b, ImageBlock) for b in message.content)
    return flag


def move_tool_images(messages: Sequence[Message]) -> list[Message]:
    """``messages`` with tool-result images moved to user messages after each run of results."""
    if not any(_has_images(m) for m in messages):
        return list(messages)
    out: list[Message] = []
    pending: list[UserMessage] = []
    for m in messages:
        if not isinstance(m, ToolResultMessage) and pending:
            out.extend(pending)  # after the whole run of results: pairing stays intact
            pending = []
        if _has_images(m):
            stripped, carrier = _split(m)  # type: ignore[arg-type]
            out.append(stripped)
            pending.append(carrier)
        else:
            out.append(m)
    out.extend(pending)
    return out


class ImageMover:
    """``move_tool_images`` for one runner, checking only the messages added since last time.

    Most histories carry no tool images; finding that out costs a look at every message, on
    every request. The history grows by appends, so the last one is kept and, while it is
    still a prefix (by object identity), only the new messages are looked at.
    """

    def __init__(self) -> None:
        self._seen: list[Message] = []
        self._found = False

    def move(self, messages: Sequence[Message]) -> list[Message]:
        seen = self._seen
        if shared_prefix(seen, messages) == len(seen):
            found = self._found or any(_has_images(m) for m in messages[len(seen):])
        else:
            found = any(_has_images(m) for m in messages)
        self._seen = list(messages)
        self._found = found
        return move_tool_images(messages) if found else list(messages)
