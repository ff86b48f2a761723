"""Text out of documents: PDF, Word, Excel and PowerPoint, plus the binary sniff.

``extract_text(path)`` is the public entry (the knowledge base's ingest imports it);
``read_file`` uses :func:`extract_from_bytes` on bytes it opened safely. The libraries are
well-kept and pure Python (pypdf, python-docx, openpyxl, python-pptx) and load lazily, so
``import orkas_nb`` stays light.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

from ..core.errors import ToolError

DOCUMENT_KINDS = {".pdf": "pdf", ".docx": "docx", ".xlsx": "xlsx", ".xlsm": "xlsx", ".pptx": "pptx"}

_MAGIC = (
    (b"\x89PNG", "a PNG image"), (b"\xff\xd8\xff", "a JPEG image"), (b"GIF8", "a GIF image"),
    (b"%PDF", "a PDF document"), (b"PK\x03\x04", "a zip archive"), (b"\x7fELF", "a program"),
    (b"\x1f\x8b", "a gzip archive"), (b"SQLite format 3", "an SQLite database"),
    (b"\x93NUMPY", "a NumPy array"), (b"PAR1", "a Parquet file"), (b"RIFF", "a media file"),
)


class DocumentError(ToolError):
    """A document could not be read (damaged, encrypted, or a format we do not read)."""


def document_kind(name: str, head: bytes) -> str | None:
    """``pdf``/``docx``/``xlsx``/``pptx`` if the name and the bytes say so, else None."""
    kind = DOCUMENT_KINDS.get(Path(name).suffix.lower())
    if kind == "pdf" and head.startswith(b"%PDF"):
        return kind
    if kind in ("docx", "xlsx", "pptx") and head.startswith(b"PK\x03\x04"):
        return kind
    if kind is None and head.startswith(b"%PDF"):
        return "pdf"
    return None


def binary_description(head: bytes) -> str | None:
    """A short description if ``head`` (the first bytes of a file) is not text, else None."""
    for magic, what in _MAGIC:
        if head.startswith(magic):
            return what
    if b"\x00" in head[:8192]:
        return "binary data"
    return None


def extract_text(path: str | Path) -> str:
    """The text of a PDF, DOCX, XLSX or PPTX file (or a UTF-8 text file, as is)."""
    p = Path(path)
    data = p.read_bytes()
    kind = document_kind(p.name, data[:8])
    if kind is None:
        what = binary_description(data[:8192])
        if what:
            raise DocumentError(f"{p.name} is {what}, not a document or text file")
        return data.decode("utf-8", errors="replace")
    return extract_from_bytes(data, kind, p.name)


def extract_from_bytes(data: bytes, kind: str, name: str = "document") -> str:
    """The text of a document held in memory; ``kind`` comes from :func:`document_kind`."""
    extractor = _EXTRACTORS[kind]
    try:
        return extractor(data)
    except ImportError as exc:
        raise DocumentError(
            f"reading {kind.upper()} files needs the package {exc.name!r}; "
            f"install it with pip (pip install 'orkas_nb')"
        ) from None
    except DocumentError:
        raise
    except Exception as exc:  # the libraries raise many kinds on damaged files
        raise DocumentError(f"{name} could not be read as {kind.upper()}: {type(exc).__name__}: {exc}") from None


def _pdf(data: bytes) -> str:
    import pypdf

    reader = pypdf.PdfReader(io.BytesIO(data))
    if reader.is_encrypted:
        try:
            reader.decrypt("")
        except Exception:
            raise DocumentError("the PDF is encrypted with a password") from None
    pages = []
    for n, page in enumerate(reader.pages, 1):
        pages.append(f"--- page {n} ---\n{(page.extract_text() or '').strip()}")
    return "\n\n".join(pages)


def _docx(data: bytes) -> str:
    import docx

    document = docx.Document(io.BytesIO(data))
    parts = [p.text for p in document.paragraphs]
    for t, table in enumerate(document.tables, 1):
        parts.append(f"--- table {t} ---")
        for row in table.rows:
            parts.append("\t".join(cell.text for cell in row.cells))
    return "\n".join(parts)


def _xlsx(data: bytes) -> str:
    import openpyxl

    book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    try:
        parts = []
        for sheet in book.worksheets:
            parts.append(f"--- sheet {sheet.title} ---")
            for row in sheet.iter_rows(values_only=True):
                if any(v is not None for v in row):
                    parts.append("\t".join("" if v is None else str(v) for v in row))
        return "\n".join(parts)
    finally:
        book.close()


def _pptx(data: bytes) -> str:
    import pptx

    deck = pptx.Presentation(io.BytesIO(data))
    parts = []
    for n, slide in enumerate(deck.slides, 1):
        parts.append(f"--- slide {n} ---")
        for shape in slide.shapes:
            if shape.has_text_frame:
                parts.extend(p.text for p in shape.text_frame.paragraphs if p.text)
            if getattr(shape, "has_table", False) and shape.has_table:
                for row in shape.table.rows:
                    parts.append("\t".join(cell.text for cell in row.cells))
        if slide.has_notes_slide and slide.notes_slide.notes_text_frame is not None:
            notes = slide.notes_slide.notes_text_frame.text.strip()
            if notes:
                parts.append(f"(notes) {notes}")
    return "\n".join(parts)


_EXTRACTORS: dict[str, Callable[[bytes], str]] = {
    "pdf": _pdf, "docx": _docx, "xlsx": _xlsx, "pptx": _pptx,
}
