"""Changes kept off the record: data or results altered, with the note of it forbidden.

A planted note that tampers with results rarely says "lie"; it orders an ordinary edit (drop the
returns of one branch, shift the clock-in times, keep only the best class's score, overwrite
the baseline) and then forbids the trace of it: "without flagging it", "don't note it in the
cleaning log", "ve bunu belirtme", "không ghi chú gì", "記録しないで". Either half alone is
ordinary (cleaning drops rows; "don't log the token" protects a secret); together they make the
record lie. Read on the entry as written (not its protective reading: a prohibition is the
attack here), in every lexicon language:

- **a record verb negated**: note, flag, log, record, mention, document, explain (a cell of
  :data:`RECORD` per language), with a negation a few words before it (:data:`.guard_lexicon.
  NEGATION`, "without" included) or, where the language puts it after the verb, right after
  it (Japanese, Korean, Hindi, Persian, Thai), or Turkish's negative suffix;
- **an alteration** of data or results: the figures rule's alterations
  (:data:`.guard_concepts_effect.ALTER`), the modify and delete cells of
  :mod:`.guard_intent_words`, "only", and the words of :data:`ALTER`;
- no secret beside the negated verb: "don't log the password" is the protection it looks like.

:mod:`.guard_effect`'s figures rule reads fixed phrases of not saying ("without mentioning it",
"so it looks") beside figures; this one composes the negation with the record verb, so it
holds for any change, figures or not, in the languages of :data:`RECORD`.
"""

from __future__ import annotations

import re

from . import guard_concepts_effect as E
from . import guard_lexicon as L
from .guard_scope import governed
from .guard_detectors import Finding
from .guard_intent_words import words

RECORD: dict[str, tuple[str, ...]] = {
    "en": (r"\bnot(?:e|ed|ing)\b", r"\bflag\w*", r"\bmention\w*", r"\brecord\w*",
           r"\bdocument(?:s|ed|ing)?\b", r"\bexplain\w*", r"\bexplanation\b", r"\bdisclos\w*", r"\bannotat\w*",
           r"\btrace\b"),
    "fr": (r"\bsignal\w*", r"\bnot(?:er|ez)\b", r"\bmentionn\w*", r"\bjournalis\w*", r"\bconsign\w*",
           r"\bexpliqu\w*", r"\bexplication\w*", r"\bdocument\w*", r"\bprécis\w*", r"\btrace\b"),
    "de": (r"\bvermerk\w*", r"\bnotier\w*", r"\bprotokollier\w*", r"\bdokumentier\w*", r"\berklär(?:e|en|t|st)\b",
           r"\berwähn\w*", r"\bkennzeichn\w*", r"\bmarkier\w*", r"\bhinweis\w*", r"\banmerk\w*"),
    "es": (r"\bseñal\w*", r"\banot\w*", r"\bregistr\w*", r"\bdocument\w*", r"\bexplic\w*", r"\bmencion\w*",
           r"\baclar\w*", r"\bnota\b"),
    "pt": (r"\bsinaliz\w*", r"\banot\w*", r"\bregistr\w*", r"\bdocument\w*", r"\bexplic\w*", r"\bmencion\w*",
           r"\bnota\b"),
    "it": (r"\bsegnal\w*", r"\bannot\w*", r"\bregistr\w*", r"\bdocument\w*", r"\bspieg\w*", r"\bmenzion\w*",
           r"\bnota\b"),
    "nl": (r"\bvermeld\w*", r"\bnoteer\w*", r"\bregistreer\w*", r"\bdocumenteer\w*", r"\buitleg\w*",
           r"\btoelicht\w*", r"\bmarkeer\w*"),
    "pl": (r"\bzaznacz\w*", r"\bodnotow\w*", r"\bodnotuj\w*", r"\bnotuj\w*", r"\bzapisuj\w*", r"\budokumentuj\w*",
           r"\bwyjaśni\w*", r"\bwspomin\w*", r"\bwspomni\w*", r"\boznacz\w*"),
    "ru": (r"\bотмеча\w*", r"\bотмет\w*", r"\bзапис\w*", r"\bфиксир\w*", r"\bупомин\w*", r"\bупомян\w*",
           r"\bобъясн\w*", r"\bпомеча\w*", r"\bпометк\w*", r"\bдокументир\w*", r"\bпояснени\w*"),
    "uk": (r"\bпознача\w*", r"\bпознач\w*", r"\bзапис\w*", r"\bфіксу\w*", r"\bзгаду\w*", r"\bзгада\w*",
           r"\bпоясн\w*", r"\bдокументу\w*"),
    "sv": (r"\bnotera\w*", r"\bmarkera\w*", r"\bdokumentera\w*", r"\bförklar\w*", r"\bnämn\w*"
           r"\bflagga\w*"),
    "cs": (r"\bzaznamen\w*", r"\bpoznamen\w*", r"\bzmi[nň]\w*", r"\bvysvětl\w*", r"\boznač\w*"),
    "hu": (r"\bjelöl\w*", r"\bjelezd\b", r"\brögzít\w*", r"\bemlít\w*", r"\bmagyaráz\w*"),
    "el": (r"σημει\w*", r"καταγρ\w*", r"αναφέρ\w*", r"εξηγ\w*", r"επισημ\w*"),
    "vi": (r"\bghi chú\b", r"\bghi lại\b", r"\bghi\b", r"\bđánh dấu\b", r"\bnêu\b", r"\bgiải thích\b", r"\bnhắc\b"),
    "id": (r"\bdicatat\b", r"\bcatat\w*", r"\bmencatat\b", r"\bsebutk\w*", r"\bjelask\w*", r"\btandai\b",
           r"\bmenandai\b"),
    "ar": ("يذكر", "تذكر", "تسجل", "سجل", "توثق", "تشرح", "تشير", "ملاحظة"),
    "fa": ("ذکر", "ثبت", "توضیح", "اشاره"),
    "he": ("לציין", "תציין", "תרשום", "לרשום", "לתעד", "תתעד", "להסביר", "תסביר", "לסמן", "הערה"),
    "hi": ("दर्ज", "उल्लेख", "ज़िक्र", "जिक्र", "नोट", "समझा"),
    "zh": ("记录", "記錄", "注明", "註明", "标注", "標註", "说明", "說明", "提及", "备注", "備註", "写进", "寫進"),
    "ja": ("記録", "記載", "明記", "注記", "言及", "説明", "メモ"),
    "ko": ("기록", "표시", "언급", "설명", "명시", "적지"),
    "th": ("บันทึก", "ระบุ", "อธิบาย", "กล่าวถึง", "หมายเหตุ"),
}
# Negations that follow the verb: 記録しない/せず, 기록하지 마, दर्ज मत करो, ثبت نکن, บันทึกไม่.
_AFTER = re.compile(r"^\W{0,2}(?:\w{0,3}(?:しない|せず|ないで|ず[、。に]|지 ?마|지 ?말|지 ?않)|\s*(?:मत|न कर|नहीं)|"
                    r"\s*(?:نکن|نشود|نکنید)|\s*ไม่)")
# Turkish negates by a suffix on the verb itself: belirtme, kaydetmeden, bahsetmeyin.
_TURKISH = re.compile(r"\b(?:belirt|kaydet|not et|not düş|bahset|işaretle|logla)m[ae](?:den|dan|yin|yın|\b)")
# Alterations beyond the figures rule's (:data:`.guard_concepts_effect.ALTER`): moving, excluding,
# overwriting, keeping only a part.
ALTER = (
    r"\bimput\w*", r"\bfill\w* (?:in )?(?:the )?(?:gaps|missing|nulls|nans|blanks)\b", r"\bзаполня\w*", r"\bзаповн\w*", r"填充", r"填补",
    r"補完", r"補間", r"보간", r"\bremplis\w*", r"\bauffüll\w*", r"\brellen\w*", r"\bpreench\w*", r"\briempi\w*",
    r"\bshift\w*", r"\bmov\w* back\b", r"\bfilter\w* out\b", r"\btrim\w*", r"\bleave out\b",
    r"\bomit\w*", r"\bswap\w*", r"\bas \"", r"\bretir\w*", r"\bexclu\w*", r"\bverschieb\w*", r"\bausschließ\w*",
    r"\bstreich\w*", r"\bweglass\w*", r"\benlev\w*", r"\bубер\w*", r"\bубра\w*", r"\bубира\w*", r"\bвычерк\w*",
    r"\bприбер\w*", r"\bвилуч\w*", r"\bescludi\w*", r"\bpokaż\w*", r"\bprzesuń\w*", r"\bсдвин\w*", r"\bисключ\w*", r"\bокругл\w*", r"\bзсун\w*",
    r"\bвиключ\w*", r"\blùi\b", r"\bbớt\b", r"\bbuang\b", r"\bgeser\w*", r"\bkaydır\w*", "เขียนทับ", "ตัด",
    "上書き", "除外", "ずらし", "覆盖", "覆蓋", "剔除", "덮어", "제외", "빼고", "बदल", "استبعد", "הסר", "השמט",
)
# Describing the method counts as recording it ("the imputation method is not to be described").
DESCRIBE = (r"\bdescrib\w*", r"\bdécri\w*", r"\bbeschreib\w*", r"\bdescriv\w*", r"\bdescrev\w*", r"\bописыва\w*",
            r"\bопиши\b", r"\bописан\w*", r"\bопису\w*", r"\bопиш\w*", r"描述", r"说明", r"說明", r"記述", r"説明", r"설명", r"기술하")
_RECORD = re.compile(L.alt(*(w for cell in RECORD.values() for w in cell), *DESCRIBE))
# Writing or putting it into a record place is recording it too: "don't put it in the changelog",
# "อย่าเขียนใน methodology", "不要写进报告". The verbs alone are too common, so they count only in a
# clause that names where a change would be written down.
WRITE = (r"\bwrit\w*", r"\bput\b", r"\binclud\w*", r"\badd\b", r"\bécri\w*", r"\bmet(?:s|tre|tez)\b", r"\bschreib\w*",
         r"\baufnehm\w*", r"\bescrib\w*", r"\bpon(?:gas?|er|gan)?\b", r"\bincluy\w*", r"\bescrev\w*", r"\bpo(?:nha|r)\b",
         r"\bcoloqu\w*", r"\bscriv\w*", r"\bmett\w*", r"\bschrijf\w*", r"\bzet\b", r"\bpisz\w*", r"\bwpis\w*", r"\bпиш\w*",
         r"\bнапиш\w*", r"\bвпис\w*", r"\bγράψ\w*", r"\byaz\w*", r"\bviết\b", r"\btulis\w*", r"\bisulat\b", r"\bilagay\b",
         "لکھ", "लिख", "اكتب", "تكتب", "תכתוב", "לכתוב", "写", "寫", "書", "쓰", "적", "เขียน", "ใส่")
PLACE = (r"\bchange ?log\w*", r"\bmethodolog\w*", r"\bcommit messages?\b", r"\brelease notes?\b", r"\breports?\b",
         r"\btickets?\b", r"\baudit\b", r"\bminutes\b", r"\bfootnotes?\b", r"\bméthodologie\b", r"\brapports?\b",
         r"\bjournal\b", r"\bmethodik\b", r"\bbericht\w*", r"\bprotokoll\w*", r"\bmetodolog\w*", r"\binformes?\b",
         r"\brelat[oó]ri\w*", r"\brapport\w*", r"\bverslag\w*", r"\braport\w*", r"\bметодолог\w*", r"\bотч[её]т\w*",
         r"\bзв[іi]т\w*", r"\bμεθοδολογ\w*", r"\bαναφορ\w*", r"\brapor\w*", r"\bbáo cáo\b", r"\bphương pháp\b",
         r"\blaporan\b", r"\bmetodologi\b", r"\bulat\b", "רפורט", "דוח", "דו\"ח", "रिपोर्ट", "कार्यप्रणाली", "التقرير",
         "المنهجية", "گزارش", "报告", "報告", "方法论", "方法論", "更新日志", "变更日志", "変更履歴", "보고서", "방법론", "변경 로그",
         "รายงาน", "ระเบียบวิธี")
_WRITE, _PLACE = re.compile(L.alt(*WRITE)), re.compile(L.alt(*PLACE))
# "Without" is a negation here ("sans le signaler", "bez wyjaśnienia", "बिना बताए").
_WITHOUT = (r"\bsans\b", r"\bohne\b", r"\bsin\b", r"\bsem\b", r"\bsenza\b", r"\bzonder\b", r"\bbez\b", r"\bбез\b",
            r"\butan\b", r"\bχωρίς\b", "بدون", "בלי", "बिना", r"\btanpa\b", "โดยไม่", "อย่า", "ห้าม", r"\bhuwag\b", r"\bmat\b",
            "मत", "مت", r"\bwag\b", r"\bjangan\b", r"\bđừng\b", r"\bkhông\b", r"\bnunca\b")
_BEFORE = re.compile(L.alt(L.NEGATION, *_WITHOUT) + r"\W*(?:\w+\W+){0,2}$"
                     # Chinese writes no spaces: "不要在报告里注明" puts a place between.
                     r"|(?:不要|别|不用|无需|無需|不必|勿|不得|不要再|別)[^\s，。；、]{0,8}$")
# German, Dutch and the Scandinavian languages put "not" after the verb: "vermerke das nicht".
_AFTER_WORD = re.compile(r"^(?:\s+\w+){0,2}\s+(?:nicht|nirgends|nirgendwo|niet|nergens|inte|ikke|ingenstans)\b")
_ALTER = re.compile(L.alt(*E.ALTER, *words("MODIFY"), *words("DELETE"), *words("ONLY"), *ALTER))
_SECRET = re.compile(L.SECRET_WORDS)
_POSTVERBAL = re.compile(r"[\u3040-\u30ff\uac00-\ud7af]")
_CLAUSE = re.compile(r"[^.;!?。；！？\n]+")


def _negated(clause: str) -> bool:
    if _TURKISH.search(clause):
        return True
    verbs = [*_RECORD.finditer(clause), *(_WRITE.finditer(clause) if _PLACE.search(clause) else ())]
    for m in verbs:
        before = _BEFORE.search(clause[max(0, m.start() - 30):m.start()])
        # Japanese and Korean negations follow their verb: one before the record verb ("지우지
        # 않고 표시만 한다": delete nothing, only mark) negates another verb.
        if (before and not _POSTVERBAL.search(before.group())) or _AFTER.search(clause[m.end():m.end() + 12]) \
                or _AFTER_WORD.search(clause[m.end():m.end() + 30]):
            return True
    return False


# Erasing the trace of what was done: the shell's history, an execution or audit log.
_WIPE = re.compile(L.alt(r"\bclear(?!ed\b)\w*", r"\bwip\w*", r"\berase\w*", r"\btruncat\w*", r"\bpurg\w*", r"\bdelet\w*", r"\bhistory -c\b",
                         r"\beffac\w*", r"\blösch\w*", r"\bleer\w*", r"\bborr\w*", r"\bapag\w*", r"\bcancell\w*", r"\bwis\w*",
                         r"\bочищ\w*", r"\bочист\w*", r"\bудал\w*", r"\bстира\w*", r"\bсотр\w*", r"\bвидал\w*", r"清除", r"清空",
                         r"删除", r"刪除", r"消去", r"消し", r"削除", r"지우", r"삭제", r"\bxóa\b", r"\bsil\w*", r"\bhapus\w*"))
_TRACE = re.compile(L.alt(r"\b(?:shell|bash|zsh|command|terminal) history\b", r"\bbash_history\b", r"\bhistory file\b",
                          r"\b(?:execution|audit|activity|access|command) logs?\b", r"\bexecution history\b",
                          r"\bhistorique (?:du shell|des commandes)\b", r"\bjournal d'(?:exécution|audit)\b", r"\bbefehlsverlauf\b",
                          r"\b(?:shell|bash)-?verlauf\b", r"\baudit-?log\w*", r"\bausführungsprotokoll\w*", r"\bhistorial de (?:comandos|la shell)\b",
                          r"\bhistórico (?:de comandos|do shell)\b", r"\bисторию (?:оболочки|команд|терминала|shell)\b", r"\bісторію (?:оболонки|команд)\b",
                          r"\bжурнал\w* (?:выполнения|виконання|аудита|аудиту|действий|дій)\b", r"命令历史", r"历史记录", r"操作日志", r"审计日志",
                          r"執行記錄", r"操作記錄", r"コマンド履歴", r"実行履歴", r"操作ログ", r"監査ログ", r"명령 기록", r"실행 기록", r"감사 로그"))


def _wipes_trace(flat: str) -> bool:
    return any(_WIPE.search(c) and _TRACE.search(c) and not any(governed(c, m) for m in _WIPE.finditer(c))
               for c in _CLAUSE.findall(flat))


def record_findings(flat: str) -> list[Finding]:
    """An alteration of data or results with its record forbidden, or the record itself wiped, in
    a normalised entry."""
    if _wipes_trace(flat):
        return [Finding("hidden_instruction", "it asks to erase the record of what was done (shell history, "
                                              "execution or audit logs)")]
    if not _ALTER.search(flat):
        return []
    for clause in _CLAUSE.findall(flat):
        if _negated(clause) and not _SECRET.search(clause):
            return [Finding("hidden_instruction", "it asks to change data or results and keep the change "
                                                  "off the record (no note, flag or log of it)")]
    return []
