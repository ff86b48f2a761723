"""What an order's verb acts on, for the secret-flow detectors (:mod:`.guard_detectors`).

A verb is *affirmed* when nothing turns it into a prohibition or a masked display: a negation
just before it, a negated object ("no secret … is ever saved"), a mask later in its sentence
("shown as ***") or a masking verb before it ("mask credentials when printing"). A secret word
is *near* a verb when it stands in the verb's object: a few words after it, or, in a language
that puts the object first, in its clause before it.
"""

from __future__ import annotations

import re

from . import guard_lexicon as L


def _c(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


_SECRET_WORD = _c(L.SECRET_WORDS)
_NEG = _c(L.NEGATION + r"(?!\W*(?:forget|fail|omit|hesitate|neglect)\b)\W*(?:\w+\W+){0,3}$")


# A value shown masked ("displayed as ***", "with the password as [REDACTED]"), the mask later in
# the sentence: the mask is what is shown.
_MASKED = _c(r"[^.;!?。；！？\n]{0,60}?(?:\*{3,}|•{3,}|\bx{4,}\b|\[(?:redacted|masked|hidden)\]|<(?:redacted|masked|hidden)>)")
# "no secret, token or password (is ever) saved": the negation on the object, not the verb.
_NO_OBJECT = _c(r"(?:^|[^\w])(?:no|kein\w*|aucun\w*|nessun\w*|ning[uú]n\w*|nenhum\w*|geen|żadn\w*|никак\w*|"
                r"жодн\w*|ніяк\w*)\W+(?:\w+\W+)?" + L.SECRET_WORDS + r"[^.;!?。；！？]*$")


def masked_clause(flat: str, m: re.Match[str]) -> bool:
    """A masking verb, not negated, in the sentence before the verb ("mask credentials when
    printing connection strings")."""
    start = max((x.end() for x in re.finditer(r"[.;!?。；！？\n]", flat[:m.start()])), default=0)
    return any(not _NEG.search(flat[max(0, v.start() - 25):v.start()]) for v in _MASK_VERB.finditer(flat, start, m.start()))


def affirmed(pattern: re.Pattern[str], flat: str) -> list[re.Match[str]]:
    """The matches of ``pattern`` that no negation just before turns into a prohibition
    ("never wants keys echoed"); "don't forget to print" stays an order."""
    return [m for m in pattern.finditer(flat) if not _NEG.search(flat[max(0, m.start() - 40):m.start()])
            and not _MASKED.match(flat, m.end()) and not masked_clause(flat, m)
            and not _NO_OBJECT.search(flat[max(0, m.start() - 80):m.start()])]


_OBJECT = re.compile(r"(?:\s*[^\s,;:.!?，；：。！？]+){0,4}")


_CLAUSE_START = re.compile(r"[,;:.!?，；：。！？、]")
# After the verb's stem: a noun's particle ("출력에서": in the output) or a passive ("출력되면",
# "表示される"): the secret before it is not the object of an order.
_NOT_A_VERB = re.compile(r"(?:에서|에|은|는|을|를|이|가|되|된|돼|の|に|で|を|は|が|され|される|された)")
# A masking verb, not negated, in the clause of the show verb: what is shown is masked.
_MASK_VERB = re.compile(L.alt(r"\bmask\w*", r"\bredact\w*", r"\bscrub\w*", r"\bcensor\w*", r"\bmasqu\w*", r"\bmaskier\w*",
                              r"\bschwärz\w*", r"\benmascar\w*", r"\bmascar\w*", r"\boscur\w*", r"\bзамаск\w*", r"\bмаскир\w*",
                              r"脱敏", r"打码", r"遮蔽", r"マスク", r"伏せ", r"마스킹", r"가려", r"가리"))


def near(verbs: list[re.Match[str]], flat: str) -> bool:
    """A secret *word* in the object of one of the verbs ("send the API keys", "print the DB
    password", "发送密码"): within its first four words, or 15 characters of an unspaced script;
    or, for a verb of a script that puts the object first (Korean, Japanese, Hindi, Turkish…:
    "토큰을 즉시 출력하세요"), within the 20 characters of its clause before it."""
    def before(m: re.Match[str]) -> str:
        if m.group().isascii() or _NOT_A_VERB.match(flat, m.end()):
            return ""
        return _CLAUSE_START.split(flat[max(0, m.start() - 20):m.start()])[-1]
    return any(_SECRET_WORD.search(flat[m.end():m.end() + 15]) or _SECRET_WORD.search(_OBJECT.match(flat, m.end()).group())
               or _SECRET_WORD.search(before(m)) for m in verbs)
