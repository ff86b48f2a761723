"""How the learned layer (:mod:`.guard_learned`) and the detectors decide together.

Defence in depth, with each layer allowed to correct the other where it is the stronger one:

- **hard evidence stays a refusal**: the checks before the detectors (empty, oversize, hidden
  characters, look-alike spelling, a secret value) and the detector findings :func:`hard` names
  (a secret sent off the machine or a credential file moved, destructive or download-and-run
  commands, hidden payloads, autorun files, moved trust anchors, remote access) refuse whatever
  the score says: they are read from syntax, and a classifier trained on two thousand notes
  must not talk them away;
- everything else is weighed by one **stacked score**: a logistic regression over the text
  classifier's logit and the detectors' *evidence* (:func:`evidence`: each finding's category,
  sure or doubtful, and the weak-signal families of :mod:`.guard_score`). An entry the
  detectors accepted is refused at or above ``refuse`` (a paraphrase no detector was sure
  about); an entry they refused on soft evidence alone is **kept** below ``overrule``, with the
  overruled finding left in ``Verdict.doubts`` so that a judge, when configured, still sees it
  (most false refusals of legitimate notes were soft findings: security-aware notes, quoted
  attacks, facts about approvals). An entry in the doubtful band stays in it unless refused.
  ``refuse`` above 1 or ``overrule`` 0 switch that direction off;
- **scope is the detectors' to read**: the classifier sees words, not negation or quotation. An
  entry the scope analysis of :mod:`.guard_scope` reads as guarding against an attack (a
  protective clause, a safeguard frame, a mere mention: :func:`guarded`) is never refused by the
  learned layer ("never print ~/.aws/credentials" shares every n-gram with the attack).

With the sentence encoder of :mod:`.guard_encoder` at hand, the stacked score also reads its
logit (the record's ``blend_encoder``); without it, the record's ``blend`` is the one used. A
learned refusal may also need a minimum text probability (``min_text``): an undecided text
(near 0.5) pushed over by weak signals alone refused benign notes.

What the learned layer alone would refuse (the detectors accepted the entry) is refused, or, with
the record's ``learned_only`` set to ``ask`` (:attr:`Blend.asks`), asked about: ``Verdict.ask``,
shown to the user with its text, the learned reason first in ``Verdict.doubts``.

The weights, ``refuse``, ``overrule`` and ``min_text`` are fitted by ``tests/memory/train_guard_model.py``, by
cross-validation on the training sets only, and stored in the model's record
(``data/guard_model.json``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from .guard_scope import is_mention, safeguard_residual, without_protective

PRECHECKS = frozenset({"empty", "oversize", "unicode", "secret"})
# Finding categories read from structure (commands, destinations, encodings, files that run on
# their own): the learned layer never overrules them.
HARD = frozenset({"destructive", "download_exec", "obfuscated", "persistence", "remote_access",
                  "tool_abuse", "credential_copy"})
# Exfiltration is hard when a secret is sent, or a credential file moved; asking to *show* a
# secret's value is a word-level finding like the others.
_HARD_EXFILTRATION = ("off the machine", "credential file")


class _Finding(Protocol):
    category: str
    reason: str
    sure: bool


def hard(category: str, reason: str) -> bool:
    """Whether a refusal stands whatever the learned layer says."""
    if category in PRECHECKS or category in HARD:
        return True
    return category == "exfiltration" and any(k in reason for k in _HARD_EXFILTRATION)


GUARDED = "scope:guarded"


def guarded(flat: str) -> bool:
    """Whether a normalised entry guards against what it names, or only mentions it."""
    return is_mention(flat) or without_protective(flat) != flat or safeguard_residual(flat) is not None


@dataclass(frozen=True)
class Later:
    """The families of a refused entry, not read yet: most refusals stand whatever they are
    (:meth:`Blend.lowest`), and reading them costs milliseconds."""
    view: str


def evidence(found: Iterable[_Finding], families: Iterable[str] | Later) -> tuple[str, ...]:
    """The detectors' evidence as feature names: ``sure:CAT``, ``doubt:CAT``, ``family:NAME``
    (and :data:`GUARDED`, which the guard adds only when it needs it: it costs milliseconds).
    With ``Later``, a ``later:`` item stands for the families until :func:`resolved`."""
    names = {("sure:" if f.sure else "doubt:") + f.category for f in found}
    if isinstance(families, Later):
        return (*sorted(names), "later:" + families.view)
    return tuple(sorted(names | {"family:" + h for h in families}))


def resolved(found: tuple[str, ...], families: Callable[[str], Iterable[str]]) -> tuple[str, ...]:
    """``found`` with a ``later:`` item replaced by the families it stands for."""
    later = [n for n in found if n.startswith("later:")]
    if not later:
        return found
    rest = {n for n in found if not n.startswith("later:")}
    return tuple(sorted(rest | {"family:" + h for h in families(later[0].removeprefix("later:"))}))


@dataclass(frozen=True)
class Blend:
    bias: float
    text: float  # weight of the text classifier's logit
    refuse: float  # a stacked score at or above it refuses an entry the detectors accepted
    overrule: float  # below it, an entry refused on soft evidence is kept
    weights: Mapping[str, float] = field(default_factory=dict)
    encoder: float = 0.0  # weight of the sentence encoder's logit (:mod:`.guard_encoder`)
    min_text: float = 0.0  # the text probability (:meth:`text_probability`) a learned refusal needs
    asks: bool = False  # an entry the detectors accepted and the score would refuse: asked instead

    @classmethod
    def from_record(cls, record: Mapping[str, Any], *, encoder: bool = False) -> Blend:
        """The record's blend: ``blend_encoder`` with ``encoder`` (the encoder's logit at hand),
        else ``blend`` (the n-gram classifier and the detectors, as before the encoder)."""
        b = record["blend_encoder"] if encoder and "blend_encoder" in record else record["blend"]
        return cls(float(b["bias"]), float(b["text"]), float(b["refuse"]), float(b["overrule"]),
                   dict(b["weights"]), float(b.get("encoder", 0.0)), float(b.get("min_text", 0.0)),
                   b.get("learned_only", "refuse") == "ask")

    def probability(self, text_logit: float, found: Iterable[str], encoder_logit: float = 0.0) -> float:
        return _sigmoid(self.bias + self.text * text_logit + self.encoder * encoder_logit
                        + sum(self.weights.get(name, 0.0) for name in found))

    def text_probability(self, text_logit: float, encoder_logit: float = 0.0) -> float:
        """What ``min_text`` is compared with: the encoder classifier's probability in a blend
        that reads it, else the n-gram classifier's."""
        return _sigmoid(encoder_logit if self.encoder else text_logit)

    def lowest(self, text_logit: float, found: Iterable[str], encoder_logit: float = 0.0) -> float:
        """The lowest score the entry can have whatever families (and scope) it turns out to have."""
        known = [n for n in found if not n.startswith("later:")]
        unknown = sum(min(w, 0.0) for n, w in self.weights.items() if n.startswith("family:") or n == GUARDED)
        return _sigmoid(self.bias + self.text * text_logit + self.encoder * encoder_logit
                        + sum(self.weights.get(n, 0.0) for n in known) + unknown)


def _sigmoid(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-max(min(z, 60.0), -60.0)))


def reason(score: float) -> str:
    return (f"it reads like an instruction planted for the assistant rather than a fact or a "
            f"preference (learned check, score {score:.2f})")


def asked(score: float) -> str:
    return (f"learned: it reads partly like an instruction planted for the assistant, and no "
            f"detector found one (learned check, score {score:.2f})")


def overruled(category: str, score: float) -> str:
    return f"{category}: a detector hit overruled by the learned check (score {score:.2f})"
