"""Output slots: the one place in a cell a run's view is drawn and redrawn.

In a kernel a slot is a display handle routed by id, so a task can keep updating the cell
that started it, and never ``print``s (SPEC §14.1: prints from a task leak into whichever cell is
running). In a terminal IPython there is no display id to update, so the slot writes only the
new tail of the text. A slot is shown on first use, so a renderer that draws elsewhere (a
widget) leaves no empty output behind.
"""

from __future__ import annotations

import sys
import uuid
from typing import TYPE_CHECKING, Any, Protocol, TextIO

from IPython.display import display, update_display

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell


class Slot(Protocol):
    def update(self, bundle: dict[str, Any]) -> None: ...

    def final(self, bundle: dict[str, Any]) -> None: ...

    @property
    def shown(self) -> bool: ...


class DisplaySlot:
    """A display handle: ``display`` the first time, ``update_display`` afterwards."""

    def __init__(self) -> None:
        self.display_id = f"orkas-{uuid.uuid4().hex[:16]}"
        self._shown = False

    @property
    def shown(self) -> bool:
        return self._shown

    def update(self, bundle: dict[str, Any]) -> None:
        if self._shown:
            update_display(bundle, raw=True, display_id=self.display_id)
        else:
            display(bundle, raw=True, display_id=self.display_id)
            self._shown = True

    final = update

    def below(self) -> DisplaySlot:
        """A new slot drawn after this one in the same cell (its own display id), so a long
        text can live in blocks of which only the last is redrawn."""
        return DisplaySlot()


class StreamSlot:
    """For a terminal: appends what is new in ``text/plain`` to a stream."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = stream
        self._written = ""
        self._shown = False

    @property
    def shown(self) -> bool:
        return self._shown

    def update(self, bundle: dict[str, Any]) -> None:
        stream = self._stream or sys.stdout
        text = str(bundle.get("text/plain", ""))
        if text.startswith(self._written):
            stream.write(text[len(self._written):])
        else:
            stream.write("\n" + text)
        self._written = text
        self._shown = True
        stream.flush()

    def final(self, bundle: dict[str, Any]) -> None:
        # The live text already sits in the terminal; a transcript would repeat it.
        stream = self._stream or sys.stdout
        if self._written and not self._written.endswith("\n"):
            stream.write("\n")
            stream.flush()


def in_kernel(shell: InteractiveShell | None) -> bool:
    """True when display ids reach a front end (an ipykernel shell), not a terminal."""
    return shell is not None and getattr(shell, "kernel", None) is not None


def new_slot(shell: InteractiveShell | None) -> Slot:
    return DisplaySlot() if in_kernel(shell) else StreamSlot()
