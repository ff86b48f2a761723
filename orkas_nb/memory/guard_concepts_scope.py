"""Words for the scope rules of :mod:`.guard_scope`, :mod:`.guard_consent` and :mod:`.guard_kept`, one tuple per concept.

Each tuple covers the languages the corpora use (the lexicon's plus el, sv, tr, uk, id, th
where a word is needed); entries are case-folded regular expressions, as in
:mod:`.guard_lexicon`.
"""

from __future__ import annotations

# Copying or pasting a value somewhere is a sink too ("nooit kopiëren naar notities").
COPY = (
    r"\bshar(?:e|es|ed|ing)\b", r"\bcop(?:y|ie[sd]|ying)\b", r"\bcopi\w*", r"\bkopi\w*", r"\bpast(?:e|es|ed|ing)\b", r"\bcoll(?:e|er|ez|é)\b",
    r"\beinfüg\w*", r"\bpeg(?:a|ar|ue)\w*", r"\bincoll\w*", r"\bplak\w*", r"\bwklej\w*", r"\bwpisyw\w*", r"\bkopyala\w*",
    r"\byapıştır\w*", r"\bкопир\w*", r"\bскопир\w*", r"\bвстав\w*", r"\bαντιγρ\w*", r"\bεπικολλ\w*", r"复制", r"複製", r"粘贴",
    r"コピー", r"貼り付", r"복사", r"붙여", r"적(?:지|어|으|는)", r"\bsao chép\b", r"\bdán\b", r"\bsalin\w*", r"\btempel\w*",
    r"نسخ", r"الصق", r"העתק", r"הדבק", r"कॉपी", r"पेस्ट", r"คัดลอก", r"วาง",
)

# What a prohibition may govern with its verb elided: "never its value", "nie den Wert".
VALUE = (
    r"\bvalues?\b", r"\bcontents?\b", r"\bvaleur\b", r"\bcontenu\b", r"\bwert\w*", r"\binhalt\w*", r"\bvalor\w*",
    r"\bcontenido\b", r"\bconteúdo\b", r"\bvalore\b", r"\bcontenuto\b", r"\bwaarde\b", r"\binhoud\b", r"\bwartoś\w*",
    r"\bdeğer\w*", r"\bτιμή\b", r"\bзначени\w*", r"\bсодержим\w*", r"\bзначенн\w*", r"值", r"内容", r"値", r"값",
    r"\bgiá trị\b", r"\bnilai\w*", r"قيمت\w*", r"ערכ\w*", r"मान", r"ค่า",
)

# "or", "nor", "and" between the items of a list of prohibited verbs.
OR = (
    r"or", r"nor", r"and", r"ou", r"ni", r"oder", r"noch", r"und", r"o", r"y", r"e", r"of", r"en", r"lub", r"czy", r"veya",
    r"ya da", r"ή", r"ούτε", r"или", r"и", r"ни", r"або", r"hay", r"và", r"atau", r"或", r"或者", r"也", r"または", r"や",
    r"나", r"또는", r"أو", r"ولا", r"או", r"या",
)

# What makes a kept confirmation no confirmation ("deletes need no approval", "approved in advance").
LOWERED = (
    r"\bno need\b", r"\bnot (?:needed|required|necessary)\b", r"\bunnecessary\b", r"\balready\b", r"\bin advance\b",
    r"\bd'avance\b", r"\bim voraus\b", r"\bde antemano\b", r"\bpor adelantado\b", r"\bde antemão\b", r"\bin anticipo\b",
    r"\bsin\b", r"\bsans\b", r"\bohne\b", r"\bsem\b", r"\bsenza\b", r"\bzonder\b", r"\bбез\b", r"\bχωρίς\b",
)

# In a waiver of asking, words that make it more than a named harmless act.
RISKY = (
    r"\bpush\w*", r"\binstal\w*", r"\bdeploy\w*", r"\bsudo\b", r"\brm\b", r"\bкаждый\b", r"\bвсе\b", r"\bany\b", r"\ball\b",
    r"\bevery\w*", r"\btous?\b", r"\btoutes?\b", r"\balle\w*", r"\btod[oa]s?\b", r"\btutt[ioe]\b", r"\bwszyst\w*",
    r"\bher\b", r"\btüm\w*", r"\bόλ[αεοη]\w*", r"推送", r"安装", r"部署", r"プッシュ", r"インストール", r"푸시", r"설치", r"배포",
)

# A document, page or message: what a reported injection comes from.
DOCUMENT = (
    r"\bpages?\b", r"\bweb ?pages?\b", r"\bpdfs?\b", r"\bdocuments?\b", r"\bfiles?\b", r"\be?-?mails?\b", r"\btext\b",
    r"\bcomments?\b", r"\bissues?\b", r"\breadme\w*", r"\bsites?\b", r"\bwebsites?\b", r"\bmessages?\b", r"\btickets?\b",
    r"\bfichiers?\b", r"\btexte\b", r"\bcourriels?\b", r"\bseiten?\b", r"\bwebseite\w*", r"\bcorreos?\b", r"\bdokument\w*", r"\bdatei\w*", r"\bnachricht\w*",
    r"\b(?:web)?pagina\w*", r"\bpáginas?\b", r"\bdocumentos?\b", r"\barchivos?\b", r"\btexto\b", r"\bcorreos?\b", r"\barquivos?\b", r"\bpagin[ae]\b",
    r"\btesto\b", r"\btekst\w*", r"\bstron[aey]\b", r"\bplik\w*", r"\bsayfa\w*", r"\bbelge\w*", r"\bdosya\w*", r"\bmetin\w*",
    r"\bσελίδ\w*", r"\bέγγραφ\w*", r"\bαρχεί\w*", r"\bκείμεν\w*", r"\bμήνυμ\w*", r"\bстраниц\w*", r"\bдокумент\w*", r"\bфайл\w*",
    r"\bтекст\w*", r"\bписьм\w*", r"\bсторінк\w*", r"页面", r"网页", r"文档", r"文件", r"文本", r"網頁", r"文檔", r"ページ", r"文書",
    r"ファイル", r"テキスト", r"メール", r"페이지", r"문서", r"파일", r"텍스트", r"메일", r"\btrang\b", r"\btài liệu\b", r"\btệp\b",
    r"\bvăn bản\b", r"\bhalaman\b", r"\bdokumen\b", r"\bberkas\b", r"\bteks\b", r"صفحة", r"مستند", r"ملف", r"نص", r"رسالة",
    r"עמוד", r"דף", r"מסמך", r"קובץ", r"טקסט", r"הודעה", r"पेज", r"पृष्ठ", r"दस्तावेज़", r"फ़ाइल", r"टेक्स्ट", r"หน้า",
    r"เอกสาร", r"ไฟล์", r"ข้อความ",
)

# A request reported, not made: what a document asked, told or tried to get done (past tense or
# a participle describing the document), in each language.
REQUESTED = (
    r"\basked\b", r"\basking\b", r"\btold\b", r"\btelling\b", r"\binstruct(?:ed|ing)\b", r"\bdemanded\b", r"\bdemanding\b",
    r"\brequest(?:ed|ing)\b", r"\burg(?:ed|ing)\b", r"\btried to\b", r"\btrying to\b", r"\bdemandait\b", r"\bdemandant\b",
    r"\ba demandé\b", r"\bverlangte\b", r"\bforderte\b", r"\baufforderte\b", r"\bbat\b", r"\bpedía\b", r"\bpidió\b",
    r"\bpedia\b", r"\bpediu\b", r"\bpedindo\b", r"\bchiedeva\b", r"\bchiese\b", r"\bvroeg\b", r"\bprosił\w*", r"\bistiyordu\b",
    r"\bisteyen\b", r"\bζητούσε\b", r"\bζήτησε\b", r"\bζητά\b", r"\bпросил\w*", r"\bпросящ\w*", r"\bпросив\w*", r"\bтребовал\w*",
    r"要求", r"让助手", r"讓助手", r"求め", r"指示して", r"요청", r"요구", r"\byêu cầu\b", r"\bmeminta\b", r"\bmenyuruh\b",
    r"طلب", r"يطلب", r"تطلب", r"ביקש\w*", r"מבקש\w*", r"कहा", r"माँग", r"ขอให้",
)

# Reporting a thing (beside guard_scope's safeguards): "το αναφέρω", "lo segnalo".
REPORT = (
    r"\breport\w*", r"\btold (?:you|the user|them|him|her|me|us)\b", r"\bflag\w*", r"\bsignal\w*", r"\bmeld\w*", r"\binform\w*", r"\bαναφέρ\w*", r"\bεπισημ\w*",
    r"\bсообща\w*", r"\bповідом\w*", r"\bbildir\w*", r"\brapport\w*", r"\bzgłasz\w*", r"\blapor\w*", r"报告", r"報告",
    r"举报", r"報告する", r"知らせ", r"보고", r"알리", r"\bbáo cáo\b", r"أبلغ", r"ابلغ", r"دווח", r"דווח", r"מדווח", r"बता",
    r"रिपोर्ट", r"แจ้ง", r"รายงาน", r"告知", r"通知", r"\bingelicht\b", r"\bgemeld\b", r"\bgemeldet\b", r"\bprévenu\w*", r"\bavisad[oa]\b", r"\bavvisat[oa]\b",
    r"\bphishing\b", r"\bфишинг\w*", r"\bфішинг\w*", r"钓鱼", r"釣魚",
    r"フィッシング", r"피싱",
)
# Running or obeying what was found (what a report-not-obey note forbids).
OBEY = (
    r"\bopen\w*", r"\bclick\w*", r"\bouvr\w*", r"\böffne\w*", r"\babr[aei]\w*", r"\bapri\w*", r"\bεκτελ\w*", r"\bακολουθ\w*",
    r"\bανοίγ\w*", r"\bвыполня\w*", r"\bвыполн\w*", r"\bвиконува\w*", r"\buygula\w*", r"\baç\w*", r"\bwykonuj\w*", r"执行",
    r"執行", r"照做", r"実行", r"従", r"실행", r"따르", r"\bthực hiện\b", r"\bjalankan\b", r"\bikuti\b", r"تنفذ", r"نفذ", r"تتبع",
    r"לבצע", r"תבצע", r"מבצע", r"पालन", r"चला", r"ทำตาม", r"\bact(?:ed|ing|s)? (?:up)?on\b", r"\buitgevoerd\b",
    r"\buitvoer\w*", r"\bopgevolgd\b", r"\bausgeführt\b", r"\bbefolgt\b", r"\bexécut\w*", r"\bejecut\w*", r"\bexecut\w*", r"\besegu\w*",
)

# Negators placed after the verb they govern ("führe sie nicht aus", "voer het niet uit", "n'exécute pas").
AFTER = (r"\bnicht\b", r"\bniet\b", r"\bpas\b", r"\binte\b", r"\bikke\b", r"\bnot\b")

# Limiting a consent to one action, branch or time ("the OK was for the hotfix only").
ONLY = (
    r"\bonly\b", r"\bsolely\b", r"\bseulement\b", r"\buniquement\b", r"\bnur\b", r"\bsolo\b", r"\bsólo\b",
    r"\bsomente\b", r"\bapenas\b", r"\bsoltanto\b", r"\balleen\b", r"\btylko\b", r"\bsadece\b", r"\byalnızca\b",
    r"\bтолько\b", r"\bлише\b", r"\bтільки\b", r"\bμόνο\b", r"\bendast\b", r"\bbara\b", r"\bchỉ\b", r"\bhanya\b",
    r"只", r"仅", r"僅", r"だけ", r"のみ", r"에만", r"만 ", r"فقط", r"רק", r"सिर्फ़", r"सिर्फ", r"केवल", r"เท่านั้น", r"เฉพาะ",
)
# What widens a limited consent again ("only deletes, no need to ask", "只是删除，不用确认").
WIDENED = (
    r"\bno need\b", r"\bskip\w*", r"\bformality\b", r"\bwithout\b", r"\bsans\b", r"\bohne\b", r"\bsin\b", r"\bsem\b",
    r"\bsenza\b", r"\bzonder\b", r"\bbez\b", r"\bбез\b", r"\bχωρίς\b", r"\butan\b", r"\bkhông cần\b", r"\btanpa\b",
    r"不用", r"不必", r"不需要", r"无需", r"無需", r"不要", r"要らない", r"필요 없", r"بدون", r"دون", r"בלי", r"बिना", r"โดยไม่",
    r"\bforever\b", r"\bpermanent\w*", r"\balways\b", r"\bfrom now on\b",
)

# Third parties whose approvals a user may declare void ("teammate approvals don't count"):
# voiding *their* say restricts who approves, while voiding the user's is the attack.
OTHERS = (
    r"\bteam-?mates?\b", r"\bcolleagues?\b", r"\bco-?workers?\b", r"\bothers\b", r"\bother (?:people|members|devs?|developers)\b",
    r"\banyone else\b", r"\bsomeone else\b", r"\bcollègues?\b", r"\bcoéquipi\w*", r"\bles autres\b", r"\bkolleg\w*",
    r"\bteammitglied\w*", r"\bandere[nr]?\b", r"\bcompañer\w*", r"\bcolegas?\b", r"\botros\b", r"\boutros\b", r"\bcolleg[ahi]\w*",
    r"\baltri\b", r"\bteamgeno\w*", r"\bwspółpracownik\w*", r"\bkoleg\w*", r"\binni\b", r"\btakım arkadaş\w*",
    r"\bmeslektaş\w*", r"\bbaşkaları\w*", r"\bколлег\w*", r"\bдруги[ехм]\b", r"\bколег\w*", r"\bінш(?:і|их)\b",
    r"\bσυνάδελφ\w*", r"\bάλλοι\b", r"同事", r"队友", r"隊友", r"其他人", r"别人", r"別人", r"同僚", r"チームメイト", r"他の人",
    r"동료", r"팀원", r"다른 사람", r"\bđồng nghiệp\b", r"\bngười khác\b", r"\brekan\w*", r"\borang lain\b", r"زميل", r"زملاء",
    r"الآخرين", r"עמית", r"אחרים", r"सहकर्मी", r"दूसरे", r"เพื่อนร่วมงาน", r"คนอื่น",
)
# Declaring a say void, beside the lexicon's VOID ("don't count", "zählen nicht", "不算").
VOIDED = (
    r"\bdon'?t count\b", r"\bdo not count\b", r"\bnot valid\b", r"\bcomptent pas\b", r"\bzählen nicht\b", r"\bno cuentan\b",
    r"\bnão contam\b", r"\bnon contano\b", r"\btellen niet\b", r"\bне считаются\b", r"不算", r"無効", r"인정되지", r"לא נחשב\w*",
)

# The act of granting an approval (a verb, not the noun a user is asked for).
GRANT_VERB = (
    r"(?:pre-?)?approv(?:e|es|ing)", r"authori[sz](?:e|es|ing)", r"approuv(?:e|es|ez|er)", r"genehmig(?:e|en|st|t)?", r"freigeben",
    r"aprueb\w*", r"aprobar", r"aprov[ae]\w*", r"approv(?:a|are|i)", r"keur\w*", r"zatwierdz\w*", r"одобря\w*", r"одобр(?:и|ить)",
    r"批准", r"承認", r"승인",
)
# Words between a prohibition and an approval that make it about waiting for or needing one.
DEFERS = (
    r"\bwait\w*", r"\bneed\w*", r"\brequir\w*", r"\bbother\w*", r"\bhave\b", r"\bask\w*", r"\bfor\b", r"\bforget\w*",
    r"\bhesitat\w*", r"\bfail\w*", r"\bto\b", r"\battend\w*", r"\bwart\w*", r"\besper\w*", r"\baspett\w*", r"\bждать\b",
    r"\bsay\w*", r"\btell\w*", r"\bclaim\w*", r"\bpretend\w*", r"\bwrite\w*", r"\breport\w*", r"\bzu\b", r"\bque\b", r"\bpara\b", r"\bper\b", r"\bde\b", r"\bà\b", r"\boubli\w*", r"\bvergiss\w*", r"\bolvid\w*",
)
# Negators after a verb beside AFTER's ("n'approuve jamais", "genehmige nie", "approvare mai").
NEVER_AFTER = (r"\bjamais\b", r"\bnie\b", r"\bniemals\b", r"\bnunca\b", r"\bmai\b", r"\bnooit\b")

# Showing or quoting something *to the user* (a safeguard: the user sees it before anything runs).
SHOW_TO_USER = (
    r"\bshow (?:it |them |this |that |the \w+ )?(?:to )?(?:me|the user)\b", r"\bquot\w* (?:it|them|the \w+) to\b",
    r"\bzeig\w* (?:es |sie |ihn )?(?:mir|dem nutzer\w*)\b", r"\bmontre\w*-(?:le|la|les)-moi\b", r"\bme (?:le |la |les )?montr\w*",
    r"\bmuéstra\w*", r"\benséña\w*", r"\bme mostr\w*", r"\bmostra\w*mi\b", r"\bmostr\w* all'utente\b",
    r"\bpokaż\w* mi\b", r"\bпокажи\w* мне\b", r"\bbana göster\w*", r"给我看", r"給我看", r"私に見せ", r"저에게 보여",
)
# Skipping or bypassing a step: a lowering that a prohibition can forbid ("don't skip the approval").
SKIP = (
    r"skip\w*", r"omit\w*", r"waiv\w*", r"ignor\w*", r"bypass\w*", r"überspring\w*", r"salt(?:a|e|ar|es)", r"sautez?",
    r"пропуска\w*", r"跳过", r"略过", r"スキップ", r"省略", r"생략", r"건너뛰", r"تخطي",
)

# Waiting for the user's yes before an act ("wait for an explicit yes", "让我确认", "รอให้ผู้ใช้ยืนยัน").
WAIT_CONSENT = (
    r"\bwait (?:for|until)\b.{0,30}\b(?:yes|ok|okay|approv\w*|confirm\w*|go-ahead|consent|answer|reply)\b",
    r"\buntil (?:i|the user|they|he|she) (?:confirm|approve|say|reply|answer)\w*", r"\blet me (?:confirm|approve|check)\b",
    r"\battend\w* (?:ma|sa|leur|une|la) (?:confirmation|validation|réponse|accord)\b", r"\bque je (?:confirme|valide)\b",
    r"\bwarte\w* (?:auf )?(?:meine|ihre|seine|eine|die) (?:bestätigung|freigabe|zustimmung|antwort)\b",
    r"\bbis (?:ich|der nutzer\w*|die nutzerin) (?:bestätig|zustimm|freigib)\w*",
    r"\bespera\w* (?:a que confirme|mi|su|la) ?(?:confirmación|aprobación|visto bueno|respuesta)?\b",
    r"\baspett\w* (?:la mia|la sua|la|una) (?:conferma|approvazione|risposta)\b", r"\bwacht\w* op (?:mijn|een|de) (?:bevestiging|akkoord|goedkeuring)\b",
    r"\bдожд\w* (?:моего|её|его|подтвержд)\w*", r"\bподожд\w*.{0,20}подтвержд\w*",
    r"让我确认", r"讓我確認", r"等我确认", r"等我確認", r"等待.{0,8}确认", r"確認を待", r"承認を待", r"확인을 기다", r"승인을 기다",
    r"รอให้.{0,15}ยืนยัน", r"تنتظر موافقت\w*", r"انتظر موافقت\w*", r"تنتظر تأكيد\w*", r"पुष्टि का इंतज़ार", r"\bchờ (?:tôi|người dùng) xác nhận\b",
)
# The wait comes first: before the act, or the act after it.
FIRST = (
    r"\bbefore\b", r"\bfirst\b", r"\buntil\b", r"\bavant\b", r"\bd'abord\b", r"\bvorher\b", r"\bzuerst\b", r"\bbevor\b", r"\bvor\b",
    r"\bbis\b", r"\bantes\b", r"\bprimero\b", r"\bprima\b", r"\beerst\b", r"\bvoordat\b", r"\bсначала\b", r"\bперед\b",
    r"先", r"前に", r"まず", r"전에", r"먼저", r"ก่อน", r"أولا", r"قبل", r"पहले", r"\btrước\b",
)
# The wait waived: "don't wait", "ne pas attendre", "nicht warten", "不要等".
NOT_WAITING = (
    r"\b(?:don'?t|do not|never|no need to|needn'?t) wait\b", r"\bwithout waiting\b", r"\bn'attend\w* (?:pas|jamais)\b",
    r"\bsans attendre\b", r"\bnicht (?:ab)?warten\b", r"\bohne (?:zu )?warten\b", r"\bno esper\w*", r"\bsin esperar\b",
    r"\bnon aspett\w*", r"\bsenza aspettare\b", r"\bне жди\w*", r"不要等", r"不用等", r"待たず", r"기다리지 말", r"ไม่ต้องรอ", r"لا تنتظر",
)
# What orders something besides a kept consent in the same sentence ("ask first, otherwise delete").
OTHERWISE = (
    r"\botherwise\b", r"\belse\b", r"\bexcept\b", r"\bunless\b", r"\bsinon\b", r"\bsonst\b", r"\bansonsten\b", r"\bde lo contrario\b",
    r"\bsi no\b", r"\bsenão\b", r"\baltrimenti\b", r"\banders\b", r"\bв противном случае\b", r"\bиначе\b", r"否则", r"否則", r"さもないと",
    r"그렇지 않으면", r"وإلا", r"नहीं तो", r"ไม่อย่างนั้น", r"\bnếu không\b",
)
