"""Full-text search: safe queries, stemming, and term pruning that keeps rankings."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from orkas_nb.memory.chunking import Chunk
from orkas_nb.memory.lexical import fts_phrase, query_words
from orkas_nb.memory.store import SqliteStore


def _store(texts: list[str], **kw) -> SqliteStore:  # type: ignore[no-untyped-def]
    store = SqliteStore(":memory:", **kw)
    sid = store.add_source(".")
    for i, t in enumerate(texts):
        store.replace_document(f"d{i}.txt", sid, len(t), i, f"h{i}", [Chunk(1, 1, t)])
    return store


FTS5_SYNTAX = [
    "AND",
    "OR",
    "NOT",
    "NEAR",
    "NEAR(a b, 3)",
    '"',
    '""',
    '"unbalanced',
    "a*",
    "*",
    "^start",
    "col:term",
    "text:deploy",
    "(",
    ")",
    "((a)",
    "a + b",
    "{text heading}: x",
    "-x",
    "a - b",
    "'; DROP TABLE chunks; --",
    "\x00",
    "\\",
    "🙂",
    "日本語",
    "AND OR NOT",
    ":",
    "a:b:c",
]


def test_fts5_syntax_in_user_text_never_raises() -> None:
    store = _store(["the deploy script uses docker", "NEAR and AND are words here too"])
    for q in FTS5_SYNTAX:
        store.text_search(q, 10)  # must not raise
    assert store.text_search('deploy" OR "x', 5)  # the word still counts
    assert [r for r, _ in store.text_search("NEAR(AND", 5)] == [2]


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=80))
def test_any_text_is_a_safe_query(text: str) -> None:
    store = _STORE
    hits = store.text_search(text, 5)
    assert all(score > 0 for _, score in hits)


_STORE = _store(["alpha beta gamma", "unicode café naïve", "x_y snake_case words"])


def test_words_split_like_unicode61() -> None:
    assert query_words("Hello, WORLD! snake_case x-ray café") == [
        "hello",
        "world",
        "snake",
        "case",
        "x",
        "ray",
        "café",
    ]
    assert fts_phrase('a"b') == '"a""b"'


def test_porter_stemming_matches_word_forms() -> None:
    store = _store(["the turbines were running hot", "nothing relevant"])
    assert [r for r, _ in store.text_search("turbine runs", 5)] == [1]


def test_diacritics_are_folded() -> None:
    store = _store(["le café est prêt", "tea"])
    assert [r for r, _ in store.text_search("cafe pret", 5)] == [1]


def test_pruning_keeps_the_exact_ranking_when_cheap_and_bounds_cost_when_not() -> None:
    texts = [f"common filler word{i % 7} " + ("rare" if i % 50 == 0 else "") for i in range(400)]
    unpruned = _store(texts, max_postings=10**9)
    pruned = _store(texts, max_postings=100)
    query = "common rare word3 filler"
    exact = unpruned.text_search(query, 20)
    fast = pruned.text_search(query, 20)
    # "common"/"filler" are in every chunk (IDF clamped to ~0 by FTS5): dropping them keeps
    # the ranking of the chunks that match a selective word.
    assert [r for r, _ in fast[:8]] == [r for r, _ in exact[:8]]
    plan = pruned.lexical.plan(query, pruned.generation)
    assert "common" not in plan and "filler" not in plan and plan[0] == "rare"


def test_common_words_on_a_small_index_still_match() -> None:
    store = _store(["same words here", "same words there"])  # cheap: the exact FTS5 query
    assert len(store.text_search("same words", 5)) == 2


def test_only_near_universal_words_on_a_large_index_give_no_full_text_answer() -> None:
    texts = [f"the of and filler{i}" for i in range(300)]
    store = _store(texts, max_postings=100)
    assert store.lexical.plan("the of and", store.generation) == []
    assert store.text_search("the of and", 5) == []  # not a scan of the index to order noise
    assert [r for r, _ in store.text_search("the filler7", 5)] == [8]


def test_frequencies_follow_index_changes() -> None:
    store = _store(["alpha"])
    assert store.text_search("omega", 5) == []
    sid = store.add_source("more")
    store.replace_document("new.txt", sid, 5, 1, "h", [Chunk(1, 1, "omega")])
    assert len(store.text_search("omega", 5)) == 1
