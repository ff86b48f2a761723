"""The doubtful band of the memory guard: weak signals added into one score.

An entry no detector is sure about can still look like an order: it touches several of the
assistant's *domains* (secrets, commands, approvals, rules, authority, memory itself, network
sinks, secrecy, deletion) and has the *shape* of an instruction (addressed to the assistant, a
trigger or a "from now on", a word that voids, lowers, outranks or pretends). Each family
counts one (the changing words two); none decides alone. An entry whose score reaches
:data:`ASK_SCORE` (or that meets :data:`ASK_SIGNALS` of the detectors' own weak-signal
families) is accepted only with the user's consent (the ``memory`` tool asks through
the approval gate, denies without an approver) unless a judge is configured to decide it.

Domains are recognised by structure where one exists (backticks, flags, pipes, ``$VAR``,
``~/.x``, ``*_API_KEY``, URLs, e-mail addresses, IPs) and by the concept tables of
:mod:`.guard_concepts` and :mod:`.guard_intent_words` otherwise. :data:`ASK_SCORE` was chosen
on the tune data (``tests/data/memory_guard``: tune split and fresh..fresh4): no benign entry
there reaches it, while about 8% of hostile entries do (the detectors refuse most of those
anyway; the band is for the paraphrases they miss).
"""

from __future__ import annotations

import re

from . import guard_lexicon as L
from .guard_detectors import FAMILIES
from .guard_intent_words import words


def _c(*parts: str) -> re.Pattern[str]:
    return re.compile(L.alt(*parts))


DOMAINS: dict[str, re.Pattern[str]] = {
    "secrets": _c(L.SECRET_WORDS, r"\b[a-z0-9]+_(?:api_?key|key|token|secret|password|pat)\b", r"~/\.\w",
                  r"\$\{?\w*(?:key|token|secret|pass)\w*", r"(?<![\w.])\.env\b"),
    "commands": _c(L.EXECUTE, r"`[^`]+`", r"\bsudo\b", r"\b(?:commands?|shell|terminal|scripts?)\b", r"\|\s*\w",
                   r"\s-{1,2}[a-z]"),
    "approvals": _c(L.APPROVAL),
    "rules": _c(L.RULES),
    "authority": _c(L.AUTHORITY),
    "memory": _c(L.MEMORY_PLACE),
    "a network sink": _c(r"\bhttps?://", r"[\w.+-]+@[\w-]+\.[a-z]", r"\b\d{1,3}(?:\.\d{1,3}){3}\b"),
    "secrecy": _c(L.SECRECY_USER, L.SECRECY_QUIET),
    "deletion": _c(*words("DELETE")),
}
SHAPES: dict[str, re.Pattern[str]] = {
    "addressed to the assistant": _c(L.ADDRESSED),
    "a trigger or a standing order": _c(L.PERSIST, r"\bwhen(?:ever)?\b", r"\bif\b", r"\bsi\b", r"\bwenn\b",
                                        r"\bquando\b", r"\bcuando\b", r"\bals\b"),
    "words that void, lower, outrank or pretend": _c(
        L.VOID, L.LOWER, L.TREAT_AS, L.UNRESTRICTED, *words("PRECEDENCE"), *words("AUTO"), *words("DECEIVE")),
}
_CHANGE = "words that void, lower, outrank or pretend"
ASK_SCORE = 5
ASK_SIGNALS = 3  # or this many of the detectors' own weak-signal families


_SIGNAL = "signal: "


def families(flat: str) -> list[str]:
    """The domain and shape families a normalised entry touches, then the detectors' own
    weak-signal families (prefixed ``signal: ``); the learned blend reads them too."""
    hits = [name for name, p in {**DOMAINS, **SHAPES}.items() if p.search(flat)]
    return hits + [_SIGNAL + name for name, p in FAMILIES.items() if p.search(flat)]


def doubt(flat: str, hits: list[str] | None = None) -> tuple[bool, list[str]]:
    """Whether a normalised entry is in the doubtful band, and the families that put it there
    (``hits``: :func:`families` of it, when already computed)."""
    hits = families(flat) if hits is None else hits
    signals = [h for h in hits if h.startswith(_SIGNAL)]
    hits = [h for h in hits if not h.startswith(_SIGNAL)]
    ask = len(hits) + (_CHANGE in hits) >= ASK_SCORE or len(signals) >= ASK_SIGNALS
    return ask, hits
