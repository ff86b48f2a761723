"""The system prompt with the memory block, frozen per turn.

The runner calls its ``system_prompt`` for every request. Memory written *during* a turn (by
the ``memory`` tool) must not change the prompt until the next turn, or every later request
of the turn would miss the provider's prompt cache. :class:`FrozenPrompt` is that callable:
:meth:`FrozenPrompt.freeze` (called by the host at the start of each turn) reads memory once;
calls return the same string, byte for byte, until the next freeze. When memory did not
change between turns, the new freeze gives the same bytes again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .notes import CrossSessionMemory


def compose(base: str, block: str) -> str:
    """``base`` then the memory block (if any) after a blank line."""
    return f"{base.rstrip()}\n\n{block}" if block else base


class FrozenPrompt:
    """``base`` + the memory block, as read at the last :meth:`freeze`."""

    def __init__(self, base: str, memory: CrossSessionMemory | None) -> None:
        self.base = base
        self.memory = memory
        self._text: str | None = None

    def freeze(self) -> str:
        """Read memory now (at a turn's start); later calls return this text."""
        block = self.memory.system_block() if self.memory is not None else ""
        self._text = compose(self.base, block)
        return self._text

    def __call__(self) -> str:
        return self._text if self._text is not None else self.freeze()
