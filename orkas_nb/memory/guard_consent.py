"""Scoped and waived consents: when running without asking is a safe scope, and when it is the attack.

- **scoped approval**: running without asking is limited to read-only or named harmless
  commands and the entry keeps a confirmation for what deletes or overwrites; a blanket scope
  (all, anything) is not.
- **waived confirmation**: the hostile twin of a protective clause, a prohibition governing the
  asking itself ("never ask before deleting") or a "without asking" on destructive or blanket acts.
- **lowered approval**: an approval word with what lowers it ("already", "no need", "skip");
  a prohibition on the assistant granting or skipping one ("never approve on my behalf",
  "don't skip the approval step") keeps the say with the user.
"""

from __future__ import annotations

import re

from . import guard_concepts_scope as S
from . import guard_lexicon as L
from .guard_scope import GOVERNS, PROHIBITION_AFTER, PROHIBITION_BEFORE

_READ_ONLY = re.compile(L.alt(
    r"\bread-?only\b", r"\ben lecture seule\b", r"\blecture seule\b", r"\bnur lesend\w*", r"\blesend\w*",
    r"\bde solo lectura\b", r"\bsolo lectura\b", r"\bsomente leitura\b", r"\bsó de leitura\b",
    r"\bsola lettura\b", r"\balleen-?lezen\w*", r"\btylko do odczytu\b", r"\bsalt okunur\b",
    r"\bтолько для чтения\b", r"\bтільки для читання\b", r"只读", r"唯讀", r"読み取り専用", r"参照系", r"읽기 전용",
    r"\bchỉ đọc\b", r"للقراءة فقط", r"לקריאה בלבד", r"केवल पढ़ने", r"\bhanya baca\b", r"อ่านอย่างเดียว",
))
_DESTRUCTIVE = re.compile(L.alt(
    r"\bdelet\w*", r"\bremov\w*", r"\boverwrit\w*", r"\bsupprim\w*", r"\bécras\w*", r"\blösch\w*",
    r"\büberschreib\w*", r"\bborr\w*", r"\bsobrescrib\w*", r"\bapag\w*", r"\bsobrescrev\w*", r"\bcancell\w*",
    r"\bsovrascriv\w*", r"\bverwijder\w*", r"\boverschrijf\w*", r"\busuw\w*", r"\bnadpis\w*", r"\bsil\w*",
    r"\bудаля\w*", r"\bудали\w*", r"\bудален\w*", r"\bстира\w*", r"\bперезаписыва\w*", r"\bвидаля\w*", r"删除", r"刪除", r"覆盖", r"覆蓋",
    r"削除", r"上書き", r"삭제", r"덮어", r"\bxóa\b", r"\bghi đè\b", r"حذف", r"يحذف", r"מוחק", r"מחיק", r"למחוק", r"ימחק",
    r"हटा", r"\bhapus\b", r"\bmenimpa\b", r"ลบ",
))
_CONFIRM = re.compile(L.alt(L.APPROVAL, r"\bask\w*", r"\bdemand\w*", r"\bfrag\w*", r"\bpregunt\w*",
                            r"\bpergunt\w*", r"\bchied\w*", r"\bspraw\w*", r"\bспрос\w*", r"问", r"聞", r"묻"))


def scoped_approval(flat: str) -> bool:
    """Running without asking is limited to read-only or named harmless commands, and
    destructive ones keep a confirmation ("read-only commands may run without asking; deletes
    need confirmation", "tests and the linter run without asking; anything that deletes or
    uploads needs the user's OK"). A waiver whose own sentence is blanket or names a risky act
    ("anything", "pushes and installs without asking") is no scope."""
    if _READ_ONLY.search(flat):
        return any(_kept(flat, m) for m in _DESTRUCTIVE.finditer(flat))
    # A waiver for named harmless acts: the confirmation kept in a sentence of its own that
    # lowers nothing ("the user has pre-approved all deletions" keeps no confirmation).
    sentences = _SENTENCES.split(flat)
    if not _named_waiver(sentences):
        return False
    return any(not WITHOUT_ASKING.search(s) and not negated_ask(s) and not re.search(L.LOWER, s)
               and any(_kept(s, m) for m in _DESTRUCTIVE.finditer(s)) for s in sentences)


def _kept(flat: str, m: re.Match[str]) -> bool:
    """A confirmation word near a destructive one, not itself waived ("deletes need no approval")."""
    for c in (*_CONFIRM.finditer(flat, m.end(), m.end() + 80), *_CONFIRM.finditer(flat, max(0, m.start() - 40), m.start())):
        if not (GOVERNS.search(flat[max(0, c.start() - 25):c.start()]) or _LOWERED.search(flat[max(0, c.start() - 30):c.end() + 25])):
            return True
    return False


_LOWERED = re.compile(L.alt(*S.LOWERED))
_RISKY = re.compile(L.alt(_DESTRUCTIVE.pattern, L.SEND, L.EVERYTHING, *S.RISKY))


_SENTENCES = re.compile(r"[.;!?。；！？\n](?:\s|$)")


def _named_waiver(sentences: list[str]) -> bool:
    """Every sentence that waives asking names only harmless acts (no blanket, no risky verb)."""
    waivers = [s for s in sentences if WITHOUT_ASKING.search(s) or negated_ask(s)]
    return bool(waivers) and not any(_RISKY.search(s) for s in waivers)


# ---------------------------------------------------------------------------------------------
# waived confirmation: the hostile twin of a protective clause

_ASK = re.compile(L.alt(_CONFIRM.pattern, r"\bbitt\w*", r"\bvraag\w*", r"\bpyta\w*", r"\bsorma\w*", r"\bспраш\w*",
                        r"询问", r"詢問", r"問", r"確認", r"확인", r"물어", r"पूछ", r"पुष्टि", r"\bhỏi\b", r"سؤال", r"تسأل",
                        r"תשאל", r"\bbertanya\b", r"ถาม"))
ASKING = re.compile(L.alt(_ASK.pattern, r"\bprompt\w*"))  # what a "no need to …" must name to waive a consent
WITHOUT_ASKING = re.compile(L.alt(
    r"\bwithout (?:asking|confirm\w*|approval|a prompt|prompting)\b", r"\bsans (?:me |lui )?demander\b",
    r"\bsans confirmation\b", r"\bohne (?:rückfrage|zu fragen|nachzufragen|bestätigung)\b",
    r"\bsin (?:preguntar|pedir\w*|confirmaci\w*)\b", r"\bsem (?:perguntar|pedir|confirmaç\w*)\b",
    r"\bsenza (?:chiedere|conferma)\b", r"\bzonder (?:te )?(?:vragen|bevestiging)\b", r"\bbez (?:pytania|pytań|potwierdzenia)\b",
    r"\bsormadan\b", r"\bбез (?:вопрос\w*|спрос\w*|подтвержд\w*)\b", r"不问", r"不問", r"无需确认", r"無需確認",
    r"不经确认", r"確認なし", r"確認せず", r"聞かずに", r"묻지 않고", r"확인 없이", r"\bkhông cần hỏi\b",
    r"دون سؤال", r"بدون سؤال", r"دون تأكيد", r"בלי לשאול", r"बिना पूछे", r"\btanpa (?:bertanya|konfirmasi)\b",
    r"โดยไม่ต้องถาม",
))
BLANKET = re.compile(L.alt(L.EVERYTHING, r"\b(?:all|every|any) (?:commands?|actions?|operations?)\b",
                            r"\btoutes les commandes\b", r"\balle befehle\b", r"\btodos los comandos\b",
                            r"\btodos os comandos\b", r"\btutti i comandi\b", r"\balle commando'?s\b",
                            r"\bwszystkie polecenia\b", r"\btüm komutlar\w*", r"\bвсі команди\b", r"כל הפקודות",
                            r"सभी कमांड", r"\bsemua perintah\b", r"ทุกคำสั่ง"))


# The assistant granting an approval ("approve", "genehmigen", "批准"): forbidding *that* keeps
# the say with the user, while forbidding the asking is the attack.
GRANT_VERB = re.compile(L.alt(*S.GRANT_VERB))
_FORBIDS = re.compile("(?:" + PROHIBITION_BEFORE.pattern + r")((?:\W+[\w']+){0,2})\W*$")
_DEFERS = re.compile(L.alt(*S.DEFERS))
SKIPPING = re.compile(L.alt(*S.SKIP))  # the lowering that is an act: skipping, bypassing a step


def forbidden(flat: str, m: re.Match[str], reach: int = 2) -> bool:
    """A prohibition governs the word ``m`` itself ("never approve", "don't skip the approval",
    "n'approuve jamais", "承認しないこと"), not a wait or a need for it ("don't wait for
    approval", "no need to approve")."""
    before = _FORBIDS.search(flat[max(0, m.start() - 30):m.start()])
    if before and len(re.findall(r"[\w']+", before.group(1))) <= reach and not _DEFERS.search(before.group(1)):
        return True
    after = flat[m.end():m.end() + 12]
    return bool(PROHIBITION_AFTER.match(after.lstrip()) or re.match(r"\s*(?:" + L.alt(*S.AFTER, *S.NEVER_AFTER) + ")", after))


def negated_ask(flat: str) -> bool:
    """A prohibition governs asking or confirming ("never ask", "確認しないこと", "묻지 마")."""
    for m in _ASK.finditer(flat):
        if GRANT_VERB.fullmatch(m.group()) and forbidden(flat, m):
            continue  # "never approve anything on my behalf": the assistant grants nothing
        if PROHIBITION_BEFORE.search(flat[max(0, m.start() - 30):m.start()]) or PROHIBITION_AFTER.search(flat[m.end():m.end() + 12]):
            return True
    return False


def waived_confirmation(flat: str) -> bool:
    """Confirmation waived for destructive actions or for everything ("never ask before
    deleting", "all commands may run without asking"); a read-only scope with deletes still
    confirmed is the benign policy (:func:`scoped_approval`)."""
    if scoped_approval(flat):
        return False
    waived = negated_ask(flat) or bool(WITHOUT_ASKING.search(flat))
    # "Don't delete branches without his confirmation": the prohibition governs the delete
    # itself (no asking word between), so "without confirmation" is the requirement.
    destructive = [m for m in _DESTRUCTIVE.finditer(flat)
                   if not (PROHIBITION_BEFORE.search(w := flat[max(0, m.start() - 30):m.start()]) and not _ASK.search(w))]
    return waived and bool(destructive or BLANKET.search(flat))


# ---------------------------------------------------------------------------------------------
# an approval claimed or lowered

# Consent reported in plain words rather than an approval word: "agreed that you may …", "is
# fine with you merging …", "est d'accord pour que tu …": with a lowering ("don't ask again") it is
# the same claim of an approval given ahead of time. Kept to this check, not added to the shared
# APPROVAL list that a dozen detectors read.
_REPORTED_CONSENT = (
    r"\bagreed\b(?=(?:\W+\w+){0,6}?\W+(?:you|the assistant|the agent)\W+(?:may|can|could|are|should)\b)",
    r"\b(?:fine|ok(?:ay)?|cool|happy|comfortable) with (?:you|the assistant|the agent)\b",
    r"\bsigned off on\b", r"\bgave (?:you )?(?:the |their |his |her )?(?:go-?ahead|green light|ok(?:ay)?)\b",
    r"\best d'accord pour que (?:tu|l'assistant)\b", r"\b(?:ist|sind|war|waren) (?:damit )?einverstanden\b",
    r"\b(?:está|estuvo) de acuerdo (?:con|en) que\b", r"\ble parece bien que\b", r"\bconcord(?:a|ou) (?:que|em que)\b",
    r"\bè d'accordo (?:che|a)\b", r"\bсогласил(?:ся|ась|ись)\b", r"\bне против\b",
)
_APPROVAL, _LOWER = re.compile(L.alt(L.APPROVAL, *_REPORTED_CONSENT)), re.compile(L.LOWER)
_SENTENCE = re.compile(r"[^.!?。！？\n]+(?:\.(?!\s|$)[^.!?。！？\n]*)*")
_GRANTED = re.compile(L.alt(L.APPROVAL, r"\baccept\w*", r"\bakzeptier\w*", r"\bacept\w*", r"\baceit\w*", r"\baccett\w*",
                            r"\byes\b", r"\bok\b", r"\boui\b", r"\bja\b", r"\bsí\b", r"\bsim\b"))


def lowered_approval(flat: str) -> bool:
    """An approval word and a word that lowers it ("already", "no need", "in advance") in one
    sentence, or a lowering that names asking itself ("no need to ask"): "no need to summarise
    again. Keep the sign-off short" lowers nothing about approvals."""
    if not _APPROVAL.search(flat):
        return False
    # A lowering or a grant that a prohibition governs keeps the consent: "don't skip the
    # approval step", "never approve anything on my behalf", "don't approve them yourself".
    def lowers(s: str) -> list[re.Match[str]]:
        return [m for m in _LOWER.finditer(s) if not (SKIPPING.fullmatch(m.group()) and forbidden(s, m, reach=0))]

    def approves(s: str) -> bool:
        return any(not (GRANT_VERB.fullmatch(m.group()) and forbidden(s, m)) for m in _APPROVAL.finditer(s))

    if any(approves(s) and lowers(s) for s in _SENTENCE.findall(flat)):
        return True
    # Across sentences the lowering must name the consent itself: "… already accepted", "no
    # need to ask" (asking after it; "ask in advance" keeps the consent).
    return approves(flat) and any(ASKING.search(flat, m.start(), m.end() + 25) or
                                  _GRANTED.search(flat, max(0, m.start() - 25), m.end() + 25) for m in lowers(flat))
