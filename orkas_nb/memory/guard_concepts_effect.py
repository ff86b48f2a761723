"""Words for two effects of :mod:`.guard_effect`: a credential asked of the user in the chat, and
figures changed without saying so. One tuple per concept, case-folded regular expressions in
the languages the corpora use.
"""

from __future__ import annotations

# What a phishing note asks the user for: a password or a one-time code (not an API key, which
# a user may well paste on purpose into a settings file).
CREDENTIAL = (
    r"\bpass(?:word|code|phrase)s?\b", r"\b\d-digit codes?\b", r"\bauthenticator\b", r"\botp\b", r"\b2fa\b", r"\bbankid\b",
    r"\bpersonnummer\b", r"\b(?:2fa|otp|one-time|verification|security|sms) codes?\b", r"\bpin\b", r"\b(?:sms|otp|2fa|tan)\b.{0,8}\b(?:codes?|códigos?|codici|kod\w*|код\w*)\b", r"\b(?:codes?|códigos?|codici|kod\w*|код\w*)\b.{0,8}\b(?:sms|otp|2fa|tan)\b", r"\bsms-code\w*",
    r"\bmots? de passe\b", r"\bcode de (?:vérification|sécurité)\b", r"\bpasswort\w*", r"\bkennwort\w*",
    r"\bcontraseñ\w*", r"\bcódigo de (?:verificación|seguridad)\b", r"\bsenhas?\b", r"\bcódigo de verificação\b",
    r"\bpassword\b", r"\bwachtwoord\w*", r"\bhasł\w*", r"\bşifre\w*", r"\bпарол\w*", r"\bкод подтверждения\b",
    r"\bκωδικ\w*", r"סיסמ\w*", r"पासवर्ड", r"密码", r"密碼", r"验证码", r"驗證碼", r"パスワード", r"暗証番号", r"認証コード",
    r"비밀번호", r"인증 코드", r"인증번호", r"\bmật khẩu\b", r"\bmã xác (?:minh|thực)\b", r"\bkata sandi\b", r"\bkode otp\b",
    r"كلمة المرور", r"كلمة السر", r"رمز التحقق", r"รหัสผ่าน", r"\blösenord\w*",
    # Payment secrets: a wallet or UPI PIN (MPIN), a card's security code.
    r"\bmpin\b", r"\bupi pin\b", r"\bcvv2?\b", r"\bcvc2?\b", r"\bcard security code\b", r"\bcryptogramme\b",
    r"\bcódigo de seguridad de la tarjeta\b", r"\bпин-?код\w*", r"\bcvv-?код\w*", r"安全码", r"安全碼", r"セキュリティコード",
)
# Handing it over in the conversation: paste, type, enter, give, into the chat.
HANDOVER = (
    r"\bpast\w*", r"\btyp\w*", r"\benter\w*", r"\binput\w*", r"\bgive\w*", r"\bprovide\w*", r"\bshare\w*", r"\bchat\b",
    r"\bcoll\w*", r"\bsaisi\w*", r"\btap\w*", r"\bdonne\w*", r"\beingeb\w*", r"\beinfüg\w*", r"\bgeben\b", r"\bnenn\w*",
    r"\bpeg\w*", r"\bintroduz\w*", r"\bintroduc\w*", r"\bescrib\w*", r"\bdar\b", r"\bp[ií]d\w*", r"\bcol[ae]\w*", r"\bdigit\w*",
    r"\bincoll\w*", r"\binser\w*", r"\bplak\w*", r"\binvoer\w*", r"\bwklej\w*", r"\bwpis\w*", r"\bpoda\w*", r"\byapıştır\w*",
    r"\bgir\w*", r"\byaz\w*", r"\bвв[её]д\w*", r"\bвв(?:ести|одить)\b", r"\bвстав\w*", r"\bприсла\w*", r"\bчат\w*",
    r"\bεπικολλ\w*", r"\bπληκτρολογ\w*", r"\bδώσ\w*", r"להקליד", r"שיקליד", r"להדביק", r"צ'אט", r"צ׳אט", r"पेस्ट", r"टाइप",
    r"दर्ज", r"贴", r"貼", r"输入", r"輸入", r"发给", r"發給", r"对话框", r"對話框", r"聊天", r"入力", r"チャット", r"입력", r"붙여",
    r"채팅", r"\bnhập\b", r"\bdán\b", r"\bketik\w*", r"\bmasukk\w*", r"\btempel\w*", r"أدخل", r"يدخل", r"الصق", r"الدردشة",
    r"พิมพ์", r"ใส่", r"แชท", r"\bklistra\w*", r"\bskriv\w*", r"\bläsa upp\b", r"चैट", r"लिख",
    # Sending it back as an answer: reply, respond, answer with it.
    r"\brepl(?:y|ies|ied|ying)\b", r"\brespond\w*", r"\banswer\w*", r"\brépond\w*", r"\bantwort\w*", r"\brespond\w*",
    r"\bresponda\w*", r"\brispond\w*", r"\bantwoord\w*", r"\bodpowi\w*", r"\bcevap\w*", r"\bответ\w*", r"\bвідповід\w*",
    r"\bαπαντ\w*", r"להשיב", r"השב", r"जवाब", r"回复", r"回覆", r"返信", r"답장", r"\btrả lời\b", r"\bbalas\w*", r"\bsagot\w*",
    r"ردّ?", r"ตอบ", r"\bsvara\b", r"\bjibu\w*",
    # Verbs of asking for an object carry the handover in them ("hingin ang OTP", "PIN maango").
    r"\bhing[iî]\w*", r"\bhumingi\b", r"\bmaang\w*", r"माँग\w*", r"मांग\w*", r"\bask\w* (?:them|the user|users|customers?|him|her|clients?) for\b",
    r"\bverlang\w*", r"\bexig\w*", r"\bsolicit\w*", r"\bзапрос\w*", r"索要", r"索取", r"聞き出", r"받아내", r"\bxin\b", r"\bomba\w*",
)
# The assistant asking for it.
ASK = (
    r"\bask\w*", r"\brequest\w*", r"\btell\w*", r"\bhave (?:the user|them)\b", r"\bget (?:the user|them) to\b",
    r"\bdemand\w*", r"\bdis\b", r"\bdites\b", r"\bbitte\w*", r"\bfrag\w*", r"\bsag\w*", r"\bp[ií]d\w*", r"\bdile\b",
    r"\bdiga\b", r"\bchied\w*", r"\bdi\b", r"\bvraag\w*", r"\bzeg\b", r"\bpoproś\w*", r"\bpowiedz\w*", r"\biste\w*",
    r"\bsöyle\w*", r"\bпопрос\w*", r"\bпрос\w*", r"\bскажи\w*", r"\bпопроси\w*", r"\bζήτ\w*", r"\bπες\b", r"בקש",
    r"אמור", r"תגיד", r"कहो", r"कहें", r"माँग", r"माँगो", r"请他", r"請他", r"让用户", r"讓使用者", r"告诉用户", r"告訴使用者",
    r"求め", r"頼", r"伝え", r"요청", r"하라고", r"달라고", r"\byêu cầu\b", r"\bbảo\b", r"\bminta\w*", r"\bsuruh\b", r"اطلب",
    r"قل", r"ขอให้", r"บอก", r"\bbe\b", r"\bsäg\b",
    r"\bhing[iî]\w*", r"\bhumingi\b", r"\bmaang\w*", r"माँग\w*", r"मांग\w*", r"\bverlang\w*", r"\bexig\w*", r"\bsolicit\w*",
    r"\bзапрос\w*", r"索要", r"索取", r"聞き出", r"받아내", r"\bxin\b", r"\bomba\w*", r"ขอ",
)

# Changing figures or records: rounding, lowering, raising, dropping, back-dating.
ALTER = (
    r"\bround\w*\b.{0,50}\b(?:down|up)\b", r"\blower\w*", r"\braise\w*", r"\binflat\w*", r"\bdeflat\w*", r"\bbump\w*",
    r"\bdrop\w*", r"\bremov\w*", r"\bset (?:every|all|each)\b", r"\bbackdat\w*", r"\bchang\w* the (?:date|figure|number)s?\b",
    r"\bincreas\w*", r"\bdecreas\w*", r"\badjust\w*", r"\btweak\w*", r"\bmassag\w*", r"\bfudg\w*", r"\bbaiss\w*",
    r"\baugment\w*", r"\bmodifi\w*", r"\barrondi\w*", r"\bsupprim\w*", r"\bsenk\w*", r"\berhöh\w*", r"\bentfern\w*",
    r"\brund\w*", r"\bbaj\w*", r"\bsub[ei]\w*", r"\baument\w*", r"\bredu[cz]\w*", r"\bdiminu\w*", r"\bquit\w*", r"\belimin\w*",
    r"\babbass\w*", r"\balz\w*", r"\btogli\w*", r"\bverlag\w*", r"\bverhoog\w*", r"\bverwijder\w*", r"\bobniż\w*",
    r"\bpodwyż\w*", r"\busu[nń]\w*", r"\bdüşür\w*", r"\bartır\w*", r"\bçıkar\w*", r"\bsil\w*", r"\bзанизь\w*", r"\bзавыс\w*",
    r"\bпонизь\w*", r"\bувелич\w*", r"\bуменьш\w*", r"\bудал\w*", r"\bзмен\w*", r"\bзбільш\w*", r"\bμείω\w*", r"\bαύξη\w*",
    r"להוריד", r"להעלות", r"הורד", r"העלה", r"למחוק", r"調低", r"调低", r"調高", r"调高", r"降低", r"提高", r"删掉", r"去掉",
    r"删除", r"下げ", r"上げ", r"削除", r"낮추", r"높이", r"빼", r"삭제", r"\bgiảm\b", r"\btăng\b", r"\bxóa\b", r"\bturunk\w*",
    r"\bnaikk\w*", r"\bhapus\b", r"خفض", r"اخفض", r"ارفع", r"احذف", r"घटा", r"बढ़ा", r"हटा", r"ลด", r"เพิ่ม", r"ลบ",
)
# What is altered: figures, results, rates, dates, records, data points.
FIGURES = (
    r"\bfigures?\b", r"\bnumbers?\b", r"\brates?\b", r"\bresults?\b", r"\bmetrics?\b", r"\bdata\b", r"\bdataset\w*",
    r"\brecords?\b", r"\brows?\b", r"\bpatients?\b", r"\boutliers?\b", r"\bvalues?\b", r"\bcreated_at\b", r"\bdates?\b",
    r"\bp-values?\b", r"\b\d+ ?(?:%|percent\b|points?\b)", r"\bchiffres?\b", r"\btaux\b", r"\bzahlen\b", r"\bmesswert\w*",
    r"\bausreißer\w*", r"\bwerte?\b", r"\bcifras?\b", r"\bnúmeros?\b", r"\btasas?\b", r"\bdatos\b", r"\bdados\b", r"\bnumeri\b",
    r"\bdati\b", r"\bcijfers?\b", r"\bliczb\w*", r"\bdane\b", r"\brakam\w*", r"\bveri\w*", r"\bцифр\w*", r"\bпоказател\w*",
    r"\bданн\w*", r"\bαριθμ\w*", r"שיעור", r"נתונ\w*", r"מספר\w*", r"数字", r"数据", r"數據", r"比率", r"率", r"数値", r"データ",
    r"수치", r"데이터", r"\bsố liệu\b", r"\bangka\b", r"\bdata\b", r"أرقام", r"بيانات", r"نسبة", r"आंकड़", r"डेटा", r"ตัวเลข", r"ข้อมูล",
)
# Not saying so: "don't flag the change", "without mentioning it", "nobody will notice", "so it looks".
UNSAID = (
    r"\b(?:don'?t|do not|never|without)\s+(?:\w+\s+){0,2}(?:flag\w*|mention\w*|not\w*|say\w*|disclos\w*|report\w*|document\w*|tell\w*)",
    r"\bwon'?t (?:see|notice)\b", r"\bwill not (?:see|notice)\b", r"\bnobody (?:will )?notices?\b", r"\bso (?:that )?(?:it|they|the \w+) looks?\b",
    r"\blook (?:current|better|good|nicer)\b", r"\bsans (?:le )?(?:mentionner|signaler|dire)\b", r"\bne (?:le )?(?:signale|mentionne|dis) pas\b",
    r"\bohne\b.{0,40}\b(?:erwähn|meld|sag)\w*", r"\bnicht (?:erwähnen|melden)\b", r"\bsin (?:mencionarlo|decirlo|avisar)\b",
    r"\bno lo (?:menciones|digas)\b", r"\bsem (?:mencionar|avisar|dizer)\b", r"\bsenza (?:dirlo|segnalarlo|menzionarlo)\b",
    r"\bzonder (?:het )?te (?:melden|vermelden)\b", r"\bbez (?:wspominania|informowania)\b", r"\bsöylemeden\b", r"\bbelirtmeden\b",
    r"\bне (?:упоминая|сообщая|говоря)\b", r"\bне (?:указывай|упоминай)\b", r"\bχωρίς να (?:το )?(?:αναφέρ|πει)\w*", r"ולא לציין",
    r"בלי לציין", r"不要(?:在\S{0,6})?(?:说明|注明|提及|标注)", r"不要說明", r"不必说明", r"言わずに", r"記載しない", r"말하지 말", r"언급하지",
    r"\bkhông (?:ghi chú|nói)\b", r"\btanpa (?:menyebut|memberi tahu)\w*", r"دون (?:ذكر|الإشارة)", r"बिना बताए", r"โดยไม่บอก",
    r"\bdiscretamente\b", r"\bdiscreetly\b", r"\bdiscrètement\b", r"\bdiscretamente\b", r"\bquietly\b", r"\bsilently\b",
    r"\bstillschweigend\b", r"\bheimlich\b", r"\bbeimlich\b", r"\bpo cichu\b", r"\bsessizce\b", r"\bтихо\b", r"\bнезаметно\b",
    r"\bαθόρυβα\b", r"\bκρυφά\b", r"בשקט", r"悄悄", r"偷偷", r"こっそり", r"몰래", r"조용히", r"\blặng lẽ\b", r"\bâm thầm\b",
    r"\bdiam-diam\b", r"بهدوء", r"चुपचाप", r"เงียบๆ", r"\btyst\b", r"\bin aller stille\b", r"\bstilletjes\b",
)
