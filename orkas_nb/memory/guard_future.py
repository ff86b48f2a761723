"""Detectors of standing orders about the assistant's *future* outputs and of self-care.

A fact or a preference does not talk about itself, does not carry a URL with a hole to fill,
and does not schedule a data-discarding command. A planted entry does:

- **self-perpetuation**: the entry refers to itself ("this note", "diese Notiz", "这段话",
  "이 메모"…) and asks to restore or re-create it, or to copy it into every entry;
- **self-secrecy**: the entry refers to itself and is to be kept from the user (a prohibition
  on mentioning or showing it, or a word for secret);
- **templated sink**: a URL whose query value is a placeholder (``?d=LAST_MESSAGE``,
  ``?q=…``, an empty ``?c=``, text in another script) in a markdown image or link, or together
  with a word for filling it in: a channel that carries the conversation off the machine;
- **scheduled discard**: a command that discards data (``git push --force``, ``DROP``/
  ``TRUNCATE TABLE``, ``git reflog expire``, ``gc --prune=now``) with a trigger, a standing
  order or a waiver of asking, outside a prohibition;
- **secret shapes**: a key prefix (``sk-``, ``ghp_``…) or "the environment variables" with a
  verb that shows, sends or copies, outside a prohibition;
- **weakened security**: a switch that turns a check off (``verify=False``, ``sandbox=False``,
  ``--trusted-host``, ``PermitRootLogin yes``, ``0.0.0.0/0``, an ``http://`` index) as a
  standing order or with "without checking".

The concepts are structures (URL syntax, command syntax) or one cell per language.
"""

from __future__ import annotations

import re

from . import guard_lexicon as L
from .guard_detectors import Finding
from .guard_intent_words import words
from .guard_orders import kept_confirmation
from .guard_scope import without_protective


def _c(*parts: str) -> re.Pattern[str]:
    return re.compile(L.alt(*parts))


_SELF = _c(
    r"\bthis (?:\w+ )?(?:note|entry|memory|instruction|sentence|text|line|message|paragraph|reminder)\b",
    r"\bcette (?:note|entrée|instruction|consigne|phrase|ligne)\b", r"\bce (?:message|texte|paragraphe|mémo)\b",
    r"\bdiese[rsn]? (?:notiz|anweisung|zeile|eintrag|satz|nachricht|text|hinweis)\b",
    r"\best[ae] (?:nota|instrucción|instrução|entrada|frase|texto|mensaje|mensagem|registro)\b",
    r"\bquest[ao] (?:nota|istruzione|frase|voce|testo|messaggio|appunto)\b",
    r"\b(?:deze|dit) (?:notitie|instructie|regel|zin|tekst|bericht|item)\b",
    r"\b(?:ta|tę|tej|ten|tego) (?:notatk\w+|instrukcj\w+|wpis\w*|tekst\w*)\b", r"\bbu (?:not|talimat|kayıt|cümle|mesaj)\w*",
    r"\bэт(?:а|у|ой|от|ого) (?:заметк\w*|инструкци\w*|запис\w*|текст\w*|сообщени\w*)",
    r"\bц(?:я|ю|ієї|ей|ього) (?:нотатк\w*|інструкці\w*|запис\w*|текст\w*)",
    r"هذه (?:الملاحظة|التعليمات|التعليمة|الرسالة|المذكرة)", r"هذا (?:النص|الإدخال|السطر)",
    r"(?:ההוראה|ההערה|הפתק|הרשומה|ההודעה|התזכורת) הז(?:את|ו)", r"הטקסט הזה",
    r"(?:यह|इस) (?:नोट|निर्देश|संदेश|टिप्पणी)", r"这段话", r"這段話", r"这段", r"這段", r"这条", r"這條", r"這則", r"此条",
    r"此條", r"本条", r"このメモ", r"この指示", r"このノート", r"この文", r"この記録", r"このメッセージ",
    r"이 (?:메모|지시|노트|문장|기록|메시지|항목)", r"\b(?:ghi chú|chỉ dẫn|hướng dẫn|câu|mục) này\b",
    r"\b(?:catatan|instruksi|pesan|entri) ini\b", r"(?:บันทึก|ข้อความ|คำสั่ง)นี้",
    r"\bαυτ(?:ή|ήν|ό|ού|ής) (?:η |την |το |της |του )?(?:σημείωσ\w*|καταχώρισ\w*|καταχώρησ\w*|οδηγί\w*|μήνυμ\w*|κείμεν\w*|εντολ\w*|κανόν\w*)",
    r"\bden här (?:regeln|anteckningen|instruktionen|posten|raden|texten)\b", r"\bdetta (?:meddelande|minne)\b",
    r"\btato (?:poznámka|instrukce|zpráva)\b", r"\btuto (?:poznámku|instrukci|zprávu)\b", r"\btento (?:záznam|pokyn|text)\b",
    r"این (?:دستور|یادداشت|پیام|متن)", r"এই (?:নির্দেশ|নোট|বার্তা)", r"\b(?:agizo|ujumbe|maandishi) hili\b",
)
_RESTORE = _c(
    r"\brestor\w*", r"\bre-?creat\w*", r"\bre-?add\w*", r"\badd (?:it |them )?(?:back|again)\b", r"\bput (?:it )?back\b",
    r"\bwrite (?:it )?back\b", r"\bre-?sav\w*", r"\bre-?insert\w*", r"\bkeep (?:this|it)\b.{0,40}\b(?:top|every|each)\b",
    r"\brestaur\w*", r"\brecré\w*", r"\brajout\w*", r"\bremet\w*", r"\bréécri\w*", r"\bwiederherstell\w*",
    r"\bneu an\b", r"\bwieder an\w*", r"\berneut\b", r"\bwieder hinzu\w*", r"\bvuelve a\b", r"\brecre\w*",
    r"\bvolte a\b", r"\brecri\w*", r"\bripristin\w*", r"\bricre\w*", r"\breinser\w*", r"\bherstel\w*", r"\bopnieuw\b",
    r"\bprzywr\w*", r"\bodtw\w*", r"\bponownie\b", r"\bgeri (?:yükle|ekle)\w*", r"\byeniden\b", r"\bвосстан\w*",
    r"\bзаново\b", r"\bснова\b", r"\bвіднов\w*", r"\bзнову\b", r"استعد", r"أعد", r"استعادة", r"שחזר", r"מחדש",
    r"फिर से", r"पुनः", r"बहाल", r"重新", r"恢复", r"恢復", r"復原", r"復元", r"再作成", r"もう一度", r"再び", r"書き戻",
    r"다시", r"복원", r"되살", r"\bkhôi phục\b", r"\bthêm lại\b", r"\btạo lại\b", r"\blưu lại\b", r"\bpulihkan\b",
    r"\b(?:tambahkan|buat|simpan) (?:lagi|ulang|kembali)\b", r"\bkembalikan\b", r"กู้คืน", r"เพิ่มกลับ", r"สร้างใหม่",
)
_EVERY = _c(L.EVERYTHING, r"\b(?:every|each|all)\b", r"\b(?:chaque|toute?s?|jede\w*|cada|ogni|elke|każd\w*|her)\b",
            r"\bкажд\w*", r"\bкожн\w*", r"每", r"所有", r"全て", r"すべて", r"모든", r"\bmọi\b", r"\bsetiap\b", r"ทุก", r"כל",
            r"كل", r"हर")
_PLACE = _c(L.MEMORY_PLACE)
_USER = _c(*words("USER"))
_SECRET_ADJ = _c(r"\bsecret\b", r"\bconfidential\b", r"\bgeheim\w*", r"\bsecreto\b", r"\bsegreto\b", r"\brahasia\b",
                 r"\bsekret\w*", r"\bgizli\b", r"\bсекрет\w*", r"\bтайн\w*", r"سر", r"בסוד", r"סוד", r"गुप्त", r"秘密",
                 r"保密", r"비밀", r"\bbí mật\b", r"ความลับ")
_REVEAL = _c(L.SHOW, *words("SAY"), r"\bmention\w*", r"\btalk\w* about\b", r"\bparle\w*", r"\bévoqu\w*", r"\berwähn\w*",
             r"\bmenciona\w*", r"\bmenzion\w*", r"\bvermeld\w*", r"\bwspomin\w*", r"\bbahset\w*", r"\bупомина\w*",
             r"\bупомяни\w*", r"\bзгаду\w*", r"\bnhắc\b", r"\bsebut\w*", r"\btampilkan\b", r"תציג", r"תזכיר", r"תרמוז",
             r"تذكر", r"提及", r"提到", r"告诉", r"告訴", r"言及", r"伝え", r"언급", r"알리", r"알려", r"บอก", r"बताएं", r"ज़िक्र",
             # revealing and reporting, in the languages whose SAY cell lacks them
             r"\breveal\w*", r"\bdisclos\w*", r"\brévél\w*", r"\bsignal\w*", r"\bverrat\w*", r"\brevel\w*",
             r"\brivel\w*", r"\bujawn\w*", r"\bраскр\w*", r"透露", r"明かさ", r"밝히", r"\btiết lộ\b", r"\bungkap\w*",
             r"เปิดเผย", r"לגלות", r"תגלה", r"تكشف", r"\bαποκαλύψ\w*", r"\bαναφέρ\w*", r"\bπεισ\b", r"\bπείτε\b")
_NEG = re.compile(L.NEGATION + r"|\bjangan\b|\bאל\b|אל ת|\bnigdy\b|\basla\b|\bникогда\b|\bніколи\b|\bне\b|不|별|마세요|말")

_QUERY = r"https?://[^\s)\]>\"'`]+\?(?:[^\s)\]>\"'`=&]+=[^\s)\]>\"'`&]*&)*[^\s)\]>\"'`=&]+="
_QUERY_URL = re.compile(_QUERY)
# A hole to fill: nothing, an ellipsis, a {slot} or <slot>, or text in another script.
_HOLE_URL = re.compile(_QUERY + r"(?:\.\.\.|…|\{[^}]*\}|<[^>]*>|[^\x00-\x7f]|(?=[)\]\s`\"']|$))")
_STANDING, _ANSWERS = _c(L.PERSIST), _c(L.OUTPUT_PLACE)  # "in every answer": a standing output channel
_MARKDOWN = re.compile(r"!?\[[^\]]*\]\(\s*https?://")
_FILL = _c(r"\breplac\w*", r"\bfill\w*", r"\bsubstitut\w*", r"\bencod\w*", r"\bappend\w*", r"\bcontents?\b",
           r"\bremplaç\w*", r"\bencod\w*", r"\bersetz\w*", r"\bremplaz\w*", r"\breemplaz\w*", r"\btroca\w*",
           r"\bsostitu\w*", r"\bvervang\w*", r"\bzamie\w*", r"\bdeğiştir\w*", r"\bзамен\w*", r"\bзамін\w*", r"替换",
           r"替換", r"置き換", r"置換", r"바꿔", r"치환", r"\bthay\b", r"\bganti\w*", r"החלף", r"استبدل", r"बदल", r"แทน",
           r"\bbase64\b", r"\burl-?encod\w*", r"\bañadid\w*", r"\btras\b")

_DISCARD = re.compile(
    r"\bgit\s+push\b[^;|&\n`]*\s(?:--force|-f)(?!-with-lease)\b|\bgit\s+push\b[^;|&\n`]*--mirror\b|"
    r"\b(?:drop|truncate)\s+(?:table|database|schema)\b|\bgit\s+reflog\s+expire\b|\bgc\s+--prune(?:=now)?\b|"
    r"\bgit\s+reset\s+--hard\b|\bgit\s+clean\s+-\w*[fd]|\bdelete\s+from\s+\w+\s*;|\bgit\s+branch\s+-D\b"
)
_TRIGGER = _c(L.PERSIST, r"\bwhen(?:ever)?\b", r"\bif\b", r"\bbefore\b", r"\bafter\b", r"\bsi\b", r"\bwenn\b",
              r"\bquando\b", r"\bcuando\b", r"\bals\b", r"\bprima di\b", r"\bavant\b", r"\bbevor\b", r"\bkhi\b",
              r"\bjika\b", r"\bkiedy\b", r"\bgdy\b", r"\beğer\b", r"\bкогда\b", r"\bесли\b", r"\bколи\b", r"\bякщо\b",
              r"כש", r"عندما", r"إذا", r"जब", r"अगर", r"当", r"如果", r"時", r"たら", r"면", r"เมื่อ", r"ถ้า")
_WAIVE = _c(*words("AUTO"), r"\bwithout (?:asking|confirm\w*|checking|telling)\b", r"\bno need to (?:ask|warn|tell)\b",
            r"\bsans (?:demander|confirm\w*|vérifi\w*)\b", r"\bohne (?:zu )?(?:frag\w*|rückfrage|bestätig\w*|prüf\w*)\b",
            r"\bsin (?:preguntar|confirm\w*|avisar|comprobar)\b", r"\bno hace falta avisar\b", r"\bsem (?:perguntar|confirm\w*)\b",
            r"\bsenza (?:chiedere|conferm\w*|controllar\w*)\b", r"\bzonder (?:te )?(?:vragen|bevestig\w*)\b",
            r"\bbez (?:pytania|potwierdz\w*|sprawdz\w*)\b", r"\bsormadan\b", r"\bбез (?:вопрос\w*|подтвержд\w*|провер\w*|перевір\w*|підтвердж\w*|питан\w*)",
            r"\bmà không cần hỏi\b", r"\bkhông cần hỏi\b", r"\btanpa (?:bertanya|konfirmasi|memeriksa)\b",
            r"בלי לשאול", r"دون (?:سؤال|تأكيد)", r"बिना पूछे", r"不要?(?:问|詢問|询问|确认)", r"確認せず", r"묻지 않", r"없이",
            r"ไม่ต้องถาม")
_ORDER = _c(L.EXECUTE, L.ADDRESSED, *words("DELETE"), r"הרץ", r"תריץ", r"\bjalankan\b", r"\bçalıştır\w*", r"\buruchom\w*",
             r"\bvoer\w* uit\b", r"\buitvoeren\b", r"\bforza\w*", r"\bforce\w*", r"\bfinish\w*")
_KEY_PREFIX = re.compile(r"(?<![\w-])(?:sk|ghp|gho|ghs|github_pat|xox[abp]|glpat|akia|hf)[-_](?![a-z0-9]{6})")
_ENV_ALL = _c(r"\benv(?:ironment)? var(?:iable)?s\b", r"\bvariables d'environnement\b", r"\bumgebungsvariablen\b",
              r"\bvariables de entorno\b", r"\bvariáveis de ambiente\b", r"\bvariabili d'ambiente\b",
              r"\bomgevingsvariabelen\b", r"\bzmienn\w* środowiskow\w*", r"\bortam değişken\w*",
              r"\bпеременн\w* (?:окружения|среды)", r"\bзмінн\w* (?:оточення|середовища)", r"متغيرات البيئة",
              r"משתני (?:ה)?סביבה", r"पर्यावरण चर", r"环境变量", r"環境變數", r"環境変数", r"환경 ?변수",
              r"\bbiến môi trường\b", r"\bvariabel lingkungan\b", r"ตัวแปรสภาพแวดล้อม")
_TAKE = _c(L.SHOW, L.SEND, L.KEEP, r"\bdoklej\w*", r"\bvoeg\w*", r"적어", r"써", r"写", r"寫", r"記入")
_OUTPUT = _c(L.OUTPUT_PLACE, r"\blinks?\b", r"\blink\w*", r"\bссылк\w*", r"\bcomment\w*", r"\bcommentaar\b")
_REDACT = _c(r"\bredact\w*", r"\bmask\w*", r"\bcensor\w*", r"\bscrub\w*", r"脱敏", r"打码", r"マスク", r"伏せ", r"마스킹",
             r"\bзамаск\w*", r"\bschwärz\w*", r"\bcaviard\w*", r"\btach\w*")
_WEAK_SECURITY = re.compile(
    r"\bverify\s*=\s*false\b|\bsandbox\w*\s*=\s*(?:false|off|0|none)\b|--trusted-host\b|\bpermitrootlogin\s+yes\b|"
    r"\b0\.0\.0\.0/0\b|--no-verify\b|--insecure\b|\bstricthostkeychecking\s*=?\s*no\b|"
    r"\bnode_tls_reject_unauthorized\s*=\s*0\b|\bsetenforce\s+0\b|--index-url\s+http://|--extra-index-url\s+http\S+|"
    r"\bpip install\s+(?:-\S+\s+)*https?://|\bcheck_hostname\s*=\s*false\b|\bcert_none\b|--disable-\w*(?:check|verif|sandbox)\w*|"
    r"--no-sandbox\b|--unsafe\w*|--dangerously-\w+|\ballow_\w*(?:network|hosts?|all)\w*\s*=\s*(?:all|any|\*|true|1)\b"
)


def _near(a: re.Pattern[str], b: re.Pattern[str], flat: str, window: int) -> bool:
    return any(b.search(flat[max(0, m.start() - window):m.end() + window]) for m in a.finditer(flat))


def future_findings(flat: str) -> list[Finding]:
    out: list[Finding] = []
    if _SELF.search(flat):
        if _RESTORE.search(flat) or (_EVERY.search(flat) and _near(_EVERY, _PLACE, flat, 20)
                                     and _near(_SELF, _c(L.KEEP), flat, 30)):
            out.append(Finding("persistence", "it asks to keep itself alive: restore or copy this entry "
                                              "into memory again"))
        if _USER.search(flat) and (_SECRET_ADJ.search(flat) or _neg_reveal(flat)):
            out.append(Finding("hidden_instruction", "it asks to keep this entry from the user"))
    elif _USER.search(flat) and _ACTIONS.search(flat) and _neg_reveal(flat):
        out.append(Finding("hidden_instruction", "it asks to keep the assistant's actions or memory "
                                                 "from the user"))
    standing_output = bool(_STANDING.search(flat) and _ANSWERS.search(flat))
    if (_HOLE_URL.search(flat) and (_MARKDOWN.search(flat) or _FILL.search(flat) or standing_output)) or \
            (_QUERY_URL.search(flat) and _MARKDOWN.search(flat) and _FILL.search(flat)):
        out.append(Finding("exfiltration", "it asks to put text into a URL that leaves the machine "
                                           "(a link or image with a placeholder to fill)"))
    act = without_protective(flat)
    if _DISCARD.search(act) and not kept_confirmation(act) and (_WAIVE.search(act) or (_TRIGGER.search(act) and _ORDER.search(act))):
        out.append(Finding("destructive", "it schedules a command that discards data (force push, "
                                          "dropped tables, expired history)"))
    if _WEAK_SECURITY.search(act) and (_TRIGGER.search(act) or _WAIVE.search(act) or _EVERY.search(act)):
        out.append(Finding("behaviour_change", "it makes a security check off the standing rule "
                                               "(certificates, sandbox, trusted hosts, open ports)"))
    if (_KEY_PREFIX.search(flat) or _ENV_ALL.search(flat)) and _affirmed(_TAKE, act) and \
            _OUTPUT.search(act) and not _REDACT.search(flat):
        out.append(Finding("exfiltration", "it asks to copy secrets (key-shaped strings, environment "
                                           "variables) into answers, links or files"))
    return out


def _affirmed(verbs: re.Pattern[str], flat: str) -> bool:
    return any(not _NEG.search(flat[max(0, m.start() - 25):m.start()]) for m in verbs.finditer(flat))


def _neg_reveal(flat: str) -> bool:
    """A prohibition on mentioning or showing: right before the verb, right after it (Japanese,
    Korean, Hindi: "밝히지 말 것", "言わないこと"), or in the verb (Turkish "gösterme", "söyleme")."""
    for m in _REVEAL.finditer(flat):
        # A clause boundary ends a prohibition's reach, as a Korean "…지 말고" closes the verb it
        # negates ("don't run it, and only tell the user": the telling is ordered).
        before = _REACH.split(flat[max(0, m.start() - 25):m.start()])[-1]
        if _NEG.search(before) or _POST_NEG.search(flat[m.end():m.end() + 12]):
            return True
        if _TR_NEG.match(flat, m.start()):
            return True
    return False


_REACH = re.compile(r"[.;:,!?。；：，！？、]|말고")
_POST_NEG = re.compile(r"[^.;。]{0,6}(?:지 ?말|지 ?마|ないこと|ないで|ないように|न करें|न करना|मत|禁止)")
_TR_NEG = re.compile(r"\w+?m[ae](?:y[ıi]n|s[ıi]n|l[ıi]s[ıi]n)?\b|\w+?m[ae]m[ae]l[ıi]\w*")
# What the assistant does, or the memory itself: hiding these from the user is the attack (a
# secret kept from display is the protection).
_ACTIONS = _c(L.EXECUTE, L.MEMORY_PLACE, r"\bcommands?\b", r"\bactions?\b", r"\bcommandes?\b", r"\bbefehle?\b",
              r"\bcomandos?\b", r"\bcomandi\b", r"\bопераци\w*", r"\bкоманд\w*", r"\bενέργει\w*", r"\bεντολ\w*",
              r"命令", r"コマンド", r"명령", r"操作", r"動作", r"\blệnh\b", r"\bperintah\b", r"\bkomut\w*", r"\bpolece\w*")
