"""The strict ``<handback />`` parser and ``@name`` addressing, over generated texts.

The texts are built from parts whose meaning is known (prose, inline code, fenced blocks,
marker variants that count and ones that do not), so each property states the expected answer
by construction rather than re-deriving it with the parser's own rules.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orkas_nb.team.handback import parse_address, split_handback

# -- parts ---------------------------------------------------------------------------------------

REAL = st.builds(
    lambda lead, tag, gap, tail: f"{lead}<{tag}{gap}/>{tail}",
    st.sampled_from(["", " ", "  ", "   "]),
    st.sampled_from(["handback", "HANDBACK", "HandBack"]),
    st.sampled_from(["", " ", "  ", "\t", " \t "]),
    st.sampled_from(["", " ", "\t", "  \t", "\r"]),
)

# Marker-like lines that must never count, even as the last line of a message.
FAKE = st.sampled_from([
    "<handback>", "<handback></handback>", "<handback", "handback />", "< handback />",
    "`<handback />`", "``<handback/>``", "> <handback />", "- <handback />", "<handback /> now",
    "ok <handback />", "<handback/>.", "    <handback />", "\t<handback />", "<handbacks />",
    "<handback x />", "<handback//>", "<!-- <handback /> -->", "**<handback />**",
])

WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz ,.;!?()'\"-", min_size=0, max_size=30)


@st.composite
def prose_line(draw: st.DrawFn) -> str:
    """A line of prose (it starts with a letter, so it never opens a fence); it may mention
    the marker inline, bare or in backticks, with text around it."""
    head = draw(st.sampled_from("ABCDEFGHIJKLMNOPQRSTUVWXYZ")) + draw(WORDS)
    mention = draw(st.sampled_from([
        "", " <handback />", " <handback/>", " `<handback />`", " <handback", " <HANDBACK />",
        " say <handback /> when done", " @researcher", " mail me at a@b.com",
    ]))
    return head + mention + draw(WORDS)


@st.composite
def code_block(draw: st.DrawFn, *, closed: bool = True, end_with_marker: bool = False) -> str:
    char = draw(st.sampled_from("`~"))
    fence = char * draw(st.integers(3, 5))
    info = draw(st.sampled_from(["", "python", "xml", "text"]))
    inner = draw(st.lists(st.one_of(prose_line(), REAL, FAKE, st.just("")), max_size=4))
    if end_with_marker:
        inner.append(draw(REAL))
    lines = [fence + info, *inner]
    if closed:
        # A closing fence is at least as long as the opening one.
        lines.append(char * (len(fence) + draw(st.integers(0, 2))))
    return "\n".join(lines)


BODY = st.lists(st.one_of(prose_line(), code_block(), st.just("")), min_size=0, max_size=6).map("\n".join)
TRAILING = st.sampled_from(["", "\n", "\n\n", "  \n", "\n \t\n"])


# -- the hand-back -------------------------------------------------------------------------------


@settings(max_examples=400)
@given(body=BODY, marker=REAL, trailing=TRAILING)
def test_a_marker_alone_on_the_last_line_hands_back(body: str, marker: str, trailing: str) -> None:
    text = f"{body}\n{marker}{trailing}" if body else f"{marker}{trailing}"
    result = split_handback(text)
    assert result.handed_back, repr(text)
    assert result.text == body.rstrip()


@st.composite
def not_a_handback(draw: st.DrawFn) -> str:
    """A message that mentions the marker everywhere except where it counts."""
    body = draw(BODY)
    end = draw(st.one_of(
        prose_line(),  # inline, bare or in backticks
        FAKE,  # look-alikes on their own line
        code_block(closed=True, end_with_marker=True),  # inside a closed block
        code_block(closed=False, end_with_marker=True),  # inside a block left open
        st.builds(lambda m, p: f"{m}\n{p}", REAL, prose_line()),  # followed by more text
        st.builds(lambda m, p: f"{m}\n{p}", REAL, FAKE),
    ))
    return (f"{body}\n{end}" if body else end) + draw(TRAILING)


@settings(max_examples=600)
@given(text=not_a_handback())
def test_the_marker_in_prose_code_or_look_alikes_does_not_hand_back(text: str) -> None:
    result = split_handback(text)
    assert not result.handed_back, repr(text)
    assert result.text == text  # nothing is stripped from a message that did not hand back


@given(text=st.text())
def test_any_text_parses_and_a_hand_back_only_strips_its_tail(text: str) -> None:
    result = split_handback(text)
    if result.handed_back:
        assert text.startswith(result.text)
        assert "handback" in text[len(result.text):].lower()
    else:
        assert result.text == text


@pytest.mark.parametrize("text", [
    "Here is how to end:\n```xml\n<handback />",  # an open fence swallows the rest
    "~~~~\n```\n<handback />\n```",  # a shorter or other fence does not close it
    "```x`y\n<handback />",  # not a fence (backtick in the info string): the marker counts
])
def test_fence_edge_cases(text: str) -> None:
    expected = text.startswith("```x`y")
    assert split_handback(text).handed_back is expected


def test_a_closed_block_then_the_marker_hands_back() -> None:
    text = "Run this:\n```python\nprint('<handback />')\n```\nThat is all.\n<handback />\n"
    result = split_handback(text)
    assert result.handed_back
    assert result.text == "Run this:\n```python\nprint('<handback />')\n```\nThat is all."


# -- addressing ----------------------------------------------------------------------------------

NAME = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_-]{0,20}", fullmatch=True)
REST = st.one_of(st.just(""), st.builds(lambda c, t: c + t, st.sampled_from("abcXYZ0(<\"'@#"), st.text()))


@given(lead=st.sampled_from(["", " ", "\n", "  \t"]), name=NAME,
       sep=st.sampled_from([" ", "  ", "\n", ": ", ", ", ":", ","]), rest=REST)
def test_at_name_at_the_start_addresses_the_member(lead: str, name: str, sep: str, rest: str) -> None:
    if not rest:
        sep = sep.rstrip(" \n")
    found = parse_address(f"{lead}@{name}{sep}{rest}")
    assert found is not None
    assert (found.member, found.text) == (name, rest)


@given(local=st.from_regex(r"[a-z0-9._]{1,10}", fullmatch=True), name=NAME,
       tail=st.sampled_from([".com", ".org hello", "/x", "@x", ".", "!", "'s"]), rest=st.text(max_size=20))
def test_emails_and_handles_with_more_are_not_addressing(local: str, name: str, tail: str, rest: str) -> None:
    assert parse_address(f"{local}@{name}.com {rest}") is None  # an email
    assert parse_address(f"@{name}{tail}") is None  # a domain, a path, another handle
    assert parse_address(f"please ask @{name} {rest}") is None  # not at the start


def test_addressing_against_known_members() -> None:
    found = parse_address("@Researcher look", ["researcher", "writer"])
    assert found is not None and found.member == "researcher" and found.text == "look"
    with pytest.raises(ValueError, match="no member named 'reseacher'.*researcher, writer"):
        parse_address("@reseacher look", ["writer", "researcher"])
    assert parse_address("no address", ["researcher"]) is None
    found = parse_address("@researcher", ["researcher"])  # %%agent @researcher (empty prompt)
    assert found is not None and found.text == ""
