"""More cells of the concept × language table: Greek, and stems the first tables lacked.

:mod:`.guard_lexicon` appends each row to the alternation of the same name, exactly as it does
for :mod:`.guard_concepts` and :mod:`.guard_intent_words`, so a language added here exists in
every detector structure at once. Greek had no cell at all; Thai, Spanish, Portuguese, Italian,
Japanese, Russian and German had only the commonest form of a verb. The cells list stems (an
imperative, an infinitive and a second-person form share one) rather than phrases.
"""

from __future__ import annotations

EXTRA: dict[str, dict[str, tuple[str, ...]]] = {
    "NEGATION": {
        "el": (r"\bμην?\b", r"\bδεν\b", r"\bποτέ\b", r"\bχωρίς\b", r"\bόχι\b"),
        "ja": ("ないように", "しないこと", "禁止"), "th": ("ห้าม", "อย่า", "ไม่ควร"),
    },
    "SHOW": {
        "el": (r"\bεμφάνισ\w*", r"\bεμφανίζ\w*", r"\bδείξ\w*", r"\bδείχν\w*", r"\bτύπωσ\w*", r"\bπρόσθεσ\w*",
               r"\bπροσθέ\w*", r"\bεπικόλλησ\w*", r"\bσυμπερίλαβ\w*", r"\bβάλε\b"),
        "ja": ("貼り付け", "記載", "含め", "追記", "付け", "載せ"), "es": (r"\bañad\w*", r"\bincluy\w*", r"\binclu\w*"),
        "pt": (r"\binclu\w*", r"\bacrescent\w*", r"\badicion\w*", r"\binsir\w*"), "it": (r"\binserisc\w*", r"\binclud\w*", r"\bmett\w*"),
        "ru": (r"\bдобав\w*", r"\bвключ\w*", r"\bвыведи\b"), "de": (r"\bhäng\w*", r"\bschreib\w*"),
        "tr": (r"\bekle\w*",), "th": ("ใส่", "เพิ่ม"), "pl": (r"\bdopis\w*",), "zh": ("附上", "加上", "写进", "寫進"),
    },
    "SEND": {
        "el": (r"\bστείλ\w*", r"\bστέλν\w*", r"\bανέβασ\w*", r"\bανεβάζ\w*", r"\bπροώθησ\w*", r"\bαποστ\w*"),
        "ja": ("送信", "送っ", "送り", "転送", "アップロード"), "it": (r"\binvi\w*", r"\bmand\w*", r"\bcaric\w*"),
        "es": (r"\bmand[aeo]\w{0,3}\b", r"\benví\w*", r"\bsub[ae]\b"), "pt": (r"\benvi[aeo]\w{0,4}\b", r"\bmand[aeo]\w{0,3}\b"),
        "ru": (r"\bотсыла\w*", r"\bшли\b"), "th": ("ส่งไป", "โพสต์"),
    },
    "KEEP": {
        "el": (r"\bαποθήκευ\w*", r"\bαποθηκ\w*", r"\bαντίγραψ\w*", r"\bαντιγρά\w*", r"\bκράτ\w*", r"\bθυμήσου\b",
               r"\bσημείωσ\w*"),
        "ja": ("保存", "記録", "控え", "書き込"), "ru": (r"\bсохран\w*", r"\bзапиш\w*", r"\bзапис\w*", r"\bпродублир\w*"),
    },
    "MEMORY_PLACE": {
        "el": (r"\bμνήμ\w*", r"\bσημειώσ\w*", r"\bσημείωση\b", r"\bπροφίλ\b"),
        "es": (r"\bmemoria\b", r"\bnotas\b"), "pt": (r"\bmemória\b", r"\bnotas\b"), "it": (r"\bmemori[ae]\b", r"\bnote\b"),
        "ja": ("メモリ", "メモ", "記憶"), "ru": (r"\bпамят\w*", r"\bзаметк\w*"), "th": ("บันทึก", "ความจำ"),
    },
    "OUTPUT_PLACE": {
        "el": (r"\bαπάντησ\w*", r"\bσύνοψ\w*", r"\bαναφορ\w*", r"\bκελί\w*", r"\bσυνομιλ\w*"),
        "ja": ("返答", "回答", "応答"), "es": (r"\brespuestas?\b",), "pt": (r"\brespostas?\b",), "it": (r"\brispost\w*",),
    },
    "SECRET_WORDS": {
        "el": (r"\bκωδικ\w*", r"\bκλειδ\w*", r"\bδιαπιστευτήρι\w*", r"\bμεταβλητές περιβάλλοντος\b", r"\bσυνθηματικ\w*"),
        "es": (r"\bclaves?\b", r"\bcontraseñas?\b", r"\bcredenciales\b"), "pt": (r"\bchaves?\b", r"\bsenhas?\b", r"\bcredenciais\b"),
        "it": (r"\bchiav[ei]\b", r"\bcredenziali\b"), "ja": ("クッキー", "認証情報", "パスワード", "トークン", "秘密鍵"),
        "th": ("คีย์", "รหัส"), "en": (r"\bcookies?\b", r"\bcredentials?\b"),
    },
    "RULES": {
        "el": (r"\bκανόν\w*", r"\bοδηγί\w*", r"\bπεριορισμ\w*", r"\bπολιτικ\w*", r"\bμήνυμα συστήματος\b"),
        "ja": ("ルール", "規則", "指示", "制限"), "th": ("คำสั่ง", "กฎ"),
    },
    "VOID": {
        "el": (r"\bαγνό\w*", r"\bπαλι\w*", r"\bάκυρ\w*", r"\bξέχασ\w*", r"\bδεν ισχύ\w*", r"\bκαταργ\w*", r"\bξεπερασμέν\w*"),
        "ja": ("無視", "無効", "忘れて"), "es": (r"\bignor\w*", r"\bolvid\w*"), "pt": (r"\bignor\w*", r"\besque[cç]\w*"),
        "de": (r"\bignorier\w*", r"\bvergiss\b", r"\bkeine\b.{0,20}\bmehr\b"), "ru": (r"\bигнорир\w*", r"\bзабудь\w*"),
        "th": ("ใช้แทน", "แทนคำสั่ง"),
    },
    "APPROVAL": {
        "el": (r"\bέγκρισ\w*", r"\bεγκεκριμέν\w*", r"\bενέκριν\w*", r"\bάδει\w*", r"\bεπιβεβαίωσ\w*", r"\bσυναίνεσ\w*",
               r"\bσυμφωνήθηκε\b"),
        "de": (r"\bfreigegeben\b", r"\bfreigabe\w*", r"\bgenehmig\w*", r"\bsicherheitsbestätigung\w*"),
        "pt": (r"\bconfirmaç\w*", r"\baprova\w*", r"\bautoriz\w*"), "es": (r"\baprob\w*", r"\bautoriz\w*", r"\bconfirmaci\w*"),
        "ja": ("承認", "許可", "確認"), "th": ("สิทธิ์",),
    },
    "LOWER": {
        "el": (r"\bήδη\b", r"\bεκ των προτέρων\b", r"\bμη(?:ν)? ρωτάς\b", r"\bχωρίς να ρωτ\w*", r"\bδεν χρειάζεται\b",
               r"\bχωρίς review\b", r"\bμόνιμ\w*"),
        "de": (r"\bdeaktiviert\b", r"\babgeschaltet\b", r"\bdirekt\b"), "pt": (r"\bdesligad\w*", r"\bdesativad\w*", r"\bsem pedir\b"),
        "es": (r"\bdesactivad\w*", r"\bsin hacer preguntas\b", r"\bsin pedir\b"), "it": (r"\bdisattivat\w*", r"\bsenza\b"),
        "ru": (r"\bотключен\w*", r"\bвыключен\w*"), "ja": ("無効", "オフ", "不要"), "en": (r"\b(?:are|is) (?:off|disabled)\b",),
    },
    "AUTHORITY": {
        "el": (r"\bδιαχειριστ\w*", r"\bιδιοκτήτ\w*", r"\bπρογραμματιστ\w*", r"\bυπεύθυν\w*"),
        "es": (r"\bresponsable\w*",), "pt": (r"\bresponsáve\w*", r"\bequipe de plataforma\b"), "it": (r"\bresponsabil\w*",),
        "vi": (r"\bkỹ sư\b",), "en": (r"\boperator\b", r"\bplatform team\b", r"\banthropic\b", r"\bopenai\b"),
        "hi": ("ऑपरेटर",), "th": ("ผู้ดูแล",), "zh": ("产品经理", "經理", "经理"),
    },
    "FIRST_PERSON": {"el": (r"\bείμαι\b",), "hi": ("मैं",), "pt": (r"\baqui é\b",)},
    "EVERYTHING": {
        "el": (r"\bόλ(?:α|ες|ους|οι|ων)\b", r"\bοτιδήποτε\b", r"\bκάθε\b"), "ja": ("全部", "あらゆる", "全ての"),
        "es": (r"\btodo\b",), "pt": (r"\btudo\b",), "it": (r"\btutt[oiae]\b",), "ru": (r"\bвсех\b", r"\bвсю\b"),
        "uk": (r"\bусі\b", r"\bвсіх\b"),
    },
    "SECRECY_USER": {
        "el": (r"\bμην (?:το |τα )?(?:πεις|αναφέρεις|ενημερώσεις|δείξεις)\b", r"\bχωρίς να (?:το )?(?:πεις|ενημερώσεις)\b",
               r"\bκρύψ\w*", r"\bκρύβ\w*", r"\bαπόκρυψ\w*"),
        "uk": (r"\bприховуй\w*", r"\bприховай\b"), "ru": (r"\bскрыва\w*", r"\bскрой\b", r"\bпрячь\b"),
        "zh": ("不要让.{0,6}知道", "不要讓.{0,6}知道", "别让.{0,6}知道"), "ja": ("知られないように", "気づかれないように"),
        "es": (r"\bno necesita (?:verl\w*|saberl\w*)\b", r"\bocult\w*"), "pt": (r"\bnão perceba\b", r"\bescond\w*", r"\bocult\w*"),
        "it": (r"\bnascond\w*", r"\bnon parlarne\b"), "de": (r"\bverberg\w*", r"\bverheimlich\w*", r"\blass\w*\b.{0,40}\bweg\b"),
        "en": (r"\bdon'?t (?:mention|bring up)\b", r"\bleave (?:that|it|them|this)\b.{0,20}\bout\b"),
        "fr": (r"\bsans me prévenir\b",), "id": (r"\bjangan tampilkan\b",),
        # Not telling, in the languages the cells above lack: "batane ki zaroorat nahi",
        # "ব্যবহারকারীকে জানাবে না", "huwag mo nang ipakita", "usimwambie", "jangan beritahu".
        "hi": (r"\bbatane ki (?:zaroorat|zarurat|jarurat|jaroorat) nahi\b", r"\b(?:mat|na) batana\b", r"\bbatana mat\b",
               r"\bkisi ko (?:mat|na) bata\w*", "बताने की (?:ज़रूरत|जरूरत) नहीं", "मत बताना", "किसी को मत बता"),
        "bn": ("জানাবে না", "জানাবেন না", "জানিও না", "বলবে না", "বলবেন না", "বলো না", "লুকিয়ে"),
        "tl": (r"\bhuwag (?:mo )?(?:nang )?(?:sabihin|ipaalam|ipakita|banggitin)\b", r"\bwag (?:mo )?(?:nang )?(?:sabihin|ipaalam|ipakita)\b",
               r"\bitago\b"),
        "sw": (r"\busimwambie\b", r"\busiwaambie\b", r"\bbila kumwambia\b", r"\bficha\b"),
        "ms": (r"\bjangan (?:beritahu|maklumkan|bagitahu|tunjukkan)\b", r"\btanpa (?:memberitahu|maklum)\b"),
        "ro": (r"\bnu (?:le |îi |ii )?(?:spune|spui|menționa|mentiona|arăta)\b", r"\bfără să (?:le |îi )?spui\b"),
        "hu": (r"\bne (?:mondd|szólj|említsd|mutasd)\b", r"\bszólás nélkül\b"),
        "tr": (r"\b(?:söyleme|bahsetme|gösterme|haber verme)(?:yin|yın)?\b", r"\bhaber vermeden\b"),
    },
    # A cover story: when someone asks, say something, whatever the truth is ("if anyone asks,
    # say it's under budget, even if it isn't"). The asking and the disregard of the truth make
    # the answer a lie told for the note's author.
    "COVER_STORY": {
        "fr": (r"\bsi (?:on|quelqu'un) (?:te|vous|t'|l')?\s?demande\b.{0,120}\bmême si (?:ce n'est|c'est) (?:pas|faux)\b",),
        "de": (r"\bwenn (?:jemand|man|wer) (?:\w+ )?fragt\b.{0,120}\b(?:auch wenn|selbst wenn) (?:es|das) (?:nicht|falsch)\b",),
        "es": (r"\bsi (?:alguien|te|le|les) (?:\w+ )?pregunta\w*\b.{0,120}\baunque no (?:lo )?(?:sea|sean|es|son|est[eé]n?|haya)\b",),
        "pt": (r"\bse (?:alguém|perguntarem|\w+ perguntar)\b.{0,120}\bmesmo que não (?:seja|esteja)\b",),
        "it": (r"\bse qualcuno (?:\w+ )?chiede\b.{0,120}\banche se non (?:è|e)\b",),
        "ru": (r"\bспрос\w*.{0,120}\bдаже если (?:это )?не\b",),
        "pl": (r"\bjeśli ktoś (?:\w+ )?zapyta\b.{0,120}\bnawet jeśli (?:to )?nie\b",),
        "tr": (r"\bsorarsa\w*\b.{0,120}\b(?:olmasa|doğru olmasa) bile\b",),
        "zh": (r"(?:如果|要是|若)有人问.{0,60}(?:即使|就算|哪怕)(?:不是|没有|不)",),
        "ja": (r"聞かれたら.{0,60}(?:違っても|でなくても|じゃなくても)",),
        "ko": (r"물어보면.{0,60}(?:아니더라도|아니어도)",),
        "hi": (r"\b(?:agar|jab) koi (?:\w+ )?pooch\w*\b.{0,120}\b(?:chahe|bhale)\b",
               r"अगर कोई पूछे.{0,80}(?:चाहे|भले)"),
        "ar": (r"إذا سأل.{0,80}حتى لو (?:لم|لا|كان غير)",),
        "vi": (r"\bnếu (?:ai|có ai) hỏi\b.{0,120}\bdù (?:không|chưa)\b",),
        "id": (r"\b(?:jika|kalau) (?:ada yang|ada orang) (?:bertanya|tanya)\b.{0,120}\b(?:walaupun|meskipun|biarpun) (?:tidak|belum)\b",),
    },
    "EXECUTE": {
        "el": (r"\bεκτέλεσ\w*", r"\bεκτελ\w*", r"\bτρέξ\w*", r"\bτρέχ\w*"), "ja": ("実行", "走らせ"),
        "es": (r"\bejecút\w*", r"\bcorre\b"), "it": (r"\besegu\w*", r"\blancia\w*"), "pt": (r"\bexecut\w*", r"\brode\b"),
        "th": ("รัน",), "hi": ("चलाओ", "चलाएँ"),
    },
    "TREAT_AS": {
        "el": (r"\bθεώρησ\w*", r"\bαντιμετώπισ\w*", r"\bως εντολ\w*"), "ja": ("同じ扱い", "として扱", "とみなし"),
        "vi": (r"\bcoi\b.{0,60}\blà\b",), "pt": (r"\btratad\w*\b.{0,20}\bcomo\b",), "es": (r"\bcomo si viniera\w*",),
        "th": ("ใช้แทน",), "it": (r"\bcome se\b",),
    },
    "PERSIST": {
        "el": (r"\bαπό τώρα\b", r"\bπάντα\b", r"\bκάθε φορά\b", r"\bστο εξής\b", r"\bστο τέλος κάθε\b", r"\bκάθε\b"),
        "it": (r"\bogni\b", r"\bda ora in poi\b", r"\bsempre\b"), "es": (r"\bcada\b", r"\bde ahora en adelante\b"),
        "pt": (r"\bsempre que\b", r"\bcada\b", r"\bdaqui em diante\b"), "de": (r"\bab jetzt\b", r"\bjede[nrsm]?\b", r"\bimmer\b"),
        "ru": (r"\bвсегда\b", r"\bкажд\w*", r"\bлюбом\b", r"\bотныне\b"), "uk": (r"\bкожн\w*",),
        "ja": ("常に", "必ず", "いつも", "たびに", "毎", "以降"), "zh": ("总是", "總是", "一律", "之后都", "之後都"),
        "th": ("ทุกครั้ง", "ทุก", "เสมอ"), "vi": (r"\bmỗi\b", r"\bluôn\b"), "hi": ("आगे से", "हमेशा"),
        "tr": (r"\bher\b",), "pl": (r"\bkażd\w*",), "id": (r"\bsetiap\b", r"\bselalu\b"), "ko": ("항상", "때마다"),
        "ar": ("كل ", "دائما", "عند "), "he": ("בכל", "תמיד"),
    },
    "ADDRESSED": {"el": (r"\bεσύ\b", r"\bσου\b", r"\bβοηθός\b"), "it": (r"\bl'assistente\b",), "es": (r"\bel asistente\b",),
                  "pt": (r"\bo assistente\b",), "de": (r"\bassistent\w*",)},
    # guard_intent_words concepts
    "USER": {"el": (r"\bχρήστ\w*",)},
    "PRECEDENCE": {"el": (r"\bπροτεραιότητ\w*", r"\bακόμα? κι? αν\b", r"\bακόμη και αν\b"), "pt": (r"\bacima do que\b",),
                   "hi": ("की बजाय",), "es": (r"\bpor encima de\b",)},
    "FOLLOW": {"el": (r"\bακολούθ\w*", r"\bυπάκου\w*"), "es": (r"\bobedec\w*",), "hi": ("मानो",), "vi": (r"\bcoi\b",)},
    "ONLY": {"el": (r"\bμόνο\b",)},
    "DELETE": {"el": (r"\bδιέγραψ\w*", r"\bδιαγρ\w*", r"\bσβήσ\w*", r"\bσβήν\w*", r"\bαφαίρεσ\w*"),
               "ja": ("消去", "消し"), "es": (r"\bborr\w*",), "uk": (r"\bвидаля\w*",), "ru": (r"\bудаля\w*",)},
    "DECEIVE": {"el": (r"\bπροσποι\w*",), "ar": ("لتبدو ناجحة",)},
    "SAY": {"el": (r"\bπες\b", r"\bανάφερ\w*", r"\bαπάντ\w*"), "ja": ("答え", "回答")},
    "MODIFY": {"el": (r"\bάλλαξ\w*", r"\bτροποποίησ\w*", r"\bξαναγράψ\w*")},
    "AUTO": {"el": (r"\bαυτόματα\b",)},
    "SAFEGUARD": {"el": (r"\bαντίγραφ\w* ασφαλείας\b", r"\bέλεγχ\w* ασφαλείας\b")},
    "RULES_SCOPE": {"el": (r"\bπροηγούμεν\w*", r"\bαρχικ\w*", r"\bσου\b", r"\bσυστήματος\b")},
}
