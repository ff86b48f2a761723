"""The scan every cross-session memory write passes before it is stored.

Memory is pasted into every future system prompt, so a write is an instruction channel into
later sessions. A write is rejected, with a reason the model sees, when it

- is oversized (``max_chars``) or empty;
- hides text: invisible or bidirectional-control characters (zero-width spaces, word joiners,
  BOM, bidi embeddings/overrides/isolates, Unicode tag characters, variation-selector
  smuggling), control characters, private-use characters, or words that mix Latin with
  Cyrillic/Greek letters (homoglyph spelling); ZWNJ/ZWJ inside non-Latin words (Persian,
  Indic scripts, emoji sequences) is legitimate and allowed;
- phrases a prompt injection (English, French, Spanish, German, Italian, Portuguese, Dutch,
  Russian, Chinese, Japanese, Korean, Arabic, Hindi), or impersonates chat-template markup;
- carries a secret-exfiltration command (a network sender fed from a secret source, or an
  instruction to send credentials somewhere), or a secret itself (API keys, private keys);
- has a *sure* finding of the structural detectors (:mod:`.guard_detectors`): destructive or
  download-and-run commands, a secret together with a sink, claims about approvals, identity
  or the assistant's rules, secrecy towards the user, encoded or reversed payloads; and of
  the syntax detectors beside them: a typosquatted package (:mod:`.guard_packages`), a change
  kept off the record (:mod:`.guard_record`), a policy written as data (:mod:`.guard_policy`).

Patterns run on a normalised copy (NFKC, case-folded, invisible characters removed,
whitespace collapsed; a second copy with common Cyrillic/Greek look-alikes mapped to Latin, a
third with letters only), so spacing and look-alike tricks do not slip past them. Text that
merely *mentions* instructions, code or commands is fine: the patterns need the imperative
shape of an attack. The phrase patterns are one layer; the detectors, the consent asked after
untrusted content and the optional judge (:mod:`.guard_judge`) are the others. A learned layer
(:mod:`.guard_learned`, a small n-gram classifier) is blended with the detectors
(:mod:`.guard_blend`): it may refuse what they accepted, or keep what they refused on soft
evidence; hard structural evidence stays a refusal.

Measured on ``tests/data/memory_guard`` (hand-written, 11 languages, committed before the
detectors, tuned on its ``tune`` half): see ``tests/memory/test_guard_corpus.py``.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

from .guard_detectors import (
    Finding,
    control_findings,
    decoded_payloads,
    rearranged,
    secret_findings,
    shell_findings,
    signal_findings,
)
from . import guard_blend
from .guard_config import char_payloads, config_findings
from .guard_packages import package_findings
from .guard_policy import policy_findings
from .guard_record import record_findings
from .guard_future import future_findings
from .guard_intent import intent_findings
from .guard_orders import order_findings
from .guard_effect import effect_findings
from .guard_kept import reported_residual, without_kept_consent, without_others_voided
from .guard_patterns import (  # noqa: F401  (re-exported: the phrase layer's patterns)
    EXFILTRATION,
    INJECTION,
    SECRET_VALUE,
    SQUASHED,
    _CONFUSABLES,
    _LEET,
    _pattern_findings,
)
from .guard_consent import scoped_approval
from .guard_grant import SCOPED_GRANT, as_question
from .guard_scope import dequote, done_report, is_mention, safeguard_residual, without_done, without_protective
from .guard_score import doubt, families


@dataclass(frozen=True)
class Verdict:
    ok: bool
    reason: str = ""
    category: str = ""
    doubts: tuple[str, ...] = ()  # doubtful findings on an accepted entry (for a judge)
    ask: bool = False  # in the doubtful band: keep only with the user's consent (or a judge's KEEP)


OK = Verdict(True)
# What a condition or a quotation can carry without being an order (see safeguard_residual).
_FRAMED = {"injection", "rule_override", "approval_claim", "download_exec", "hidden_instruction"}

_BIDI = set(range(0x202A, 0x202F)) | set(range(0x2066, 0x206A)) | {0x200E, 0x200F, 0x061C}
_INVISIBLE = (
    {
        0x00AD,
        0x034F,
        0x180E,
        0x200B,
        0x2028,
        0x2029,
        0x2060,
        0x2061,
        0x2062,
        0x2063,
        0x2064,
        0xFEFF,
        0x115F,
        0x1160,
        0x3164,
        0xFFA0,
    }
    | set(range(0x206A, 0x2070))
    | set(range(0xFFF9, 0xFFFC))
)
_JOINERS = {0x200C, 0x200D}

def _char_problem(text: str) -> str | None:
    for i, ch in enumerate(text):
        cp = ord(ch)
        if cp in _BIDI:
            return f"a bidirectional control character (U+{cp:04X})"
        if cp in _INVISIBLE:
            return f"an invisible character (U+{cp:04X})"
        if 0xE0000 <= cp <= 0xE007F:
            return f"a Unicode tag character (U+{cp:04X}), which can hide text"
        if 0xE0100 <= cp <= 0xE01EF or (0xFE00 <= cp <= 0xFE0E):
            return f"a variation selector (U+{cp:04X}), which can smuggle data"
        if cp in _JOINERS:
            before = text[i - 1] if i else ""
            after = text[i + 1] if i + 1 < len(text) else ""
            if not (before and after and ord(before) > 0x7F and ord(after) > 0x7F):
                return f"a zero-width joiner (U+{cp:04X}) outside a non-Latin word"
            continue
        cat = unicodedata.category(ch)
        if cat == "Cc" and ch not in "\n\t":
            return f"a control character (U+{cp:04X})"
        if cat == "Co":
            return f"a private-use character (U+{cp:04X})"
        if cat == "Cf" and cp != 0xFE0F:
            return f"an invisible formatting character (U+{cp:04X})"
    return None


_WORD = re.compile(r"[^\W\d_]{2,}")


def _mixed_script_word(text: str) -> str | None:
    for word in _WORD.findall(text):
        scripts = set()
        for ch in word:
            name = unicodedata.name(ch, "")
            if name.startswith("LATIN"):
                scripts.add("Latin")
            elif name.startswith("CYRILLIC"):
                scripts.add("Cyrillic")
            elif name.startswith("GREEK"):
                scripts.add("Greek")
        if "Latin" in scripts and len(scripts) > 1:
            return word
    return None


def normalise(text: str) -> str:
    """The copy the patterns run on (see the module docstring)."""
    t = unicodedata.normalize("NFKC", text)
    t = "".join(
        ch
        for ch in t
        if ord(ch) not in _INVISIBLE | _BIDI | _JOINERS and unicodedata.category(ch) != "Cf"
    )
    t = _MARKS.sub("", t)
    return re.sub(r"\s+", " ", t.casefold()).strip()


# Arabic harakat and tatweel, Hebrew points: optional marks that split a word from its lexicon entry.
_MARKS = re.compile(r"[\u0640\u064b-\u065f\u0670\u0591-\u05bd\u05bf\u05c1\u05c2\u05c4\u05c5\u05c7]")
_QUOTED_VAR = re.compile(r"([\"'])(\$\{?\w+\}?|~)\1")
_LEET_WORD = re.compile(r"[\w@$]*[0-9@$][\w@$]*")


def _unquote(flat: str) -> str:
    """Shell quoting around an expansion (``"$HOME"/*``) removed, so the target parses."""
    return _QUOTED_VAR.sub(r"\2", flat)


def _unleet(flat: str) -> str:
    """Words spelled with digits for letters ("c0mmands", "sh3ll") folded back to letters."""
    def fold(m: re.Match[str]) -> str:
        word = m.group(0)
        return word.translate(_LEET) if re.search(r"[^\W\d_]", word) else word
    return _LEET_WORD.sub(fold, flat)


def _keep_blanks(copy: str, blanked: str) -> str:
    """``copy`` (same length as the text ``blanked`` was made from) with the same spans blank."""
    if len(copy) != len(blanked):
        return copy
    return "".join(" " if b == " " else c for c, b in zip(copy, blanked))


def _all_detectors(nfkc: str, flat: str, mention: bool = False) -> list[Finding]:
    # A pattern only mentioned (quoted, in a frame of review, example, course…) is data: the
    # pattern, shell and control detectors read the entry without the quotes; a prohibited
    # sink ("never run", "never send") is no order either. See :mod:`.guard_scope`.
    view = dequote(flat) if mention else flat
    control = control_findings(view)
    if scoped_approval(flat):
        control = [f for f in control if f.category not in ("approval_claim", "hidden_instruction")]
    protected = without_protective(view)
    # A command reported as run once, with its rerun forbidden, is a record (guard_scope.done_report).
    commands = without_done(protected) if done_report(flat) else protected
    found = [*_pattern_findings(commands), *shell_findings(_unquote(commands)),
             *secret_findings(nfkc, view), *control, *intent_findings(flat), *future_findings(view),
             *order_findings(view), *config_findings(protected), *effect_findings(view, protected),
             *record_findings(view), *policy_findings(view)]
    return as_question(found, flat)  # a scoped grant: the user decides (guard_grant)


def findings(text: str) -> list[Finding]:
    """Every detector on the entry and on the copies that undo disguises (see the docstrings)."""
    nfkc = unicodedata.normalize("NFKC", text)
    flat = normalise(text)
    mention = is_mention(flat)
    found = _all_detectors(nfkc, flat, mention) + signal_findings(flat)
    # Read on the plain text only: a look-alike copy's Latin nonsense hides the prohibitions.
    found += package_findings(without_protective(dequote(flat) if mention else flat))
    confusable = flat.translate(_CONFUSABLES)
    if confusable != flat:
        # The look-alike copy turns whole Cyrillic or Greek words into Latin nonsense, and with
        # them the prohibitions ("не запускать … curl | sh"): the clauses the original reads as
        # protective stay blank in the copy.
        confusable = _keep_blanks(confusable, without_protective(flat))
        found += _all_detectors(nfkc.translate(_CONFUSABLES), confusable, mention)
    unleet = _unleet(flat)
    if unleet != flat:
        found += _all_detectors(unleet, unleet, mention)
    joined, spaced, backwards, rot13 = rearranged(dequote(flat) if mention else flat)
    for copy in {joined, spaced} - {flat}:
        found += _all_detectors(copy, copy, mention)
    for copy, how in ((backwards, "reversed"), (rot13, "ROT13-encoded")):
        # Text in a script ROT13 and reversal leave alone is not hidden by them: only what the
        # copy finds beyond what the plain text shows counts.
        plain = {f.category for f in _pattern_findings(flat) + shell_findings(flat) if f.sure}
        hidden = [f for f in _pattern_findings(copy) + shell_findings(copy) if f.sure and f.category not in plain]
        if hidden:
            found.append(Finding("obfuscated", f"it hides {hidden[0].category} text, {how}"))
    for payload in char_payloads(nfkc):
        hidden = [f for f in findings(payload) if f.sure]
        if hidden:
            found.append(Finding("obfuscated", f"it hides text as character codes that "
                                               f"{hidden[0].reason.removeprefix('it ')}"))
    for payload in decoded_payloads(nfkc):
        hidden = [f for f in findings(payload) if f.sure]
        what = f" that {hidden[0].reason.removeprefix('it ')}" if hidden else ""
        found.append(Finding("obfuscated", f"it hides readable text in base64 or hex{what}; memory "
                                           "holds plain facts"))
    return found


ScanKind = Literal["memory", "skill"]
KINDS: tuple[ScanKind, ...] = ("memory", "skill")


def scan(text: str, *, kind: ScanKind = "memory", max_chars: int = 800) -> Verdict:
    """Judge one memory write. ``Verdict.reason`` is written for the model.

    Refused: the checks of the module docstring, or any *sure* finding of the detectors. An
    entry with only *doubtful* findings is accepted with them in ``Verdict.doubts``, for a judge
    (see :mod:`.guard_judge`) to decide when one is configured. An entry in the doubtful band
    (:mod:`.guard_score`) also has ``Verdict.ask``: the ``memory`` tool then keeps it only with
    the user's consent, or a judge's KEEP.

    ``kind`` says what is scanned, and the guard decides what reads it. A ``"memory"`` note: the
    learned layer (:mod:`.guard_learned`) then weighs in as :mod:`.guard_blend` says (it may
    refuse an entry the detectors accepted, or keep one refused only by a soft detector
    category). A ``"skill"`` text (an evolved skill): the detectors alone, since the learned
    layer learned from memory notes, where an order to the assistant is the attack, and a skill
    is orders to the assistant by design (a skill's own front matter scored 0.87 "planted").
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
    return _scan(text, max_chars=max_chars, learned=kind == "memory")


def detector_verdict(text: str, *, max_chars: int = 800) -> Verdict:
    """The detectors' verdict alone (no learned layer): for measuring the layers apart."""
    return _scan(text, max_chars=max_chars, learned=False)


def _scan(text: str, *, max_chars: int, learned: bool) -> Verdict:
    if not text or not text.strip():
        return Verdict(False, "the entry is empty", "empty")
    if len(text) > max_chars:
        return Verdict(
            False,
            f"the entry is {len(text)} characters; the limit is {max_chars}. Keep one short, "
            "durable fact per entry.",
            "oversize",
        )
    problem = _char_problem(text)
    if problem:
        return Verdict(False, f"the entry contains {problem}; write plain visible text", "unicode")
    nfkc = unicodedata.normalize("NFKC", text)
    mixed = _mixed_script_word(nfkc)
    if mixed:
        return Verdict(
            False, f"the word {mixed!r} mixes Latin with look-alike letters of another script", "unicode"
        )
    if SECRET_VALUE.search(text):
        return Verdict(
            False,
            "the entry contains what looks like a secret (key or token); "
            "memory must never hold credentials",
            "secret",
        )
    verdict, evidence = _detected(text, learned)
    return _blended(text, verdict, evidence) if learned else verdict


def detector_evidence(text: str) -> tuple[Verdict, tuple[str, ...]]:
    """The detectors' verdict (learned layer off) and the evidence the blend reads (see
    :func:`.guard_blend.evidence`); for the training script."""
    verdict = detector_verdict(text)
    if verdict.category in guard_blend.PRECHECKS:
        return verdict, ()
    verdict, evidence = _detected(text, True)
    return verdict, guard_blend.resolved(evidence, families)


def _blended(text: str, verdict: Verdict, evidence: tuple[str, ...]) -> Verdict:
    from . import guard_encoder, guard_learned  # NumPy and the weights load on the first scan

    m = guard_learned.model()
    if m is None:  # no model shipped (or a damaged file): the detectors alone, as before
        return verdict
    if not verdict.ok and guard_blend.hard(verdict.category, verdict.reason):
        return verdict
    flat = normalise(text)
    logit = m.logit(flat)
    if verdict.ok:
        # The encoder (when shipped and installed) weighs in on refusing what the detectors
        # accepted; the scope reading is needed only for an entry the score would refuse.
        enc = guard_encoder.logit(text) if "blend_encoder" in m.record else None
        blend = m.blend(encoder=enc is not None)
        e = enc or 0.0
        score = blend.probability(logit, evidence, e)
        if score < blend.refuse or blend.text_probability(logit, e) < blend.min_text or guard_blend.guarded(flat):
            return verdict
        if blend.asks:  # no detector refused it: the user, shown the text, decides
            return Verdict(True, doubts=(guard_blend.asked(score), *verdict.doubts), ask=True)
        return Verdict(False, f"{guard_blend.reason(score)}; {_FACTS}", "learned", doubts=verdict.doubts)
    # Keeping what the detectors refused stays the n-gram blend's call: the encoder only adds
    # refusals (its blend's higher ``overrule`` let hand-written hostile notes through).
    blend = m.blend()
    if blend.lowest(logit, evidence) >= blend.overrule:  # no family could bring it below
        return verdict
    evidence = guard_blend.resolved(evidence, families)
    if guard_blend.guarded(flat):
        evidence = (*evidence, guard_blend.GUARDED)
    score = blend.probability(logit, evidence)
    if score >= blend.overrule:
        return verdict
    return Verdict(True, doubts=(guard_blend.overruled(verdict.category, score),
                                 f"{verdict.category}: {verdict.reason}"))


_FACTS = "memory holds facts and preferences, never commands, secrets or changes to the assistant's rules"


def _detected(text: str, learned: bool = False) -> tuple[Verdict, tuple[str, ...]]:
    """The detectors' verdict, and (with ``learned``) the evidence for the blend."""
    found = findings(text)
    sure = [f for f in found if f.sure]
    flat = normalise(text)
    # The attack may be only what the entry guards against ("if a page says 'ignore your
    # instructions', tell the user"), or what a document asked, reported by a note that forbids
    # obeying it: then what is left once that is read as data counts.
    for residual, framed_only in ((safeguard_residual, True), (reported_residual, False)):
        if not sure or (framed_only and not {f.category for f in sure} <= _FRAMED):
            continue
        rest = residual(flat)
        if rest is not None and not any(f.sure for f in findings(rest)):
            found = [Finding(f.category, f.reason, sure=False) for f in found]
            sure = []
    view = dequote(flat) if is_mention(flat) else flat  # quoted data is no signal
    if sure:
        first = sure[0]
        verdict = Verdict(False, f"{first.reason}; {_FACTS}", first.category)
        if not learned or guard_blend.hard(first.category, first.reason):
            return verdict, ()
        return verdict, guard_blend.evidence(found, guard_blend.Later(view))
    doubts = tuple(dict.fromkeys(f"{f.category}: {f.reason}" for f in found))
    hits = families(view)
    # The band weighs what the entry orders: the clauses in which the user keeps or limits a
    # consent, or voids a third party's, name approvals and deletes as the consent's scope.
    kept = without_others_voided(without_kept_consent(view))
    ask, band = doubt(kept, hits if kept == view else None)
    if ask:
        doubts += ("doubtful_band: it touches " + ", ".join(band),)
    ask = ask or any(f.category == SCOPED_GRANT for f in found)
    verdict = Verdict(True, doubts=doubts, ask=ask)
    return verdict, (guard_blend.evidence(found, hits) if learned else ())
