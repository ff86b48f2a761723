"""A scoped grant: the user lets one named act run without asking and keeps asking for the rest.

"I may run `git push` to `feature/ingest-v2` without asking; force-push and pushing to `main`
still require asking", "可以在 `dev-sandbox` 里删除卡住的 Pod，不用再问。其他命名空间必须先取得确认",
"ลบไฟล์ใน `exports/tmp/` ได้โดยไม่ต้องถาม … โฟลเดอร์อื่นต้องขออนุญาตก่อน": a permission like this is
what a careful user writes down, and it is also what a planted note would claim. Memory cannot
grant an approval (the approver gates every command), so the guard neither refuses it as a
claimed approval nor keeps it silently: it asks the user, who sees the text and decides.

The reading needs three things, each in its own sentence or clause:

- **a grant** that names its scope: a command, branch, folder or namespace in quotes or
  backticks, or a word that narrows it ("only", "tylko", "只", "เท่านั้น"), and nothing blanket
  ("everything", "all commands", "任何");
- **the rest kept**: another sentence that requires the user's word ("still require asking",
  "必须先取得确认", "ต้องขออนุญาตก่อน") or forbids acting without it ("nothing else without asking",
  "nic więcej bez pytania"), and waives nothing itself;
- no other harm: only the approval and hiding findings give way to the question (see
  :func:`.guard._all_detectors`); a grant that also sends a secret or runs a download is refused.
"""

from __future__ import annotations

import re

from . import guard_concepts_scope as S
from . import guard_lexicon as L
from .guard_detectors import Finding
from .guard_consent import ASKING, BLANKET, WITHOUT_ASKING, negated_ask
from .guard_kept import WITHOUT_CONSENT

# Thai ends a sentence with a space, not a mark.
_SENTENCES = re.compile(r"[.;!?。；！？\n](?:\s|$)|[。；！？]|(?<=[\u0e00-\u0e7f])\s+(?=[\u0e00-\u0e7f])")
_NAMED = re.compile(r"`[^`]+`|«[^»]+»|“[^”]+”|\"[^\"]+\"|「[^」]+」|'[^'\s][^']*'")
_ONLY = re.compile(L.alt(*S.ONLY, r"\bexactly\b", r"\bjust\b", r"\bsirf\b", r"\bbas\b"))
_GRANT = re.compile(L.alt(L.APPROVAL, WITHOUT_ASKING.pattern, r"\bmay\b", r"\bcan\b", r"\ballowed\b", r"不用再?问",
                          r"不用再?問", r"不必再?问", r"可以", r"\bizn\w*", r"\w+[ae]bil(?:ir|ir\w+)\b", r"\bmogę\b", r"\bmoże\w*", r"\bpuedo\b", r"\bpuede\w*", r"\bpeux\b",
                          r"\bpeut\b", r"\bdarf\b", r"\bdürfen\b", r"\bmag\b", r"\bposso\b", r"\bpuò\b", r"\bможно\b", r"\bможу\b", r"してよい", r"してもいい", r"해도 된다", r"ได้"))
# What the user's word is called where it is required ("asking", "confirmation", "my OK").
_CONSENT = re.compile(L.alt(
    ASKING.pattern, r"\bapprov\w*", r"\bconfirm\w*", r"\bconsent\w*", r"\bpermission\w*", r"\bok\b", r"\bokay\b",
    r"\bgo-ahead\b", r"\bsign-?off\b", r"\bzustimmung\b", r"\bfreigabe\b", r"\bbestätigung\b", r"\bautorisation\b",
    r"\baccord\b", r"\bvalidation\b", r"\bautorizaci\w*", r"\bpermiso\b", r"\bautorizaç\w*", r"\bpermissão\b",
    r"\bautorizzazione\b", r"\bpermesso\b", r"\btoestemming\b", r"\bgoedkeuring\b", r"\bzgod\w*", r"\bpozwoleni\w*",
    r"\bразрешени\w*", r"\bсогласи\w*", r"\bподтвержд\w*", r"\bдозвіл\w*", r"\bзгод\w*", r"\bonay\w*", r"\bizin\w*",
    r"\bέγκρισ\w*", r"\bάδει\w*", r"\bxin phép\b", r"\bxác nhận\b", r"\bizin\b", r"\bpersetujuan\b", r"确认", r"確認",
    r"同意", r"授权", r"授權", r"批准", r"許可", r"承認", r"승인", r"허락", r"동의", r"อนุญาต", r"ยืนยัน", r"إذن", r"موافق\w*",
    r"אישור", r"अनुमति", r"इजाज़त", r"\bpooch\w*", r"\bpuch\w*", r"\bijazat\b",
))
# What makes the user's word a requirement ("still require", "必须先", "ต้อง … ก่อน", "trzeba").
_REQUIRED = re.compile(L.alt(
    *S.FIRST, r"\brequir\w*", r"\bneeds?\b", r"\bmust\b", r"\bha(?:ve|s) to\b", r"\bstill\b", r"\balways\b",
    r"\bexig\w*", r"\bnécessit\w*", r"\bdoi(?:t|vent)\b", r"\bfaut\b", r"\btoujours\b", r"\berforder\w*", r"\bbrauch\w*",
    r"\bmuss\w*", r"\bmüssen\b", r"\bimmer\b", r"\brequier\w*", r"\bnecesit\w*", r"\bdeben?\b", r"\bhay que\b",
    r"\bsiempre\b", r"\brequer\w*", r"\bprecis\w*", r"\bdevem?\b", r"\bsempre\b", r"\brichied\w*", r"\bdevono\b",
    r"\bvereist\b", r"\bmoet\w*", r"\baltijd\b", r"\bwymaga\w*", r"\bmusi\w*", r"\btrzeba\b", r"\bzawsze\b",
    r"\bnajpierw\b", r"\bтребу\w*", r"\bнужн\w*", r"\bдолжн\w*", r"\bнеобходим\w*", r"\bвсегда\b", r"\bпотріб\w*",
    r"\bзавжди\b", r"\bgerek\w*", r"\bzorunda\b", r"\bher zaman\b", r"\bönce\b", r"\bαπαιτ\w*", r"\bπρέπει\b",
    r"\bχρειάζ\w*", r"\bπάντα\b", r"\bπρώτα\b", r"\bphải\b", r"\bcần\b", r"\bharus\b", r"\bperlu\b", r"\bwajib\b",
    r"必须", r"必須", r"需要", r"须", r"須", r"必要", r"必ず", r"반드시", r"받아야", r"ต้อง", r"يجب", r"يلزم", r"يتطلب",
    r"חייב\w*", r"דורש\w*", r"צריך", r"चाहिए", r"ज़रूरी", r"जरूरी", r"\bzaroor\w*", r"\bchahiye\b", r"\bpehle\b",
))
# "Nothing else without asking", "hiçbir … onaysız", "Nic więcej bez pytania": no act without the word.
_NOTHING = re.compile(L.alt(
    L.NEGATION, r"\bnothing\b", r"\bnone\b", r"\bno other\b", r"\brien\b", r"\bnichts\b", r"\bnada\b", r"\bniente\b",
    r"\bniets\b", r"\bnic\b", r"\bżadn\w*", r"\bничего\b", r"\bнічого\b", r"\bhiçbir\b", r"\bτίποτα\b", r"\bκαμία\b",
    r"\bkhông\b", r"\btidak\b", r"一律不", r"不得", r"不能", r"不可", r"しない", r"않", r"ไม่", r"לא", r"नहीं", r"\bnahi\b",
))
_WITHOUT_WORD = re.compile(L.alt(WITHOUT_CONSENT.pattern, r"\bonaysız\b", r"\bizinsiz\b", r"\bsormadan\b", r"未经",
                                 r"未經", r"確認なしに", r"허락 없이", r"승인 없이", r"โดยไม่ได้รับอนุญาต", r"بدون إذن", r"בלי אישור"))


# A blanket with one word between ("any `git` command", "all shell scripts").
_WIDE = re.compile(r"\b(?:all|every|any)\s+(?:\S+\s+)?(?:commands?|actions?|operations?|scripts?|files?|changes?)\b")


def _grants_in_scope(sentence: str) -> bool:
    """A sentence that lets something run without asking and names what, narrowly."""
    if not (WITHOUT_ASKING.search(sentence) or negated_ask(sentence) or _GRANT.search(sentence)):
        return False
    if re.search(L.EVERYTHING, sentence) or BLANKET.search(sentence) or _WIDE.search(sentence):
        return False
    return bool(_NAMED.search(sentence) or _ONLY.search(sentence))


def _keeps_the_rest(sentence: str) -> bool:
    """A sentence that requires the user's word for what it names, and waives none of it."""
    without = _WITHOUT_WORD.search(sentence)
    if without:  # "nothing else without asking": a negation before the "without" governs it
        head = sentence[:without.start()]
        rest = head + " " * len(without.group()) + sentence[without.end():]
        return bool(_NOTHING.search(head) or _NOTHING.search(sentence, without.end())) and \
            not WITHOUT_ASKING.search(rest) and not re.search(L.LOWER, rest)
    if WITHOUT_ASKING.search(sentence) or negated_ask(sentence) or re.search(L.LOWER, sentence):
        return False
    return any(_REQUIRED.search(sentence, max(0, c.start() - 60), c.end() + 40) for c in _CONSENT.finditer(sentence))


def scoped_grant(flat: str) -> bool:
    """The entry grants one named act without asking and keeps the user's word for the rest;
    every sentence that waives asking is in scope (one blanket waiver beside it is no scope)."""
    # Hiding from the user is no scope ("… without asking, and don't tell the user"); the
    # waiver itself ("without asking") also reads as secrecy, so it is left out of that test.
    if re.search(L.SECRECY_USER, WITHOUT_ASKING.sub(" ", _WITHOUT_WORD.sub(" ", flat))):
        return False
    sentences = [s for s in _SENTENCES.split(flat) if s.strip()]
    kept = [_keeps_the_rest(s) for s in sentences]
    waivers = [s for s, k in zip(sentences, kept) if not k and (WITHOUT_ASKING.search(s) or negated_ask(s))]
    if any(not _grants_in_scope(s) for s in waivers):
        return False
    return any(kept) and any(_grants_in_scope(s) for s, k in zip(sentences, kept) if not k)


# What a scoped grant turns from a refusal into a question to the user.
_GRANTED = {"approval_claim", "hidden_instruction"}
SCOPED_GRANT = "scoped_grant"


def as_question(found: list[Finding], flat: str) -> list[Finding]:
    """``found`` with the approval and hiding findings made doubtful, and a scoped-grant finding
    that sends the entry to the user, when the entry is a scoped grant."""
    if not (any(f.sure and f.category in _GRANTED for f in found) and scoped_grant(flat)):
        return found
    return [*(Finding(f.category, f.reason, sure=False) if f.category in _GRANTED else f for f in found),
            Finding(SCOPED_GRANT, "it lets one named act run without asking and keeps asking for the rest; "
                    "only the user can grant that", sure=False)]
