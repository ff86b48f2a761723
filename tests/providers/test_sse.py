"""The SSE decoder: spec rules, and the same events as httpx-sse on random streams cut anywhere."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest
from httpx_sse import EventSource
from hypothesis import given, settings
from hypothesis import strategies as st

from orkas_nb.providers.sse import SSEDecoder, iter_sse


def decode(chunks: list[bytes]) -> list[tuple[str, str]]:
    decoder = SSEDecoder()
    out: list[tuple[str, str]] = []
    for chunk in chunks:
        out.extend(decoder.feed(chunk))
    return out


class _Chunks(httpx.AsyncByteStream):
    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = chunks

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self.chunks:
            yield chunk


def _response(chunks: list[bytes]) -> httpx.Response:
    return httpx.Response(200, headers={"content-type": "text/event-stream; charset=utf-8"},
                          stream=_Chunks(chunks))


async def _ours(chunks: list[bytes]) -> list[tuple[str, str]]:
    return [event async for event in iter_sse(_response(chunks))]


async def _httpx_sse(chunks: list[bytes]) -> list[tuple[str, str]]:
    return [(sse.event, sse.data) async for sse in EventSource(_response(chunks)).aiter_sse()]


async def _both(chunks: list[bytes]) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    return await _ours(chunks), await _httpx_sse(chunks)


value_text = st.text(st.characters(blacklist_characters="\r\n", blacklist_categories=("Cs",)), max_size=30)
events_strategy = st.lists(
    st.tuples(
        st.one_of(st.none(), value_text.filter(lambda s: s.strip() != "")),  # event name
        st.lists(value_text, min_size=1, max_size=3),  # data lines
        st.one_of(st.none(), value_text),  # a comment before the event
        st.booleans(),  # "data: x" or "data:x"
    ),
    max_size=8,
)


def _serialise(events: list, newline: str) -> tuple[bytes, list[tuple[str, str]]]:
    lines: list[str] = []
    expected: list[tuple[str, str]] = []
    for name, data, comment, spaced in events:
        if comment is not None:
            lines.append(":" + comment)
        if name is not None:
            lines.append("event: " + name)
        for d in data:
            lines.append(("data: " if spaced else "data:") + d)
        lines.append("")
        # "event: x" loses one leading space: a name that starts with a space keeps the rest
        expected.append((name if name is not None else "message",
                         "\n".join(d if spaced or not d.startswith(" ") else d[1:] for d in data)))
    body = "".join(line + newline for line in lines).encode("utf-8")
    return body, expected


def _cut(body: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(body) + 1) for c in cuts})
    chunks, last = [], 0
    for p in points:
        chunks.append(body[last:p])
        last = p
    chunks.append(body[last:])
    return [c for c in chunks if c] or [b""]


@settings(max_examples=300, deadline=None)
@given(events=events_strategy, newline=st.sampled_from(["\n", "\r\n", "\r"]),
       cuts=st.lists(st.integers(min_value=0, max_value=10_000), max_size=12))
def test_random_streams_cut_anywhere_decode_as_written_and_as_httpx_sse_does(
    events: list, newline: str, cuts: list[int]
) -> None:
    body, expected = _serialise(events, newline)
    chunks = _cut(body, cuts)
    assert decode(chunks) == expected
    ours, reference = asyncio.run(_both(chunks))
    assert ours == reference == expected


def test_an_event_is_dispatched_only_at_its_blank_line() -> None:
    assert decode([b"data: one\n\ndata: tw", b"o\n"]) == [("message", "one")]
    assert decode([b'event: message_stop\ndata: {"type":"message_stop"}\n']) == []


def test_a_crlf_split_across_chunks_is_one_line_end() -> None:
    assert decode([b"data: a\r", b"\ndata: b\r", b"\n\r", b"\n"]) == [("message", "a\nb")]


def test_lone_cr_ends_lines() -> None:
    assert decode([b"event: ping\rdata: x\r\r"]) == [("ping", "x")]


def test_a_leading_bom_is_dropped_once() -> None:
    assert decode([b"\xef\xbb", b"\xbfdata: x\n\n\xef\xbb\xbfdata: y\n\n"]) == [("message", "x")]


def test_comments_unknown_fields_id_and_retry_are_read_past() -> None:
    body = b": keep-alive\nid: 7\nretry: 100\nfoo: bar\ndata: x\n\n:\n\n"
    assert decode([body]) == [("message", "x")]


def test_a_field_without_colon_has_an_empty_value() -> None:
    assert decode([b"data\n\n"]) == [("message", "")]
    assert decode([b"data\ndata\n\n"]) == [("message", "\n")]


def test_an_event_without_data_is_not_dispatched_and_resets_its_name() -> None:
    assert decode([b"event: ping\n\ndata: x\n\n"]) == [("message", "x")]


def test_multibyte_characters_split_across_chunks() -> None:
    body = "data: 数据流 ✓\n\n".encode()
    assert decode([body[i:i + 1] for i in range(len(body))]) == [("message", "数据流 ✓")]


def test_invalid_utf8_is_replaced_not_raised() -> None:
    assert decode([b"data: \xff\xfe ok\n\n"]) == [("message", "\ufffd\ufffd ok")]


@pytest.mark.parametrize("encoding", ["gzip", "deflate"])
def test_iter_sse_reads_a_compressed_body(encoding: str) -> None:
    import gzip
    import zlib

    raw = b"data: 1\n\ndata: 2\n\n"
    body = gzip.compress(raw) if encoding == "gzip" else zlib.compress(raw)
    response = httpx.Response(200, headers={"content-type": "text/event-stream",
                                            "content-encoding": encoding},
                              stream=_Chunks([body[:5], body[5:]]))

    async def read() -> list[tuple[str, str]]:
        return [event async for event in iter_sse(response)]

    assert asyncio.run(read()) == [("message", "1"), ("message", "2")]
