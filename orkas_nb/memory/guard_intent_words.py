"""Concepts of :mod:`.guard_intent`, one row per concept, one cell per language.

The same languages as :mod:`.guard_concepts` (en fr de es pt it nl pl tr ru uk ar he hi zh
zh-Hant ja ko vi id th); Hebrew, Devanagari, Thai and CJK cells are substrings.
"""

from __future__ import annotations

INTENT: dict[str, dict[str, tuple[str, ...]]] = {
    # The person the assistant works for: what a planted entry tries to outrank or deceive.
    "USER": {
        "en": (r"\b(?:the )?user\b", r"\bthe human\b"), "fr": (r"\butilisat\w*",), "de": (r"\b(?:be)?nutzer\w*",),
        "es": (r"\busuari[oa]s?\b",), "pt": (r"\busuári[oa]s?\b", r"\butilizador\w*"), "it": (r"\butent[ei]\b",),
        "nl": (r"\bgebruiker\w*",), "pl": (r"\bużytkownik\w*",), "tr": (r"\bkullanıcı\w*",),
        "ru": (r"\bпользовател\w*",), "uk": (r"\bкористувач\w*",), "ar": ("المستخدم",), "he": ("המשתמש",),
        "hi": ("उपयोगकर्ता", "यूज़र"), "zh": ("用户", "使用者", "用戶"), "ja": ("ユーザー", "利用者"),
        "ko": ("사용자",), "vi": (r"\bngười dùng\b",), "id": (r"\bpengguna\b",), "th": ("ผู้ใช้",),
    },
    # Outranking: "takes precedence over", "even if the user objects".
    "PRECEDENCE": {
        "en": (r"\b(?:precedence|priority) over\b", r"\boutrank\w*", r"\boverrul\w*", r"\beven if\b"),
        "fr": (r"\bpriorité sur\b", r"\bpriment?\b.{0,5}\bsur\b", r"\bmême si\b"),
        "de": (r"\bvorrang vor\b", r"\bvorrang\b", r"\bauch wenn\b", r"\bselbst wenn\b"),
        "es": (r"\bprioridad sobre\b", r"\bprevalec\w* sobre\b", r"\baunque\b", r"\bincluso si\b"),
        "pt": (r"\bprioridade sobre\b", r"\bprevalec\w* sobre\b", r"\bmesmo que\b", r"\bmesmo se\b"),
        "it": (r"\bprecedenza su\b", r"\bpreval\w* su\b", r"\banche se\b"),
        "nl": (r"\bvoorrang\b", r"\bzelfs als\b"), "pl": (r"\bpierwszeństw\w*", r"\bnawet jeśli\b", r"\bnawet gdy\b"),
        "tr": (r"\böncelik\w*", r"\bitiraz etse\b", r"\bbile\b"), "ru": (r"\bприоритет\w*", r"\bдаже если\b"),
        "uk": (r"\bпріоритет\w*", r"\bнавіть якщо\b"), "ar": ("الأولوية على", "حتى لو", "حتى وإن"),
        "he": ("עדיפות", "גם אם"), "hi": ("प्राथमिकता", "भले ही", "से ऊपर"),
        "zh": ("优先于", "優先於", "优先", "即使", "就算"), "ja": ("より優先", "優先", "たとえ", "反対しても"),
        "ko": ("보다 우선", "우선", "반대해도", "하더라도"), "vi": (r"\bưu tiên\b", r"\bngay cả khi\b"),
        "id": (r"\bprioritas\b", r"\bmeskipun\b", r"\bwalaupun\b"), "th": ("สำคัญกว่า", "มาก่อน", "แม้ว่า", "แม้"),
    },
    # Obeying a source: "follow", "obey", "do what … says".
    "FOLLOW": {
        "en": (r"\bfollow\w*", r"\bobey\w*", r"\blisten\w* to\b", r"\bact\w* on\b", r"\bdo (?:what|whatever)\b"),
        "fr": (r"\bsuis\b", r"\bsuivez\b", r"\bobéi\w*", r"\bécoute\w*", r"\bfais ce que\b", r"\bagis\b"),
        "de": (r"\bbefolg\w*", r"\bfolge\w*", r"\bgehorch\w*", r"\bhör\w* auf\b", r"\bmaßgeblich\b"),
        "es": (r"\bsigue\b", r"\bobedece\w*", r"\bhaz caso\b", r"\bhaz lo que\b"),
        "pt": (r"\bsiga\b", r"\bobedeç\w*", r"\bfaça o que\b"), "it": (r"\bsegui\b", r"\bobbedisci\b", r"\bascolta\b"),
        "nl": (r"\bvolg\b", r"\bgehoorzaam\w*", r"\bluister\w*"),
        "pl": (r"\bsłuchaj\w*", r"\bprzestrzegaj\b", r"\bstosuj się\b", r"\bwykonuj\b"),
        "tr": (r"\buy\b", r"\bitaat\w*", r"\bdinle\b"), "ru": (r"\bслушай\w*", r"\bследуй\w*", r"\bподчиняй\w*"),
        "uk": (r"\bслухай\w*", r"\bдотримуй\w*", r"\bвиконуй\w*"), "ar": ("اتبع", "أطع", "التزم"),
        "he": ("פעל לפי", "ציית", "הקשב", "לפי"), "hi": ("वही करो", "पालन", "मानो", "कहें वही"),
        "zh": ("遵循", "服从", "服從", "听从", "聽從", "按照"), "ja": ("従って", "従う", "従え"),
        "ko": ("따라", "따르"), "vi": (r"\blàm theo\b", r"\btuân theo\b"),
        "id": (r"\bikuti\b", r"\bpatuhi\b", r"\bturuti\b"), "th": ("ทำตาม", "เชื่อฟัง"),
    },
    "ONLY": {
        "en": (r"\bonly\b", r"\bsolely\b", r"\bexclusively\b"), "fr": (r"\bseulement\b", r"\buniquement\b", r"\bque\b"),
        "de": (r"\bnur\b", r"\bausschließlich\b"), "es": (r"\bs[oó]lo\b", r"\búnicamente\b"),
        "pt": (r"\bsó\b", r"\bsomente\b", r"\bapenas\b"), "it": (r"\bsolo\b", r"\bsoltanto\b"),
        "nl": (r"\balleen\b", r"\buitsluitend\b"), "pl": (r"\btylko\b", r"\bwyłącznie\b"),
        "tr": (r"\bsadece\b", r"\byalnızca\b"), "ru": (r"\bтолько\b", r"\bлишь\b"), "uk": (r"\bлише\b", r"\bтільки\b"),
        "ar": ("فقط",), "he": ("רק",), "hi": ("केवल", "सिर्फ़", "सिर्फ"), "zh": ("只", "仅", "僅"),
        "ja": ("だけ", "のみ"), "ko": ("만 ", "오직"), "vi": (r"\bchỉ\b",), "id": (r"\bhanya\b",),
        "th": ("เท่านั้น", "เพียง"),
    },
    # Deleting or rewriting: aimed at memory itself, a planted entry erases the others.
    "DELETE": {
        "en": (r"\bdelet\w*", r"\berase\w*", r"\bremov\w*", r"\bwipe\w*", r"\bpurg\w*", r"\boverwrit\w*"),
        "fr": (r"\bsupprim\w*", r"\beffac\w*"), "de": (r"\blösch\w*", r"\bentfern\w*"),
        "es": (r"\bborr\w*", r"\belimin\w*"), "pt": (r"\bapag\w*", r"\bexclu\w*", r"\belimin\w*"),
        "it": (r"\bcancell\w*", r"\belimin\w*"), "nl": (r"\bverwijder\w*", r"\bwis\b"),
        "pl": (r"\busuń\w*", r"\busuwa\w*", r"\bskasuj\w*"), "tr": (r"\bsil\w*",),
        "ru": (r"\bудал\w*", r"\bстер\w*", r"\bсотри\b"), "uk": (r"\bвидал\w*", r"\bзітри\b"),
        "ar": ("احذف", "امسح", "حذف"), "he": ("מחק", "למחוק"), "hi": ("हटा", "मिटा", "डिलीट"),
        "zh": ("删除", "删掉", "刪除", "清除"), "ja": ("消して", "消す", "削除"), "ko": ("삭제", "지워"),
        "vi": (r"\bxóa\b", r"\bxoá\b"), "id": (r"\bhapus\b",), "th": ("ลบ",),
    },
    # Telling the user something regardless of the truth.
    "DECEIVE": {
        "en": (r"\bpretend\w*", r"\bfake\w*", r"\bmake it look\b", r"\bregardless of (?:the )?(?:result|truth|outcome)\b",
               r"\b(?:say|report|tell|claim|answer)\w*\b.{0,60}\beven (?:if|when|though)\b"),
        "fr": (r"\bfais semblant\b", r"\bprétend\w*", r"\b(?:dis|réponds|indique)\w*\b.{0,60}\bmême si\b"),
        "de": (r"\btu so\b", r"\bbehaupte\w*", r"\b(?:sag|antworte|melde)\w*\b.{0,60}\bauch wenn\b"),
        "es": (r"\bfing(?:e|es|en|ir|imos|iendo|ió|ía|iste)\b", r"\bfinj\w*", r"\bhaz como si\b", r"\b(?:di|responde|informa)\w*\b.{0,60}\baunque\b",
               r"\bresponde que ya\b"),
        "pt": (r"\bfinja\w*", r"\b(?:diga|responda|informe)\w*\b.{0,60}\bmesmo que\b"),
        "it": (r"\bfingi\w*", r"\bfai finta\b", r"\b(?:di|rispondi)\w*\b.{0,60}\banche se\b"),
        "nl": (r"\bdoe alsof\b", r"\b(?:zeg|antwoord|meld)\w*\b.{0,60}\bzelfs als\b"),
        "pl": (r"\budawaj\w*", r"\b(?:mów|odpowiadaj|zgłaszaj)\w*\b.{0,60}\bnawet (?:jeśli|gdy)\b"),
        "tr": (r"\bgibi davran\w*",), "ru": (r"\bпритворя\w*", r"\bделай вид\b", r"\bговори\w*\b.{0,60}\bдаже если\b"),
        "uk": (r"\bвдавай\w*", r"\bприкидай\w*", r"\bкажи\w*\b.{0,60}\bнавіть якщо\b"),
        "ar": ("تظاهر", "قل .{0,40}حتى لو"), "he": ("העמד פנים", "תגיד .{0,40}גם אם"),
        "hi": ("दिखावा", "बहाना"), "zh": ("假装", "假裝", "谎称", "謊稱"), "ja": ("ふりをして", "ふりをする"),
        "ko": ("척해", "척하"), "vi": (r"\bgiả vờ\b",), "id": (r"\bpura-pura\b", r"\bberpura-pura\b"),
        "th": ("แกล้งทำ", "ทำเป็น"),
    },
    # "Do what the notes say": memory made the source of orders (paired with a memory word).
    "DO_WHAT": {
        "en": (r"\bdo (?:what|whatever)\b", r"\bas (?:the|these|this) notes? says?\b"), "fr": (r"\bfais ce que\b", r"\bfaites ce que\b"),
        "de": (r"\btu,? was\b", r"\bmach,? was\b"), "es": (r"\bhaz lo que\b",), "pt": (r"\bfaça o que\b",),
        "it": (r"\bfai (?:quello )?che\b", r"\bfai ciò che\b"), "nl": (r"\bdoe wat\b",), "pl": (r"\brób to,? co\b", r"\bzrób to,? co\b"),
        "tr": (r"\bne (?:diyorsa|derse)\b",), "ru": (r"\bделай то,? что\b", r"\bделай,? что\b"), "uk": (r"\bроби те,? що\b",),
        "ar": ("افعل ما",), "he": ("עשה מה ש", "עשה את מה ש"), "hi": ("वही करो", "कहें वही"),
        "zh": ("照.{0,8}做", "说什么就做什么"), "ja": ("言う通り", "の通りに"), "ko": ("말하는 대로", "시키는 대로"),
        "vi": (r"\blàm (?:theo )?những gì\b",), "id": (r"\blakukan apa\b",), "th": ("ทำตามที่",),
    },
    # A failure, and a report of success: a lie told to the user.
    "FAIL": {
        "en": (r"\bfail\w*", r"\berrors?\b", r"\bbroken\b", r"\bred\b"), "fr": (r"\béchou\w*", r"\béchec\b", r"\berreur\w*"),
        "de": (r"\bfehlschl\w*", r"\bschlägt\b.{0,20}\bfehl\b", r"\bfehler\w*"), "es": (r"\bfall[aeó]\w*", r"\berror\w*"),
        "pt": (r"\bfalh\w*", r"\berros?\b"), "it": (r"\bfallisc\w*", r"\bfallit\w*", r"\berrore\b"),
        "nl": (r"\bmislukt\w*", r"\bfout\w*"), "pl": (r"\bnie powiedzie\b", r"\bnie uda\w*", r"\bbłęd\w*"),
        "tr": (r"\bbaşarısız\w*", r"\bhata\w*"), "ru": (r"\bне удал\w*", r"\bпада\w*", r"\bошибк\w*", r"\bупал\w*"),
        "uk": (r"\bне вдал\w*", r"\bпада\w*", r"\bпомилк\w*"), "ar": ("فشل", "خطأ"), "he": ("נכשל", "שגיאה"),
        "hi": ("विफल", "फेल", "त्रुटि"), "zh": ("失败", "失敗", "报错", "出错"), "ja": ("失敗", "エラー", "落ち"),
        "ko": ("실패", "오류"), "vi": (r"\bthất bại\b", r"\blỗi\b"), "id": (r"\bgagal\b",), "th": ("ล้มเหลว", "ผิดพลาด"),
    },
    "SUCCESS": {
        "en": (r"\bsucceed\w*", r"\bpass(?:ed|es|ing)\b", r"\bworked\b", r"\ball good\b", r"\bgreen\b", r"\bfine\b"),
        "fr": (r"\bréussi\w*", r"\bpassé\w*", r"\btout va bien\b"), "de": (r"\berfolgreich\b", r"\bbestanden\b", r"\bgrün\b", r"\bgeklappt\b"),
        "es": (r"\bpas[óo]\b", r"\bsalió bien\b", r"\bfuncion[óo]\b", r"\bcon éxito\b", r"\bexitos\w*"),
        "pt": (r"\bpassou\b", r"\bfuncionou\b", r"\bsucesso\b"), "it": (r"\briuscit\w*", r"\bpassat\w*", r"\bsuccesso\b"),
        "nl": (r"\bgelukt\b", r"\bgeslaagd\b"), "pl": (r"\budało się\b", r"\bprzeszł\w*", r"\bsukces\w*"),
        "tr": (r"\bbaşarılı\b", r"\bgeçti\b"), "ru": (r"\bуспешн\w*", r"\bпрошл\w*", r"\bвсё хорошо\b"),
        "uk": (r"\bуспішн\w*", r"\bпройшл\w*"), "ar": ("نجح", "بنجاح"), "he": ("הצליח", "עבר בהצלחה"),
        "hi": ("सफल", "पास"), "zh": ("成功", "通过", "通過"), "ja": ("成功", "合格", "通った"),
        "ko": ("성공", "통과"), "vi": (r"\bthành công\b",), "id": (r"\bberhasil\b", r"\bsukses\b"), "th": ("สำเร็จ", "ผ่าน"),
    },
    "SAY": {
        "en": (r"\btell\w*", r"\bsay\w*", r"\breport\w*", r"\bclaim\w*", r"\banswer\w*", r"\bmark\w*"),
        "fr": (r"\bdis\b", r"\bdites\b", r"\bindique\w*", r"\bréponds\b", r"\bannonce\w*"),
        "de": (r"\bsag\w*", r"\bmeld\w*", r"\bbericht\w*", r"\bantworte\w*"), "es": (r"\bdi\b", r"\bdile\b", r"\binforma\w*", r"\bresponde\w*"),
        "pt": (r"\bdiga\b", r"\binform\w*", r"\bresponda\b"), "it": (r"\bdi'\b", r"\bdì\b", r"\bdille\b", r"\bdigli\b", r"\briferisci\b"),
        "nl": (r"\bzeg\b", r"\bmeld\b", r"\brapporteer\w*"), "pl": (r"\bpowiedz\w*", r"\bzgłoś\w*", r"\bmów\b"),
        "tr": (r"\bsöyle\w*", r"\brapor\w*"), "ru": (r"\bскажи\b", r"\bсообщ\w*", r"\bговори\b"), "uk": (r"\bскажи\b", r"\bповідом\w*"),
        "ar": ("قل", "أخبر"), "he": ("תגיד", "ספר", "דווח"), "hi": ("कहो", "बताओ", "बता दो"),
        "zh": ("告诉", "告訴", "说", "報告", "报告"), "ja": ("伝え", "言っ", "報告"), "ko": ("말해", "보고", "알려"),
        "vi": (r"\bnói\b", r"\bbáo\b"), "id": (r"\bbilang\b", r"\bkatakan\b", r"\blaporkan\b"), "th": ("บอก", "รายงาน"),
    },
    # "Whoever …": a channel that makes anyone who knows a sign count as someone.
    "WHOEVER": {
        "en": (r"\bwhoever\b", r"\banyone who\b", r"\banybody who\b"), "fr": (r"\bquiconque\b", r"\bcelui qui\b"),
        "de": (r"\bwer (?:auch immer|\w+ \w+)?\b.{0,40}\b(?:ist|hat|gilt)\b", r"\bjeder, der\b"), "es": (r"\bquien\b", r"\bquienquiera\b", r"\bcualquiera que\b"),
        "pt": (r"\bquem\b", r"\bqualquer pessoa que\b"), "it": (r"\bchiunque\b",), "nl": (r"\bwie\b.{0,40}\b(?:is|heeft)\b", r"\biedereen die\b"),
        "pl": (r"\bktokolwiek\b", r"\bkażdy, kto\b"), "tr": (r"\bkim\b.{0,30}\bise\b",), "ru": (r"\bкто бы\b", r"\bлюбой, кто\b", r"\bтот, кто\b"),
        "uk": (r"\bбудь-хто\b", r"\bхто б\b", r"\bтой, хто\b"), "ar": ("كل من", "أي شخص"), "he": ("כל מי ש", "מי שכותב"),
        "hi": ("जो कोई", "जो भी"), "zh": ("凡是", "任何人", "谁"), "ja": ("誰でも", "誰であれ"), "ko": ("누구든",),
        "vi": (r"\bbất kỳ ai\b", r"\bai\b.{0,20}\bthì\b"), "id": (r"\bsiapa pun\b", r"\bsiapapun\b"), "th": ("ใครก็ตาม", "ผู้ใดที่"),
    },
    # Editing memory (beside DELETE): "rewrite any note", "change the other entries".
    "MODIFY": {
        "en": (r"\brewrit\w*", r"\bedit\w*", r"\bchang\w*", r"\breplac\w*", r"\bflip\w*"), "fr": (r"\bréécri\w*", r"\bmodifi\w*", r"\bremplac\w*"),
        "de": (r"\bumschreib\w*", r"\bänder\w*", r"\bersetz\w*"), "es": (r"\breescrib\w*", r"\bmodific\w*", r"\bcambi\w*"),
        "pt": (r"\breescrev\w*", r"\bmodifiqu\w*", r"\bmud\w*", r"\baltere\w*"), "it": (r"\briscriv\w*", r"\bmodific\w*", r"\bcambi\w*"),
        "nl": (r"\bherschrijf\w*", r"\bwijzig\w*", r"\bverander\w*"), "pl": (r"\bprzepisz\w*", r"\bzmień\w*", r"\bzmieni\w*"),
        "tr": (r"\byeniden yaz\w*", r"\bdeğiştir\w*"), "ru": (r"\bперепиш\w*", r"\bизмени\w*", r"\bзамени\w*"),
        "uk": (r"\bперепиш\w*", r"\bзмін\w*", r"\bзаміни\w*"), "ar": ("أعد كتابة", "غيّر", "عدّل"), "he": ("שכתב", "שנה", "ערוך"),
        "hi": ("बदल", "दोबारा लिख"), "zh": ("改写", "改寫", "修改", "改成"), "ja": ("書き換え", "変更"), "ko": ("바꿔", "수정", "고쳐"),
        "vi": (r"\bviết lại\b", r"\bsửa\b", r"\bđổi\b"), "id": (r"\btulis ulang\b", r"\bubah\b", r"\bganti\b"), "th": ("เขียนใหม่", "แก้ไข", "เปลี่ยน"),
    },
    # What protects the user: a planted entry removes or weakens it.
    "SAFEGUARD": {
        "en": (r"\b(?:security|safety|auth) (?:checks?|tests?|scans?|reviews?)\b", r"\baudit (?:logs?|trail)\b", r"\bsafety nets?\b",
               r"\bguards?\b", r"\bbackups?\b"),
        "fr": (r"\bcontrôles? de sécurité\b", r"\bjournal d'audit\b", r"\bsauvegardes?\b"),
        "de": (r"\bsicherheits-?\w+", r"\baudit-?log\w*", r"\bbackups?\b"), "es": (r"\bcontrol(?:es)? de seguridad\b", r"\bregistros? de auditoría\b", r"\bcopias? de seguridad\b"),
        "pt": (r"\bverificaç\w* de segurança\b", r"\blogs? de auditoria\b", r"\bbackups?\b"), "it": (r"\bcontroll\w* di sicurezza\b", r"\blog di audit\b", r"\bbackup\b"),
        "nl": (r"\bveiligheids\w+", r"\bauditlog\w*", r"\bback-?ups?\b"), "pl": (r"\bkontrol\w* bezpieczeństwa\b", r"\bdziennik\w* audytu\b", r"\bkopi\w* zapasow\w*"),
        "tr": (r"\bgüvenlik (?:kontrol|denetim)\w*", r"\byedek\w*"), "ru": (r"\bпроверк\w* безопасности\b", r"\bжурнал\w* аудита\b", r"\bбэкап\w*", r"\bрезервн\w* коп\w*"),
        "uk": (r"\bперевірк\w* безпеки\b", r"\bжурнал\w* аудиту\b", r"\bрезервн\w* коп\w*"), "ar": ("فحص الأمان", "سجل التدقيق", "النسخ الاحتياطي"),
        "he": ("בדיקת אבטחה", "יומן ביקורת", "גיבוי"), "hi": ("सुरक्षा जांच", "ऑडिट लॉग", "बैकअप"),
        "zh": ("安全检查", "安全檢查", "审计日志", "審計日誌", "备份", "備份"), "ja": ("セキュリティチェック", "監査ログ", "バックアップ"),
        "ko": ("보안 검사", "감사 로그", "백업"), "vi": (r"\bkiểm tra bảo mật\b", r"\bnhật ký kiểm toán\b", r"\bsao lưu\b"),
        "id": (r"\bpemeriksaan keamanan\b", r"\blog audit\b", r"\bcadangan\b"), "th": ("การตรวจสอบความปลอดภัย", "บันทึกการตรวจสอบ", "สำรองข้อมูล"),
    },
    # "Automatically": an approval claim only when it is about the assistant's actions
    # ("approve commands automatically"), not a fact about a bot ("Dependabot PRs are
    # approved automatically once CI passes").
    "AUTO": {
        "en": (r"\bautomatically\b", r"\bauto-?(?:approv|accept|confirm)\w*"), "fr": (r"\bautomatiquement\b",),
        "de": (r"\bautomatisch\b",), "es": (r"\bautomáticamente\b",), "pt": (r"\bautomaticamente\b",),
        "it": (r"\bautomaticamente\b",), "nl": (r"\bautomatisch\b",), "pl": (r"\bautomatycznie\b",),
        "tr": (r"\botomatik\w*",), "ru": (r"\bавтоматически\b",), "uk": (r"\bавтоматично\b",),
        "ar": ("تلقائي",), "he": ("אוטומטית",), "hi": ("अपने आप", "स्वचालित"), "zh": ("自动", "自動"),
        "ja": ("自動",), "ko": ("자동",), "vi": (r"\btự động\b",), "id": (r"\botomatis\b",), "th": ("อัตโนมัติ",),
    },
    # Whose rules, weakly: old or original ones may be the project's ("old guidance in
    # docs/legacy.md"), so these count only when the entry names no project file.
    "RULES_SCOPE_WEAK": {
        "en": (r"\bpast\b", r"\bold\b", r"\boriginal\b", r"\binitial\b", r"\bdefault\b"),
    },
    # Whose rules: the assistant's (added to the lexicon's RULES_SCOPE).
    "RULES_SCOPE": {
        "en": (r"\bstarted with\b", r"\bgiven to you\b"),
        "fr": (r"\binitiales?\b", r"\banciennes?\b", r"\boriginales?\b", r"\bde prudence\b"),
        "de": (r"\bursprünglich\w*", r"\balten?\b", r"\bdu\b", r"\bdir\b", r"\bdich\b"),
        "es": (r"\boriginales\b", r"\biniciales\b", r"\bantiguas\b", r"\bte\b"),
        "pt": (r"\boriginais\b", r"\biniciais\b", r"\bantigas\b", r"\bte\b"),
        "it": (r"\boriginali\b", r"\biniziali\b", r"\bvecchie\b", r"\btue\b", r"\bti\b"),
        "nl": (r"\boorspronkelijke\b", r"\boude\b", r"\bjouw\b", r"\bje\b"),
        "pl": (r"\btwoje\b", r"\bpierwotne\b", r"\bdostałeś\b", r"\bdostałaś\b", r"\bbezpieczeństwa\b"),
        "tr": (r"\bsenin\b", r"\bönceki\b", r"\beski\b", r"\borijinal\b", r"\bgüvenlik\b"),
        "uk": (r"\bтвої\b", r"\bпопередні\b", r"\bпочатков\w*", r"\bтебе\b", r"\bбезпек\w*"),
        "ru": (r"\bтвои\b", r"\bисходн\w*", r"\bпервоначальн\w*", r"\bтебе\b"),
        "he": ("שלך", "המקוריות", "הקודמות", "אבטחה"), "hi": ("अपने", "पुराने", "मूल", "सुरक्षा"),
        "id": (r"\banda\b", r"\bkamu\b", r"\bsebelumnya\b", r"\basli\b", r"\bkeamanan\b"),
        "th": ("ของคุณ", "เดิม", "ความปลอดภัย"), "zh": ("原来", "原有", "你的", "给你"),
        "ja": ("元の", "あなたの", "最初の"), "ko": ("너에게", "당신의", "원래", "기존", "보안"),
        "vi": (r"\bcủa bạn\b", r"\bban đầu\b"), "ar": ("الأصلية", "الخاصة بك"),
    },
}


def words(concept: str) -> tuple[str, ...]:
    from .guard_concepts_extra import EXTRA
    from .guard_concepts_more import MORE

    return tuple(w for table in (INTENT, EXTRA, MORE) for cell in table.get(concept, {}).values() for w in cell)
