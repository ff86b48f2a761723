"""documents: text out of PDF and Office files, and the binary sniff (a shared leaf).

Both the workspace tools (``read_file``, ``web_fetch``, ``search``) and the knowledge base
(``memory.ingest``) read documents, and capabilities do not import one another (SPEC §2), so the
extraction sits below both: it imports only ``orkas_nb.core`` (and its optional extractors,
lazily).
"""

from .extract import (  # noqa: F401
    DOCUMENT_KINDS, DocumentError, binary_description, document_kind, extract_from_bytes,
    extract_text,
)
