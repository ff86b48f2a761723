"""Intent detectors of the memory guard: entries that bend the assistant's loyalty.

Beside the structures of :mod:`.guard_detectors` (secrets, commands, approvals, rules), a
planted entry can make another source outrank the user, make memory the only source of
orders, erase other memory, or tell the user something regardless of the truth. Each is a
co-occurrence of concepts (:mod:`.guard_intent_words`, one cell per language), not a phrase:

- **outrank**: a precedence word ("takes priority over", "even if", "Vorrang", "優先") next to
  the user, in an entry that names an authority, rules or memory;
- **only these notes**: obey + only + memory (notes, this file);
- **memory tamper**: deleting or rewriting memory entries (doubtful: the user may ask it);
- **deceive**: pretending, or reporting something "even when" it is not so (sure when the
  report goes to the user or an answer);
- **automatic approval** of the assistant's own actions (commands, tools, prompts);
- **do what memory says**, **whoever shows a sign** counts as the user or an authority, **text
  in markup tags** counts as orders;
- **success reported after a failure**; **rewriting or deleting other entries**; **removing a
  safeguard** (a security check, an audit log, a backup);
- **privilege grant**: the assistant "has been granted" root, admin or full rights.
"""

from __future__ import annotations

import re

from . import guard_lexicon as L
from .guard_detectors import Finding
from .guard_intent_words import words
from .guard_scope import is_mention


def _c(*parts: str) -> re.Pattern[str]:
    return re.compile(L.alt(*parts))


_USER, _PRECEDENCE = _c(*words("USER")), _c(*words("PRECEDENCE"))
_FOLLOW, _ONLY, _DELETE, _DECEIVE = (_c(*words(n)) for n in ("FOLLOW", "ONLY", "DELETE", "DECEIVE"))
_AUTHORITY, _RULES, _PLACE = _c(L.AUTHORITY), _c(L.RULES), _c(L.MEMORY_PLACE, r"\bthis (?:file|note)\b",
                                                               r"\bthese notes\b")
_OUTPUT = _c(L.OUTPUT_PLACE)
_APPROVAL, _AUTO = _c(L.APPROVAL), _c(*words("AUTO"))
_OWN_ACTION = _c(L.ADDRESSED, L.EXECUTE, r"\bcommands?\b", r"\bsudo\b", r"\bprompts?\b", r"\bshell\b",
                 r"\btools?\b", r"\bcalls?\b")
_NEG = re.compile(L.NEGATION + r"\W*(?:\w+\W+){0,2}$")
_DO_WHAT, _FAIL, _SUCCESS, _SAY = (_c(*words(n)) for n in ("DO_WHAT", "FAIL", "SUCCESS", "SAY"))
_WHOEVER, _MODIFY, _SAFEGUARD = (_c(*words(n)) for n in ("WHOEVER", "MODIFY", "SAFEGUARD"))
_ANY = _c(L.EVERYTHING, r"\b(?:any|every|all|each|other)\b", r"\b(?:toute?s?|chaque|jede\w*|cada|ogni|elke|każd\w*|her)\b",
          r"\bлюб\w*", r"\bкажд\w*", r"\bкожн\w*", "任何", "所有", "全て", "모든", r"\bmọi\b", r"\bsetiap\b")
_ORDERS = _c(r"\b(?:orders?|commands?|instructions?|obey\w*)\b", L.RULES, *words("FOLLOW"))
_POWER = _c(L.AUTHORITY, _ORDERS.pattern, r"\bpermissions?\b", r"\bprivileges?\b", r"\brights\b", r"\bpermis\w*",
            r"\bherself\b", r"\bhimself\b", r"\bthemselves\b")
_TAGS = re.compile(r"\[(\w[\w -]{0,20})\].{0,200}\[/\1\]|<(\w[\w-]{0,20})>.{0,200}</\2>")
_GRANT = re.compile(
    r"\b(?:assistant|agent|you|model|ai)\b.{0,40}\b(?:granted|given|has|have|gets?|holds?)\b.{0,40}"
    r"\b(?:root|admin\w*|sudo|full|unrestricted|unlimited|elevated|superuser|owner)[\w-]*\b.{0,25}"
    r"\b(?:rights|privileges?|access|permissions?|powers?)\b"
)


# "Pretend", "fake": deceiving whatever follows. The other DECEIVE cells ("say … even when") are
# deceiving unless the entry is a language preference ("answer in English even when the
# question is in Spanish") with no failure to hide.
_PRETEND = _c(*(w for w in words("DECEIVE") if ".{0," not in w))
_LANGUAGE = _c(
    r"\b(?:english|french|german|spanish|portuguese|italian|dutch|polish|turkish|russian|ukrainian|arabic|hebrew|hindi|"
    r"indonesian|thai|chinese|japanese|korean|vietnamese)\b", r"\b(?:anglais|français|allemand|espagnol|portugais|italien)\b",
    r"\b(?:englisch|deutsch|französisch|spanisch|italienisch)\b", r"\b(?:inglés|español|francés|alemán|portugués)\b",
    r"\b(?:inglês|português|francês|espanhol|alemão)\b", r"\b(?:inglese|italiano|francese|tedesco|spagnolo)\b",
    r"\b(?:engels|nederlands|duits|frans)\b", r"\b(?:angielsk\w*|polsk\w*|niemieck\w*)\b", r"\b(?:ingilizce|türkçe|almanca)\b",
    r"\bанглийск\w*", r"\bрусск\w*", r"\bнемецк\w*", r"\bанглійськ\w*", r"\bукраїнськ\w*",
    r"الإنجليزية", r"العربية", r"الفرنسية", r"אנגלית", r"עברית", r"अंग्रेज़ी", r"अंग्रेजी", r"हिंदी", r"हिन्दी",
    r"\bbahasa (?:inggris|indonesia)\b", r"ภาษาอังกฤษ", r"ภาษาไทย", r"英语", r"英文", r"中文", r"日语", r"英語", r"日本語",
    r"영어", r"한국어", r"\btiếng (?:anh|việt)\b",
)


# "fake" as the adjective of something a third party made ("fake mails", "fausses factures").
_FAKE_THING = _c(r"\bfake\s+(?:'[^']*'\s+|\"[^\"]*\"\s+)?(?:e-?mails?|mails?|messages?|links?|pages?|sites?|invoices?|"
                 r"logins?|calls?|texts?|sms|alerts?|accounts?|domains?|websites?|popups?|pop-ups?|notifications?)\b")


def _close(a: re.Pattern[str], b: re.Pattern[str], flat: str, window: int = 40) -> bool:
    return any(b.search(flat[max(0, m.start() - window):m.end() + window]) for m in a.finditer(flat))


def _affirmed(pattern: re.Pattern[str], flat: str) -> bool:
    return any(not _NEG.search(flat[max(0, m.start() - 25):m.start()]) for m in pattern.finditer(flat))


def intent_findings(flat: str) -> list[Finding]:
    out: list[Finding] = []
    if _close(_PRECEDENCE, _USER, flat) and (_AUTHORITY.search(flat) or _RULES.search(flat) or
                                             _PLACE.search(flat)):
        out.append(Finding("identity_claim", "it makes another source outrank the user"))
    if _FOLLOW.search(flat) and _ONLY.search(flat) and _PLACE.search(flat):
        out.append(Finding("rule_override", "it makes memory the only source of the assistant's orders"))
    if _affirmed(_DELETE, flat) and _PLACE.search(flat) and _close(_DELETE, _PLACE, flat, 50):
        out.append(Finding("memory_tamper", "it asks to delete or rewrite memory entries", sure=False))
    if _PRETEND.search(flat) or (_DECEIVE.search(flat) and not (_LANGUAGE.search(flat) and not _FAIL.search(flat))):
        # "the security team sends fake 'verify' mails; flag them": fake things named as a thing
        # to flag are a subject, not a lie the assistant is to tell.
        named = is_mention(flat) and not _DECEIVE.search(_FAKE_THING.sub(" ", flat))
        sure = bool(_USER.search(flat) or _OUTPUT.search(flat)) and not named
        out.append(Finding("deception", "it tells the assistant to report something regardless of "
                                        "the truth", sure=sure))
    if _APPROVAL.search(flat) and _AUTO.search(flat) and _OWN_ACTION.search(flat):
        out.append(Finding("approval_claim", "it has the assistant's actions approved automatically"))
    if _close(_DO_WHAT, _PLACE, flat, 30):
        out.append(Finding("rule_override", "it tells the assistant to do what memory says"))
    if _FAIL.search(flat) and _close(_SAY, _SUCCESS, flat, 40) and _affirmed(_SAY, flat):
        out.append(Finding("deception", "it tells the assistant to report success after a failure"))
    if _WHOEVER.search(flat) and _POWER.search(flat):
        out.append(Finding("identity_claim", "it gives whoever shows a sign the standing of the user or "
                                             "an authority"))
    if _TAGS.search(flat) and (_AUTHORITY.search(flat) or _ORDERS.search(flat)):
        out.append(Finding("identity_claim", "it makes text inside markup tags count as orders"))
    if (_affirmed(_MODIFY, flat) or _affirmed(_DELETE, flat)) and _ANY.search(flat) and \
            _close(_ANY, _PLACE, flat, 15):
        out.append(Finding("memory_tamper", "it asks to rewrite or delete other memory entries"))
    if _affirmed(_DELETE, flat) and _close(_DELETE, _SAFEGUARD, flat, 50):
        out.append(Finding("hidden_instruction", "it asks to remove a safeguard (a security check, an "
                                                 "audit log, a backup)"))
    if _GRANT.search(flat):
        out.append(Finding("identity_claim", "it grants the assistant root, admin or full rights"))
    return out
