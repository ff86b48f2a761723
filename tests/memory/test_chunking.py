from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orkas_nb.memory.chunking import chunk_lines


def test_chunks_cover_every_line_with_overlap() -> None:
    text = "\n".join(f"line {i:03d} " + "x" * 30 for i in range(1, 101))
    chunks = chunk_lines(text, max_chars=200, overlap_lines=2)
    assert chunks[0].start_line == 1 and chunks[-1].end_line == 100
    for a, b in zip(chunks, chunks[1:]):
        assert b.start_line == a.end_line - 1  # two lines shared
    lines = text.splitlines()
    for c in chunks:
        assert c.text == "\n".join(lines[c.start_line - 1 : c.end_line])
        assert len(c.text) <= 200


def test_overlong_line_is_cut_into_pieces_that_cite_it() -> None:
    text = "a\nb\n" + "L" * 250 + "\nc"
    chunks = chunk_lines(text, max_chars=100, overlap_lines=2)
    long_pieces = [c for c in chunks if c.start_line == 3]
    assert [len(c.text) for c in long_pieces] == [100, 100, 50]
    assert all(c.end_line == 3 for c in long_pieces)
    assert chunks[-1].text == "c" and chunks[-1].start_line == 4


def test_blank_documents_give_no_chunks() -> None:
    assert chunk_lines("") == []
    assert chunk_lines("\n\n   \n") == []


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError):
        chunk_lines("x", max_chars=0)
    with pytest.raises(ValueError):
        chunk_lines("x", overlap_lines=-1)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.text(alphabet="ab \t", max_size=40), max_size=60),
    st.integers(1, 120),
    st.integers(0, 5),
)
def test_every_non_blank_line_is_in_some_chunk(lines, max_chars, overlap) -> None:  # type: ignore[no-untyped-def]
    text = "\n".join(lines)
    chunks = chunk_lines(text, max_chars=max_chars, overlap_lines=overlap)
    covered = set()
    for c in chunks:
        assert 1 <= c.start_line <= c.end_line <= len(lines)
        covered.update(range(c.start_line, c.end_line + 1))
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            assert number in covered
    starts = [c.start_line for c in chunks]
    assert starts == sorted(starts)  # always moving forward
