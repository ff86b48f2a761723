"""Reading workspace files for the knowledge base: which files, and their text.

Folders are walked without hidden folders (``.git``, ``.orkas``...), ``node_modules``,
``__pycache__`` and virtual environments. A file is read as text unless it is binary (a NUL
byte in its first 8 KiB); PDF and Office files go through
``orkas_nb.documents.extract_text`` when that module is installed, and are skipped with
a reason otherwise.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

SKIP_DIRS = {"node_modules", "__pycache__", "site-packages", "venv", "env"}
DOCUMENT_SUFFIXES = {".pdf", ".docx", ".xlsx", ".xlsm", ".pptx"}
BINARY_SUFFIXES = {
    ".png",
    ".jpg",
    ".jpeg",
    ".gif",
    ".webp",
    ".ico",
    ".zip",
    ".gz",
    ".tar",
    ".bz2",
    ".xz",
    ".7z",
    ".so",
    ".dll",
    ".exe",
    ".bin",
    ".pkl",
    ".pickle",
    ".npy",
    ".npz",
    ".parquet",
    ".db",
    ".sqlite",
    ".sqlite3",
    ".onnx",
    ".pt",
    ".whl",
    ".mp3",
    ".mp4",
    ".wav",
    ".pyc",
}


class Unreadable(Exception):
    """The file is not text we can index; the message says why (shown as 'skipped')."""


@dataclass(frozen=True)
class FileState:
    path: Path
    size: int
    mtime_ns: int


def walk(root: Path) -> Iterator[FileState]:
    """Files under ``root`` (or ``root`` itself), in a stable order."""
    if root.is_file():
        st = root.stat()
        yield FileState(root, st.st_size, st.st_mtime_ns)
        return
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(
            d
            for d in dirs
            if not d.startswith(".")
            and d not in SKIP_DIRS
            and not (Path(folder, d) / "pyvenv.cfg").exists()
        )
        for name in sorted(files):
            if name.startswith(".") or Path(name).suffix.lower() in BINARY_SUFFIXES:
                continue
            full = Path(folder, name)
            try:
                st = full.stat()
            except OSError:
                continue  # vanished or a broken link
            if full.is_file():
                yield FileState(full, st.st_size, st.st_mtime_ns)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_text(path: Path, data: bytes) -> str:
    """The text of a file whose bytes are ``data``; raises :class:`Unreadable`."""
    if path.suffix.lower() in DOCUMENT_SUFFIXES:
        try:
            from ..documents import extract_text
        except ImportError:
            raise Unreadable("no document extractor installed for this format") from None
        try:
            return extract_text(path)
        except Exception as exc:  # a damaged or encrypted document: skip it, say why
            raise Unreadable(f"could not extract text: {exc}") from None
    if b"\x00" in data[:8192]:
        raise Unreadable("binary file")
    return data.decode("utf-8", errors="replace")
