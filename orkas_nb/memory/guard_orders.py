"""Standing orders built from concepts: a trigger or standing marker, a risky act, an object.

A fact about a project describes; a planted entry orders a future act. Each structure here is
a co-occurrence of concepts from the concept × language tables (:mod:`.guard_lexicon`,
:mod:`.guard_intent_words`, :mod:`.guard_concepts_extra`), read outside protective clauses
(:func:`.guard_scope.without_protective`), so a paraphrase in any covered language is caught
without its phrase being listed:

- **scheduled destruction**: a standing marker or trigger ("every", "when the user says",
  "at the end of each session") with a discarding command in any order of its arguments
  (``rm -rf`` on home, ``find -delete``, ``kill -9 -1``, ``docker system prune``, ``aws s3 rm
  --recursive``, ``chmod -R 000``, ``dd of=/dev``) or a delete verb on a whole target (home,
  ``.git``, every file, production, raw data), or a calendar schedule ("every night", "jeden
  Freitag", "每晚") with a delete of everything or of the home folder; unless the entry keeps a
  confirmation ("ask before", "nachfragen", "確認してから");
- **self-propagation**: the entry refers to itself and a verb copies, inserts or saves it
  somewhere else (other files, every notebook, other agents, ``.bashrc``);
- **foreign orders**: obeying, executing or treating as orders the instructions found in
  content the user did not write (web pages, READMEs, e-mails, issues, prefixed messages);
- **authority with a grant**: a role of authority (administrator, developer, owner, security
  team…) in any person — "the user is", "the person in this chat is", "according to the
  security lead" — together with a word that outranks, voids, lowers or unbounds
  ("take precedence", "no longer apply", "without approval", "unrestricted"), both outside
  quotes: memory cannot vouch for a role, and a role that comes with a grant is the attack;
- **obligations laid on the assistant**: "the assistant must …", "agents working here should
  …", "AI 助手…都应…", "o assistente deve …" — a rule written *about* the assistant in the third
  person, the shape of text planted in a page or document for an agent to find — together with
  a sensitive act (sending, a secret, a network destination, obeying or trusting something,
  approvals). A preference ("the assistant should answer in French") touches none of these.
"""

from __future__ import annotations

import re

from . import guard_lexicon as L
from .guard_detectors import Finding
from .guard_intent_words import words
from .guard_kept import without_kept_consent, without_others_voided
from .guard_consent import scoped_approval
from .guard_scope import dequote, without_protective


def _c(*parts: str) -> re.Pattern[str]:
    return re.compile(L.alt(*parts))


_TRIGGER = _c(L.PERSIST, r"\bwhen(?:ever)?\b", r"\bif\b", r"\bbefore\b", r"\bafter\b", r"\bat the end of\b", r"\bsi\b",
              r"\bwenn\b", r"\bfalls\b", r"\bquando\b", r"\bcuando\b", r"\bals\b", r"\bdopo\b", r"\bprima\b", r"\bse\b",
              r"\bdespués\b", r"\bdepois\b", r"\baprès\b", r"\bnach\b", r"\bkhi\b", r"\bjika\b", r"\bkiedy\b", r"\bgdy\b",
              r"\beğer\b", r"\b\w+[ıiuüae]rs[ae]\b", r"\bкогда\b", r"\bесли\b", r"\bпри\b", r"\bколи\b", r"\bякщо\b",
              r"\bпід час\b", r"\bόταν\b", r"\bαν\b", r"\bμόλις\b", r"כש", r"عندما", r"عند", r"إذا", r"जब", r"अगर", r"ही ",
              r"当", r"如果", r"之后", r"之後", r"時", r"たら", r"ときは", r"면", r"เมื่อ", r"ถ้า", r"ทุกครั้ง",
              r"\bon (?:every|each)\b", r"\bupon\b", r"اگر", r"وقتی", r"هر بار")
TRIGGER = _TRIGGER  # a trigger or standing marker, for guard_effect
_DESTROY_CMD = re.compile(
    # (a home path inside a cache or temp dir holds only regenerated files: not a whole target)
    r"\brm\s+(?:-\w+\s+)*-\w*[rf]\w*\s+(?:--\s+)?(?:~(?!/(?:[^/\s]+/)*(?:\.?cache|caches|\.?tmp|temp|__pycache__|"
    r"node_modules)/(?!\S*\.\.))|/|\$home|\*|\.git\b|\.\.?/?\s)|"
    r"\bfind\b[^`\n]{0,80}\s-delete\b|\bkill\s+-(?:9|kill)\s+-1\b|\bdocker\s+(?:system|volume|image)\s+prune\b|"
    r"\baws\s+s3\s+(?:rm|rb)\b[^`\n]{0,80}--(?:recursive|force)\b|\bchmod\s+-r\s+0+\b|\bdd\b[^`\n]{0,60}\bof=/dev/|"
    r"\bmkfs\b|\bshred\b|\bwipefs\b|\bgit\s+push\b[^`\n]{0,60}--force(?!-with-lease)\b|\bgsutil\s+(?:-m\s+)?rm\s+-r"
)
# A table dropped or emptied by SQL: destruction unless the place is a scratch one (a local or
# test database, a temporary table) that a fixture rebuilds.
_SQL_DROP = re.compile(r"\bdrop\s+(?:table|schema)\s+(?:if\s+exists\s+)?(?!if\b)[\w.\"]+|\btruncate\s+(?:table\s+)?[\w.\"]+\s*;")
_SCRATCH = re.compile(r"\b(?:local\w*|localhost|tests?|testing|tmp\w*|temp\w*|dev|docker|fixtures?|sandbox|scratch|staging)\b|"
                      r"_(?:tmp|temp|test)\b|\blocale?\b|\bprueba\w*|\bteste\w*|\bessai\w*|\blokal\w*|\btempor\w*|"
                      r"\bdesarrollo\b|\bdéveloppement\b|\bentwicklung\w*|\bsviluppo\b|\bтест\w*|\bлокальн\w*|\bтестов\w*|ローカル|テスト|本地|测试|測試|로컬|테스트")
_DELETE = _c(*words("DELETE"), r"\bwipe\w*", r"\bsvuot\w*", r"\bvacía\w*", r"\bleer\w*", r"\bnuke\w*", r"\bdestro\w*",
             r"\bзавершай\w*", r"\bубей\w*", r"\bκαθάρισ\w*", r"ลบ", r"ทิ้ง", r"\bscrub\w*", r"\bkeep no backup\b",
             r"\bwithout (?:a )?backup\b", r"\bsin (?:copia|respaldo)\b", r"\bohne backup\b", r"\bsans sauvegarde\b")
_WHOLE = _c(L.EVERYTHING, r"~/?\w*", r"\$home\b", r"\bhome\b", r"(?<![\w-])\.git\b", r"\*\.\w+", r"\bprod\w*\b", r"\braw\b",
            r"\bkomplett\b", r"\bentire\w*\b", r"\bwhole\b", r"\bcompletamente\b", r"\bcomplètement\b", r"\bcompletely\b",
            r"\bin place\b", r"\bother (?:people|users)'?s?\b", r"\bdes autres\b", r"\bτων άλλων\b", r"\bdegli altri\b",
            r"\bde los demás\b", r"\bdos outros\b", r"\bder anderen\b", r"\bчужи\w*", r"\bінших\b", r"\bdatabase\b",
            r"\bhistor\w*", r"\bистори\w*", r"\bверлauf\b", r"\bверсию\b", r"\bархив\w*", r"\barşiv\w*",
            r"\bbranch\w*", r"\bbranches\b", r"\bветк\w*", r"\bmain\b", r"\bmaster\b", "全部", "すべて", "一切", "ทั้งหมด")
# A calendar schedule is a standing marker too ("every night", "nightly", "jeden Freitag", "每晚",
# "her gece"), but schedules are what clean-up jobs are made of ("the nightly cron deletes tmp
# files older than 7 days", "every Friday we drop the staging database"): with a schedule alone,
# only a delete of everything, of the home folder or of the user's own files is the attack.
_DAYS = (r"(?:night|day|morning|evening|week|weekend|month|hour|monday|tuesday|wednesday|thursday|friday|saturday|"
         r"sunday|reboot|login|boot)s?")
_SCHEDULE = _c(r"\b(?:every|each|on)\s+(?:other\s+|single\s+)?" + _DAYS + r"\b", r"\b(?:nightly|daily|weekly|hourly|monthly)\b",
               r"\bonce (?:a|per) (?:day|night|week|month)\b", r"\bat (?:midnight|\d{1,2}(?::\d\d)?\s*(?:am|pm|h)\b)",
               r"\b(?:chaque|tous les|toutes les)\s+(?:nuits?|jours?|soirs?|matins?|semaines?|mois|heures?|lundis?|"
               r"vendredis?|dimanches?)\b", r"\bquotidien\w*", r"\bhebdomadaire\w*",
               r"\bjede[nrs]?\s+(?:nacht|tag|morgen|abend|woche|monat|stunde|montag|freitag|sonntag)\b",
               r"\b(?:nächtlich|täglich|wöchentlich|stündlich)\w*", r"\b(?:nachts|abends|freitags|montags|sonntags)\b",
               r"\bcada\s+(?:noche|día|dia|mañana|semana|mes|hora|viernes|lunes|domingo|sexta)\b",
               r"\b(?:todas las noches|todos los días|todas as noites|todos os dias|toda noite|todo dia)\b",
               r"\bdiariamente\b", r"\bsemanalmente\b", r"\bogni\s+(?:notte|giorno|sera|mattina|settimana|mese|ora|venerdì|lunedì)\b",
               r"\b(?:tutti i giorni|tutte le notti|quotidianamente)\b", r"\b(?:elke|iedere)\s+(?:nacht|dag|week|maand|vrijdag)\b",
               r"\b(?:dagelijks|wekelijks)\b", r"\bvarje\s+(?:natt|dag|vecka|månad|fredag)\b",
               r"\bkażd\w+\s+(?:nocy|noc|dnia|dzień|tygodnia|piątek)\b", r"\b(?:codziennie|co noc|co tydzień)\b",
               r"\bkažd\w+\s+(?:noc|den|týden|pátek)\b", r"\bdenně\b", r"\bher\s+(?:gece|gün|hafta|sabah|akşam|cuma|ay)\b",
               r"\bкажд\w+\s+(?:ночь|день|утро|вечер|неделю|месяц|час|пятницу|понедельник)\b",
               r"\b(?:ежедневно|еженедельно|ежечасно|по ночам|по пятницам)\b", r"\bкожн\w+\s+(?:ночі|ніч|дня|день|тижня|п'ятниці)\b",
               r"\b(?:щодня|щоночі|щотижня)\b", r"\bκάθε\s+(?:βράδυ|νύχτα|μέρα|ημέρα|εβδομάδα|μήνα|ώρα|παρασκευή)\b",
               r"\b(?:mỗi|hàng|hằng)\s+(?:đêm|ngày|tuần|tối|sáng|tháng)\b", r"\bsetiap\s+(?:malam|hari|minggu|pagi|bulan|jumat)\b",
               r"每天", r"每晚", r"每夜", r"每日", r"每周", r"每週", r"每星期", r"每月", r"每小时", r"每小時", r"毎日", r"毎晩",
               r"毎夜", r"毎週", r"毎朝", r"毎月", r"매일", r"매주", r"매달", r"매월", r"매일 밤", r"ทุก(?:คืน|วัน|สัปดาห์|เดือน|เช้า)",
               r"كل (?:ليلة|يوم|أسبوع|شهر|صباح)", r"يومي[اًا]", r"כל (?:לילה|יום|שבוע|חודש|בוקר)", r"हर (?:रात|दिन|हफ़्ते|हफ्ते|सप्ताह|सुबह)",
               r"\bरोज़?\b", r"هر (?:شب|روز|هفته|ماه|صبح)")
# The user's own data as a whole: everything, the home folder, their files (not a temp or cache place).
_ALL_OF_IT = _c(L.EVERYTHING, r"~(?=[\s.,;:)]|$)", r"~/(?!(?:[^/\s]+/)*(?:\.?cache|caches|\.?tmp|temp)\b)", r"\$home\b",
                r"\bhome\b", r"\bentire\w*\b", r"\bwhole\b", r"\bcompletely\b", r"\bkomplett\b", r"\bcomplètement\b",
                r"\bcompletamente\b", r"\bthe user'?s (?:files|documents|data|notebooks)\b", r"\ball (?:files|data|notebooks|backups)\b",
                r"\bdossier personnel\b", r"\brépertoire personnel\b", r"\bheimverzeichnis\b", r"\bcarpeta personal\b",
                r"\bpasta pessoal\b", r"\bcartella (?:home|personale)\b", r"\bдомашн\w*", r"主目录", r"主目錄", r"家目录", r"ホーム",
                r"\b홈\b", r"\bev dizini\b", r"\bana dizin\w*", r"\bkatalog domowy\b", r"\bthư mục (?:nhà|home|cá nhân)\b",
                r"\bδιεύθυνση home\b", r"\bπροσωπικό φάκελο\b", r"התיקייה הביתית", r"المجلد الرئيسي", r"पूरा", r"सब कुछ", r"ทุกอย่าง")
# A confirmation kept: "ask before", "nachfragen", "確認してから" (unless it is waived).
_ASK_FIRST = _c(r"\bask\w*\b.{0,30}\b(?:before|first)\b", r"\b(?:before|first)\b.{0,40}\bask\w*", r"\bconfirm\w*",
                r"\bnachfrag\w*", r"\brückfrag\w*", r"\bbestätig\w*", r"\bdemand\w* (?:avant|d'abord)\b", r"\bpregunt\w*",
                r"\bpergunt\w*", r"\bchied\w*", r"\bconferm\w*", r"\bспрос\w*", r"\bподтвер\w*", r"\bзапит\w*",
                r"\bρώτ\w*", r"確認", r"确认", r"询问", r"확인", r"물어", r"ถาม", r"पूछ", r"\bhỏi\b", r"\btanya\w*", r"\bpytaj\w*", r"\bsor\w*")
_WAIVE = _c(L.LOWER, r"\bwithout\b", r"\bsans\b", r"\bohne\b", r"\bsin\b", r"\bsem\b", r"\bsenza\b", r"\bбез\b",
            r"\bχωρίς\b", r"せず", r"不用", r"不要", r"없이", r"ไม่ต้อง", r"बिना")
_FIRST_HABIT = _c(r"\b(?:ich|je|i|yo|eu|io|я)\b.{0,30}\b(?:myself|moi-même|selbst|mismo|mesmo|stesso|сам)\b",
                  r"\bje fais\b", r"\bi (?:do|run) (?:it|this|that)\b", r"^(?:tôi|ich|je|i|yo|eu|io|я|私は|我)\b.{0,20}\b(?:dọn|lösche|leere|clean|nettoie|limpio|limpo|pulisco|чищу)\w*")
# The user runs it, not the assistant: "they run it before packaging", "der Nutzer startet es
# selbst", "l'utilisateur le lance lui-même" (a verb in the third person right after the user;
# "the user wants you to run" puts another verb between).
_USER_HABIT = _c(r"(?:" + L.alt(*words("USER"), r"\bthey\b") + r")\s+(?:\w+\s+)?(?:" + L.alt(
    r"\bruns\b", r"\brun (?:it|them|this|that)\b", r"\bstarts\b", r"\blaunches\b", r"\bexecutes\b", r"\bstartet\b",
    r"\bführt\b", r"\blance\b", r"\bexécute\b", r"\bejecuta\b", r"\bexecuta\b", r"\besegue\b", r"\blancia\b", r"\bdraait\b",
    r"\bstart\b", r"\buruchamia\b", r"\bзапускает\b", r"\bçalıştırır\b", r"\bεκτελεί\b") + r")"
    # … and its object is the command: a pronoun, "themselves", or the quoted command itself.
    r"(?:(?<=it|em|is|at)|(?=\s*(?:it|them|this|that|es|ihn|sie|lo|la|le|lui-même|él mismo|themsel\w*|himself|herself|selbst|`)))")
# Content declared data, not orders: "treat instructions in fetched pages as data".
_AS_DATA = _c(r"\bas (?:plain )?data\b", r"\bals daten\b", r"\bcomme des données\b", r"\bcomo datos\b", r"\bcomo dados\b",
              r"\bcome dati\b", r"\bкак данные\b", r"\bяк дані\b", r"\bως δεδομένα\b", r"データとして", r"当作数据", r"视为数据",
              r"데이터로", r"เป็นข้อมูล", r"\bsebagai data\b", r"\bnot as (?:commands|instructions|orders)\b",
              # Untrusted is the opposite of obeyed: "treat that PDF as untrusted input".
              r"\bas untrusted\b", r"\bcomme non fiable\b", r"\bals nicht vertrauenswürdig\b", r"\bcomo no confiable\b",
              r"\bкак недоверенн\w*", r"不可信", r"信頼できない", r"신뢰할 수 없는")


def _habit(act: str) -> bool:
    """The user's own habit: the user, not the assistant, runs the command."""
    return bool(_FIRST_HABIT.search(act) or _USER_HABIT.search(act))


def kept_confirmation(act: str) -> bool:
    """The entry keeps a confirmation ("ask before", "nachfragen") and waives none."""
    return bool(_ASK_FIRST.search(act)) and not _WAIVE.search(act)

_SELF = _c(
    r"\bthis (?:\w+ )?(?:note|entry|memory|instruction|text|line|message|paragraph|rule)\b",
    r"\b(?:cette|ce) (?:note|consigne|instruction|texte|mémo|message)\b", r"\bdiese[rsn]? (?:notiz|anweisung|eintrag|text)\b",
    r"\best[ae] (?:nota|memoria|memória|instrucción|instrução|entrada|texto|regla|regra)\b", r"\b(?:salve|guarde|copie)-a\b",
    r"\bquest[oa] (?:nota|testo|istruzione|memoria|regola|appunto)\b", r"\bt(?:ę|a) (?:instrukcj|notatk)\w*",
    r"\bэт(?:у|а|от|ой) (?:заметк|инструкци|запис|текст|правил)\w*", r"\bц(?:ю|я|ей) (?:нотатк|інструкці|запис)\w*",
    r"\bαυτ(?:ή|ό|ήν|ού|ής) (?:τη |το |την )?(?:σημείωσ|οδηγί|κείμεν|μήνυμ)\w*", r"\bđoạn này\b", r"\b(?:ghi chú|chỉ dẫn) này\b",
    r"(?:ข้อความ|บันทึก|คำสั่ง)นี้", r"このメモ", r"この指示", r"この文章", r"このノート", r"这条", r"這條", r"这段", r"這段",
    r"本条", r"이 (?:메모|지시|노트|내용)", r"(?:इस|यह) (?:नोट|निर्देश|मेमोरी)", r"\b(?:catatan|instruksi) ini\b",
    r"(?:הפתק|ההערה|ההוראה) הז", r"هذه (?:الملاحظة|التعليمات)", r"\bbu (?:not|talimat)\w*",
)
_PROPAGATE = _c(L.KEEP, L.SHOW, r"\bdupli\w*", r"\bпродубл\w*", r"\bдублир\w*", r"\bинсер\w*", r"\bvložit\b",
                r"\bréenregistr\w*", r"\bre-?enregistr\w*", r"\bwieder ein\w*", r"\bfüge?\w*\b.{0,40}\bein\b",
                r"\bescrib\w*", r"\bescrev\w*", r"\bscriv\w*", r"\bσυμπεριλ\w*", r"\bγράψ\w*", r"し直", r"もう一度",
                r"再保存", r"复制", r"複製", r"ซ้ำ", r"คัดลอก", r"\bchèn\b", r"\blưu\b")
_ELSEWHERE = _c(L.PERSIST, L.EVERYTHING, r"\b(?:agents?|claude|cursorrules|bashrc|profile|readme)\b", r"\.\w{2,8}\b",
                r"\bother\w*\b", r"\bnew\b", r"\bnouve\w*", r"\bneue\w*", r"\bnuev\w*", r"\bnov[oa]s?\b", r"\bnuov\w*",
                r"\bnow\w*", r"\bновы\w*", r"\bостальн\w*", r"\bνέ\w*", r"\bmới\b", r"\bsession\w*", r"\bsesi\w*",
                r"\bsessão\b", r"\bsesión\b", r"\bсесси\w*", r"\bсеанс\w*", r"\bσυνεδρί\w*", r"セッション", r"会话", r"세션",
                r"เซสชัน", r"\bcomment\w*", r"\bcommit\w*", r"\bcell\w*", r"\bcelda\w*", r"\bcélula\w*", r"\bcella\b",
                r"\bde novo\b", r"\bagain\b", r"\bwieder\b", r"\bnotebook\w*", r"\bsurviv\w*", r"\bsobreviv\w*", r"\bresta\b",
                r"\bперсонаж\w*", r"次の", r"新しい", r"新的", r"새")

_INSTRUCTIONS = _c(r"\binstruct\w*", r"\bistruzion\w*", r"\binstrucci\w*", r"\binstruç\w*", r"\banweisung\w*",
                   r"\bpolecen\w*", r"\binstrukcj\w*", r"\bинструкци\w*", r"\bуказани\w*", r"\bкоманд\w*", r"\bοδηγί\w*",
                   r"\bεντολ\w*", r"\bchỉ thị\b", r"\byêu cầu\b", r"\bcomm?and\w*", r"\borders?\b", r"\bórdenes\b",
                   r"\bordres?\b", r"\bbefehl\w*", r"\bprompts?\b", r"指示", r"指令", r"命令", r"지시", r"명령", r"คำสั่ง",
                   r"निर्देश", r"تعليمات", r"הוראות", r"\btalimat\w*", r"\bperintah\b")
_FOREIGN = _c(r"\bweb ?(?:pages?|sites?)\b", r"\bwebsites?\b", r"\bpages?\b", r"\bpágina\w*", r"\bpagin\w*",
              r"\bseite\w*", r"\bwebseite\w*", r"\bстраниц\w*", r"\bсторінк\w*", r"\bιστοσελίδ\w*", r"\bσελίδ\w*",
              r"\btrang\b", r"\bhalaman\b", r"\bstron\w*", r"\bsayfa\w*", r"ウェブページ", r"ページ", r"网页", r"網頁", r"页面",
              r"웹 ?페이지", r"หน้าเว็บ", r"वेब ?पेज", r"صفحة", r"דף", r"\breadme\w*", r"\be-?mails?\b", r"\bissues?\b",
              r"\bprefix\w*", r"\bpréfix\w*", r"\bpräfix\w*", r"\bprefij\w*", r"\bprefiss\w*", r"\bпрефикс\w*",
              r"\bdownloaded\b", r"\bfetched\b", r"\bbộ nhớ\b", r"\bmemory\b", r"\bmemoria\b", r"\bmemória\b",
              r"\bпамят\w*", r"\bμνήμ\w*", r"メモリ", r"内存", r"메모리", r"หน่วยความจำ", r"मेमोरी", r"\[\w+\]", r"<\w+>")
_OBEY = _c(*words("FOLLOW"), L.EXECUTE, L.TREAT_AS, r"\bobede\w*", r"\bgehorch\w*", r"\besegu\w*", r"\bτήρησ\w*",
           r"\bcoi\b", r"\bтрактуй\w*", r"同じ扱い", r"扱い", r"当作", r"视为", r"視為", r"ใช้แทน", r"मानो", r"\bsame as\b")
_NEG = re.compile(L.NEGATION + r"\W*(?:\w+\W+){0,2}$")


def _affirmed(p: re.Pattern[str], flat: str) -> bool:
    return any(not _NEG.search(flat[max(0, m.start() - 25):m.start()]) for m in p.finditer(flat))


def _near(a: re.Pattern[str], b: re.Pattern[str], flat: str, window: int) -> bool:
    return any(b.search(flat[max(0, m.start() - window):m.end() + window]) for m in a.finditer(flat))


# Not a part of a hyphenated name (a token called `notebook-agent`, a `chat-bot` package).
_AI = _c(r"\bassistant\w*", r"(?<!-)\bagents?(?![a-z-])", r"(?<!-)\bai(?![a-z0-9-])", r"\bbots?(?![a-z])", r"\bllms?(?![a-z])",
         r"\bcopilot\b", r"\bassistente?\w*", r"\bassistenten\b", r"\basistent\w*", r"\basystent\w*", r"\bассистент\w*",
         r"\bасистент\w*", r"\bβοηθ\w*", r"助手", r"アシスタント", r"エージェント", r"어시스턴트", r"에이전트", r"\btrợ lý\b",
         r"\basisten\b", r"ผู้ช่วย", r"المساعد", r"העוזר", r"सहायक", r"\basistan\w*", r"\bavustaja\w*", r"دستیار")
_MUST = _c(r"\bmust\b", r"\bshould\b", r"\bhave to\b", r"\bhas to\b", r"\bshall\b", r"\bneeds? to\b", r"\bdoi[vt]\w*", r"\bdevr\w*",
           r"\bmüss\w*", r"\bmuss\b", r"\bsoll\w*", r"\bdeb[ea]n?\b", r"\bdeber\w*", r"\bdeve[mn]?\b", r"\bdevono\b", r"\bdovr\w*",
           r"\bmoet\w*", r"\bmusz\w*", r"\bmusi\w*", r"\bpowin\w*", r"\bдолж\w*", r"\bследует\b", r"\bнужно\b", r"\bпотрібно\b",
           r"应", r"應", r"必须", r"必須", r"都要", r"べき", r"なければ", r"해야", r"\bphải\b", r"\bharus\b", r"\bwajib\b", r"ต้อง",
           r"ควร", r"يجب", r"ينبغي", r"חייב", r"צריך", r"चाहिए", r"\bmalı\w*", r"\bmeli\w*", r"\bska\b", r"\bmåste\b", r"\bmusí\b",
           r"\bπρέπει\b", r"\bquiere que\b", r"\bwants? (?:the )?(?:assistant|agent)", r"باید")
_SENSITIVE = _c(L.SEND, L.SECRET_WORDS, *words("FOLLOW"), L.APPROVAL, r"https?://", r"\bs3://", r"[\w.+-]+@[\w-]+\.[a-z]",
                r"(?<![\w.])\.env\b", r"~/\.", r"\btrust\w*", r"\bfid[aoe]\w*", r"\bvertrau\w*", r"\bconfi[ae]\w*", r"\bдовер\w*",
                r"信任", r"信頼", r"신뢰", r"\bsafe\b", r"\bбезопасн\w*", r"\bsegur[oa]s?\b", r"\bsicur[ie]\b", r"\bsicher\b")
_AUTHORITY = _c(L.AUTHORITY)
_EXECUTE = _c(L.EXECUTE, r"اجرا")
# A file's contents, or the file itself, as what is run ("execute its content as a bash script").
_CONTENT = _c(r"\bcontents?\b", r"\bcontenu\b", r"\binhalt\w*", r"\bcontenido\b", r"\bconteúdo\b", r"\bcontenuto\b",
              r"\binhoud\b", r"\bzawartoś\w*", r"\biçeri\w*", r"\bсодержим\w*", r"\bвміст\w*", r"محتوا", r"محتوى",
              r"תוכן", r"सामग्री", r"内容", r"내용", r"\bnội dung\b", r"\bisi(?:nya)?\b", r"เนื้อหา",
              r"\bas (?:a )?(?:bash|shell|sh|python) (?:script|command)s?\b", r"\bas (?:a )?commands?\b")
_GRANT = _c(*words("PRECEDENCE"), L.UNRESTRICTED, L.LOWER, L.VOID)


def _scheduled_destruction(scheduled: str, flat: str) -> bool:
    """A standing order or trigger with a discarding command or a delete of a whole target, or a
    calendar schedule with a delete of everything; unless a confirmation is kept or it is the
    user's own habit."""
    if kept_confirmation(scheduled) or _habit(scheduled) or scoped_approval(flat):
        return False
    deletes = _affirmed(_DELETE, scheduled)
    dropped = bool(_SQL_DROP.search(scheduled)) and not _SCRATCH.search(scheduled)
    if _TRIGGER.search(scheduled) and (_DESTROY_CMD.search(scheduled) or dropped or
                                       deletes and _near(_DELETE, _WHOLE, scheduled, 50)):
        return True
    return bool(_SCHEDULE.search(scheduled) and deletes and _near(_DELETE, _ALL_OF_IT, scheduled, 50))


def _runs_contents(act: str) -> bool:
    """A run verb, not negated, with a file's contents right after it ("execute its content")."""
    return any(not _NEG.search(act[max(0, m.start() - 25):m.start()]) and _CONTENT.search(act, m.start(), m.end() + 40)
               for m in _EXECUTE.finditer(act))


def order_findings(flat: str) -> list[Finding]:
    act = without_protective(flat)
    out: list[Finding] = []
    scheduled = without_kept_consent(act)
    if _scheduled_destruction(scheduled, flat):
        out.append(Finding("destructive", "it schedules the destruction of data (a standing order or a "
                                          "trigger with a command or a delete of a whole target)"))
    if _TRIGGER.search(act) and _runs_contents(act):
        out.append(Finding("download_exec", "it runs whatever a file contains when a trigger fires (a file "
                                            "that appears, a message): its author, not the user, decides"))
    if _SELF.search(flat) and _affirmed(_PROPAGATE, act) and _ELSEWHERE.search(act):
        out.append(Finding("persistence", "it asks to copy or save itself elsewhere, so it survives "
                                          "being removed"))
    if _INSTRUCTIONS.search(act) and _FOREIGN.search(act) and _affirmed(_OBEY, act) and \
            not _AS_DATA.search(act):
        out.append(Finding("rule_override", "it makes instructions found in other content (web pages, "
                                            "files, memory, prefixed messages) count as orders"))
    outside = without_others_voided(dequote(act))  # a quoted letter that claims authority is data
    if _AUTHORITY.search(outside) and _GRANT.search(outside):
        out.append(Finding("identity_claim", "it grants a claimed role (administrator, developer, owner, "
                                             "security team) powers over the assistant's rules or approvals"))
    if any(_MUST.search(act, m.end(), m.end() + 60) for m in _AI.finditer(act)) and _SENSITIVE.search(act):
        out.append(Finding("rule_override", "it lays an obligation on the assistant (\"the assistant must …\") "
                                            "about sending, secrets, trust or approvals: text written for an "
                                            "agent to find, not a fact"))
    return out
