"""What the bus and the ledger share: a conversation file of JSON lines, loaded when opened.

In memory (``path=None``, for tests and throwaway teams) or durable (harness.durable: fsynced
appends, one writer, a torn tail cut on load). A subclass sets up its empty state in
``_reset`` and folds the file into it in ``_load``; a failed load closes the file again.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import ClassVar, Self

from ..harness.durable import DurableJsonl


class DurableLog:
    what: ClassVar[str] = "log"  # named in the file's errors

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        readonly: bool = False,
        durable: bool = True,
    ) -> None:
        self.path = Path(path) if path is not None else None
        self.readonly = readonly
        self.repair_notes: list[str] = []
        self._lock = threading.Lock()  # tools run in worker threads; writes must not interleave
        self._file: DurableJsonl | None = None
        self._reset()
        if self.path is not None:
            self._file = DurableJsonl(self.path, readonly=readonly, durable=durable, what=self.what)
            try:
                self._load()
            except BaseException:
                self.close()
                raise

    @classmethod
    def in_memory(cls) -> Self:
        return cls(None)

    def _reset(self) -> None:
        """The empty state, before the file (if any) is read."""

    def _load(self) -> None:
        raise NotImplementedError

    def close(self) -> None:
        if self._file is not None:
            self._file.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
