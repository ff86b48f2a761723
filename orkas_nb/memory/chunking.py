"""Cut a document into chunks at line boundaries, with overlap, keeping line numbers.

A chunk is a run of whole lines whose text stays under ``max_chars``; the next chunk starts
``overlap_lines`` lines before the previous one ended, so a passage cut at a boundary is still
found whole in one of the two. A single line longer than ``max_chars`` (minified code, a table
row) is cut into pieces that all cite that line. Line numbers are 1-based and inclusive.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Chunk:
    start_line: int
    end_line: int
    text: str


def chunk_lines(text: str, *, max_chars: int = 1000, overlap_lines: int = 2) -> list[Chunk]:
    """Chunks of ``text``; blank-only chunks are dropped."""
    if max_chars < 1 or overlap_lines < 0:
        raise ValueError("max_chars must be >= 1 and overlap_lines >= 0")
    lines = text.splitlines()
    chunks: list[Chunk] = []
    n = len(lines)
    i = 0
    covered = 0  # lines[:covered] are already in some chunk
    while i < n:
        size = len(lines[i])
        if size > max_chars:  # an over-long line: pieces of it, each citing that line
            line = lines[i]
            for start in range(0, size, max_chars):
                piece = line[start : start + max_chars]
                if piece.strip():
                    chunks.append(Chunk(i + 1, i + 1, piece))
            i += 1
            covered = i
            continue
        j = i + 1
        while j < n and size + 1 + len(lines[j]) <= max_chars:
            size += 1 + len(lines[j])
            j += 1
        if j <= covered:  # an overlap run that adds no new line: skip past it
            i = covered
            continue
        body = "\n".join(lines[i:j])
        if body.strip():
            chunks.append(Chunk(i + 1, j, body))
        covered = j
        if j >= n:
            break
        # Step back for the overlap, but always move forward by at least one line.
        i = max(i + 1, j - overlap_lines)
    return chunks
