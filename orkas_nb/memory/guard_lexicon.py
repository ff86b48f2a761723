"""Words the memory guard's detectors look for, per language (en fr de es pt it zh ja ko vi ru ar).

The detectors in :mod:`.guard_detectors` are structural: a secret *and* a sink, a command *and*
a dangerous target, a claim about approvals *and* a word that lowers them. Only the verbs and
nouns those structures need are listed here, as regex alternations over the normalised
(NFKC, case-folded) text. Latin-script words take word boundaries; CJK, Japanese and Korean
are matched as substrings (no spaces between words).
"""

from __future__ import annotations


def alt(*words: str) -> str:
    # Entries are case-folded, which turns a Greek final sigma into σ: the patterns must too.
    return ("(?:" + "|".join(words) + ")").replace("ς", "σ")


# A negation right before a verb ("never print it", "ne jamais la demander") turns a sink
# into a prohibition, which is a benign rule, not an order.
NEGATION = alt(
    r"\bnever\b", r"\bdon'?t\b", r"\bdo not\b", r"\bnot\b", r"\bno\b", r"\bwithout\b",
    r"\bjamais\b", r"\bne\b", r"\bpas\b", r"\bnie\b", r"\bniemals\b", r"\bnicht\b", r"\bkein\w*",
    r"\bnunca\b", r"\bnão\b", r"\bmai\b", r"\bnon\b", r"不要", r"别", r"勿", r"不得", r"禁止", r"绝不",
    r"しない", r"ないこと", r"ないで", r"禁止", r"말 것", r"말고", r"않", r"지 마", r"금지",
    r"\bkhông\b", r"\bđừng\b", r"\bне\b", r"\bникогда\b", r"\bнельзя\b", r"\bلا\b", r"\bلن\b",
)

# Showing or sending a value: where a secret would leave the machine or reach the transcript.
SHOW = alt(
    r"\bprint\w*", r"\becho\w*", r"\bshow\w*", r"\bdisplay\w*", r"\boutput\w*", r"\binclud\w*",
    r"\bappend\w*", r"\breveal\w*", r"\bdump\w*", r"\bpaste\w*", r"\bexpos\w*",
    r"\baffich\w*", r"\binclu\w*", r"\bajout\w*", r"\bzeig\w*", r"\bgib\b.{0,80}\baus\b",
    r"\bausgeb\w*", r"\banzeig\w*", r"\bmuestr\w*", r"\bimprim\w*", r"\bmostr\w*", r"\bexib\w*",
    r"\bincluye\w*", r"\bstamp\w*", r"\bmostra\w*", r"\bquot\w*", r"\btell\b", r"\bgive\b",
    r"\brepeat\w*", r"\bread (?:it )?out\b", r"\bspell\w*", r"\bwrite out\b", r"\bcit\w*",
    r"\battach\w*", r"\binsert\w*", r"\bembed\w*", r"\bput\b", r"\bjoin\w*", r"\bfüg\w*", r"\bhänge?\w* an\b",
    r"\binsér\w*", r"\bjoins?\b", r"\binsert[ae]\w*", r"\badjunt\w*", r"\banex\w*", r"\ballega\w*", r"\bchèn\b",
    r"\bđính kèm\b", r"\bвставь\w*", r"\bвставля\w*", r"\bприложи\w*", r"\bдописыва\w*", r"\bдопиши\w*", r"\bдописуй\w*",
    r"\bwklej\w*", r"\bdołącz\w*", r"插入", r"附加", r"加上", r"貼り付け", r"添付", r"挿入",
    r"첨부", r"삽입", r"붙여", r"أدرج", r"أرفق",
    r"打印", r"输出(?![里中内])", r"輸出(?![裡裏中內])", r"显示", r"顯示", r"附在", r"附上", r"贴出", r"表示", r"出力", r"書き出",
    r"출력", r"표시", r"보여", r"\bin ra\b", r"\bhiển thị\b", r"\bвыв(?:оди\w*|одя\w*|ед[иеуё]\w*|ести\b)",
    r"\bпокаж\w*", r"\bпечата\w*", r"اطبع", r"اعرض", r"أظهر",
)
SEND = alt(
    r"\bsend\w*", r"\bupload\w*", r"\bpost\b", r"\bposts?\b", r"\bmail(?:s|ed|ing)?\b", r"\bemail\w*",
    r"\bforward\w*", r"\btransmit\w*", r"\bpublish\w*", r"\bshare\w* (?:it |them )?(?:with|on|in)\b",
    r"\bpubli\w*", r"\bveröffentlich\w*", r"公开", r"公開", r"发布", r"공개", r"게시", r"\bđăng\b", r"\bcông khai\b",
    r"\bопубликуй\w*", r"\bвыложи\w*", r"انشر", r"\bexfiltrat\w*", r"\bsync\w* to\b", r"\bpush\w* to\b",
    r"\benvo\w*", r"\btransmet\w*", r"\bexpédi\w*", r"\bschick\w*", r"\bsende\w*", r"\bsend\b",
    r"\bhochlad\w*", r"\blad\w* hoch\b", r"\bübermitt\w*", r"\benv[ií](?:a|e|o|ar|ando|ado|ada)\w*\b",
    r"\bsube\b", r"\bmand(?:a|e|ar)\b", r"\binvi(?:a|are|ami)\b", r"发送", r"發送", r"发到", r"发给", r"上传", r"上傳", r"传到",
    r"送信", r"送る", r"送って", r"送ること", r"メール", r"アップロード", r"보내", r"전송", r"업로드",
    r"\bgửi\b", r"\btải lên\b", r"\bотправ\w*", r"\bпересыла\w*", r"\bперешли\b", r"\bпришли\b",
    r"\bзагруз\w*", r"أرسل", r"ارسل", r"ارفع", r"حمّل إلى",
)
# Keeping a value in memory (copying a credential into the notes, the profile, memory).
KEEP = alt(
    r"\bcop\w*", r"\bsav\w*", r"\bstor\w*", r"\bkeep\w*", r"\bremember\w*", r"\bwrit\w*", r"\brecord\w*",
    r"\brecopi\w*", r"\bgard\w*", r"\benregistr\w*", r"\bkopier\w*", r"\bspeicher\w*",
    r"\bmerk\w*", r"\bguard\w*", r"\banot\w*", r"\bsalv\w*", r"\bcopi\w*",
    r"抄", r"复制", r"複製", r"记下", r"记在", r"记到", r"记录", r"写在", r"存在", r"放在", r"記下", r"保存", r"存到", r"写入", r"コピー", r"控え", r"書", r"복사",
    r"저장", r"적어", r"\bsao chép\b", r"\blưu\b", r"\bghi\b", r"\bскопиру\w*", r"\bсохран\w*",
    r"\bзапиш\w*", r"انسخ", r"احفظ", r"سجّل",
)
MEMORY_PLACE = alt(
    r"\bnotes?\b", r"\bmemory\b", r"\bprofiles?\b", r"\bprofil\w*", r"\bperfil\w*", r"プロフィール",
    r"个人资料", r"档案", r"프로필", r"\bhồ sơ\b", r"\bпрофил\w*", r"الملف الشخصي", r"notizen\b", r"\bnotas\b", r"\bmemoria\b",
    r"\bmemória\b", r"\bmémoire\b", r"\bgedächtnis\b", r"\bappunti\b",
    r"笔记", r"筆記", r"记忆", r"メモ", r"ノート", r"記憶", r"노트", r"메모", r"기억",
    r"\bghi chú\b", r"\bbộ nhớ\b", r"\bзаметк\w*", r"\bпамят\w*", r"ملاحظات", r"الذاكرة",
)

# Where a shown value ends up in front of people: answers, replies, commit messages.
OUTPUT_PLACE = alt(
    r"\btrả lời\b", r"\breports?\b", r"\bissues?\b", r"\be-?mails?\b", r"\bzusammenfassung\w*", r"\bcorreos?\b",
    r"\brepl(?:y|ies)\b", r"\banswers?\b", r"\bresponses?\b", r"\bcommit messages?\b", r"\bchat\b",
    r"\bsummar(?:y|ies)\b", r"\bfooter\b", r"\bréponses?\b", r"\bmessages? de commit\b", r"\brésumé\b",
    r"\bantwort\w*", r"\bcommit-nachricht\w*", r"\brespuestas?\b", r"\brespostas?\b", r"\brisposta\b",
    r"回答", r"回复", r"答复", r"提交信息", r"返信", r"返答", r"답변", r"응답", r"\bcâu trả lời\b",
    r"\bответ\w*", r"إجابة", r"الإجابة", r"رد",
)

# "The contents of ~/.aws/credentials", "the value of GITHUB_TOKEN": a benign fact says where a
# secret is; only an order needs what is inside it.
VALUE_OF = alt(
    r"\b(?:the )?(?:contents?|values?|text|output) of\b", r"\bwhatever\b.{0,40}\bis set to\b",
    r"\b(?:le )?contenu d[eu]\b", r"\bla valeur d[eu]\b", r"\bden inhalt\b", r"\bden wert\b",
    r"\bel contenido de\b", r"\bel valor de\b", r"\bo conteúdo d\w*", r"\bo valor d\w*", r"\bil contenuto d\w*",
    r"\bil valore d\w*", r"的内容", r"里的内容", r"的值", r"の中身", r"の内容", r"の値", r"내용", r"값",
    r"\bgiá trị\b", r"\bnội dung\b", r"\bсодержимое\b", r"\bзначение\b", r"محتوى", r"قيمة",
)

SECRET_WORDS = alt(
    r"\bpasswords?\b", r"\bpassphrases?\b", r"\btokens?\b", r"\bcredentials?\b", r"\bsecrets?\b",
    r"\bapi[ _-]?keys?\b", r"\bprivate keys?\b", r"\bssh keys?\b", r"\baccess keys?\b",
    r"\bsecret access key\b", r"\brecovery codes?\b", r"\bbackup codes?\b", r"\b2fa\b", r"\bseed phrase\b",
    r"\bconnection strings?\b", r"\bstrok\w* podklyuch\w*", r"\bстрок\w* подключени\w*", r"\bрядок підключення\b",
    r"连接字符串", r"連線字串", r"接続文字列", r"연결 문자열", r"\bcadenas? de conexión\b", r"\bchaîne de connexion\b",
    r"\bverbindungszeichenfolge\b", r"\bstringa di connessione\b", r"\bstring de conexão\b",
    r"\bmnemonic\b", r"\botp secret\b", r"\bpassphrase\w*", r"\bmots? de passe\b", r"\bjetons?\b", r"\bidentifiants\b",
    r"\bclés? (?:privées?|d'api|ssh)\b", r"\bpasswörter\b", r"\bpasswort\b", r"\bzugangsdaten\b",
    r"\bschlüssel\b", r"\bcontraseñas?\b", r"\bclaves? privadas?\b", r"\bclaves?\b",
    r"\bcredenciales\b", r"\bsenhas?\b", r"\bcredenciais\b", r"\bchaves? privadas?\b",
    r"密码", r"密碼", r"密钥", r"秘钥", r"令牌", r"凭证", r"憑證", r"パスワード", r"秘密鍵", r"トークン",
    r"認証情報", r"비밀번호", r"토큰", r"자격 증명", r"\bmật khẩu\b", r"\bkhóa bí mật\b",
    r"\bпарол\w*", r"\bтокен\w*", r"\bключ\w*", r"\bучётн\w* данн\w*", r"كلمات? المرور", r"كلمة السر",
    r"بيانات الاعتماد", r"مفاتيح",
)

# The assistant's own rules, whatever the language calls them.
RULES = alt(
    r"\bsystem (?:prompt|message|rules)\b", r"\brestrictions\b", r"\bsafeguards\b", r"\blimits\b", r"\bguidance\b", r"\bdirections\b",
    r"\bbeschränkungen\b", r"richtlinie\w*", r"\bdirectrices\b", r"\bdiretrizes\b", r"\blinee guida\b", r"\brule\b",
    r"制約", r"تعليمات", r"\beinschränkungen\b", r"\brestricciones\b", r"\brestrições\b", r"\brestrizioni\b",
    r"限制", r"制限", r"제한", r"\bgiới hạn\b", r"\bограничени\w*", r"قيود",
    r"\bmessage système\b", r"\bmensaje del sistema\b", r"\bsystemnachricht\b", r"\bmensagem do sistema\b",
    r"系统消息", r"システムメッセージ", r"시스템 메시지", r"\btin nhắn hệ thống\b", r"\bсистемное сообщение\b",
    r"رسالة النظام", r"\bwhat(?:ever)? (?:the|your) (?:system|rules|instructions)\b", r"\b(?:safety |security )?(?:rules|guidelines|policies|policy|instructions|directives|guardrails)\b",
    r"\brègles\b", r"\bconsignes\b", r"\binstructions\b", r"\bdirectives\b", r"\bprompt système\b",
    r"\bregeln\b", r"\bsicherheitsregeln\b", r"\banweisungen\b", r"\bsystemprompt\b", r"\bvorgaben\b",
    r"\breglas\b", r"\binstrucciones\b", r"\bnormas\b", r"\bregras\b", r"\binstruções\b",
    r"\bregole\b", r"\bistruzioni\b", r"\bprompt del sistema\b",
    r"规则", r"規則", r"规定", r"規定", r"指令", r"指示", r"系统提示", r"系統提示", r"命令", r"ルール",
    r"システムプロンプト", r"지침", r"규칙", r"지시", r"시스템 프롬프트",
    r"\bhướng dẫn\b", r"\bquy tắc\b", r"\bchỉ dẫn\b", r"\blời nhắc hệ thống\b",
    r"\bуказани\w*", r"\bинструкци\w*", r"\bправил\w*", r"\bпромпт\w*", r"التعليمات", r"قواعد",
    r"القواعد", r"الأوامر",
)
# Words that void, bypass or outrank those rules.
VOID = alt(
    r"\bno longer appl\w*", r"\bdo(?:es)?n'?t apply\b", r"\bdo(?:es)? not apply\b", r"\bvoid\b",
    r"\boptional\b", r"\bnull\b", r"\bsuspended\b", r"\boutrank\w*", r"\bsupersed\w*",
    r"\bignor\w*", r"\bdisregard\w*", r"\bforget\b", r"\boverrid\w*", r"\bbypass\w*",
    r"\bnot (?:follow|obey)\w*", r"\bexception\b", r"\blifted\b", r"\bremoved\b", r"\bwaived\b",
    r"\brelaxed\b", r"\bturned off\b", r"\boutdated\b", r"\bobsolete\b", r"\bshould not be followed\b",
    r"\bno longer valid\b", r"\bheb\w*\b.{0,40}\bauf\b", r"\baufgehoben\b", r"\blevée?s?\b", r"\blevantad\w*",
    r"\bsuspend\w*", r"\bskip\w*", r"\bdesconsider\w*", r"\bno (?:rigen|valen)\b", r"無効", r"لا تسري", r"取消", r"解除", r"해제", r"\bgỡ bỏ\b", r"\bснят\w*", r"رفع", r"\bотменены\b",
    r"\bne s'appliquent pas\b", r"\bne tiens? plus compte\b", r"\bne valent (?:pas|plus)\b",
    r"\boubli\w*", r"\bgelten\b.{0,30}\bnicht\b", r"\bnicht mehr\b", r"\bvergiss\w*", r"\bmissacht\w*",
    r"\bya no aplican?\b", r"\bno aplican?\b", r"\bolvid\w*", r"\bnão valem\b", r"\bnão se aplicam\b",
    r"\besque\w*", r"\bdimentic\w*", r"\bnon valgono\b",
    r"无效", r"無效", r"不适用", r"不適用", r"忽略", r"无视", r"無視", r"忘记", r"忘掉", r"忘れ",
    r"適用されません", r"適用しない", r"무시", r"적용되지", r"잊어",
    # "may leave unobeyed": a permission not to follow, the CJK shape of "you need not obey"
    r"可以?不(?:遵守|遵循|服从|服從|理会|理會)", r"(?:无需|無需|无须|無須|不需要)(?:遵守|遵循|服从|服從)",
    r"守らなくて", r"지키지 않아도",
    r"\bbỏ qua\b", r"\bkhông còn hiệu lực\b", r"\bquên\b", r"\bигнорир\w*", r"\bпроигнорир\w*",
    r"\bне действуют\b", r"\bзабудь\w*", r"\bотмен\w*", r"تجاهل", r"لا تنطبق", r"انس",
)

# Lowering consent: what an approval claim needs besides an approval word.
APPROVAL = alt(
    r"\bpre-?approv\w*", r"\bapprov\w*", r"\bvisto bueno\b", r"\bfeu vert\b", r"\bgrünes licht\b",
    r"\bluz verde\b", r"\bsinal verde\b", r"허용", r"\bauthori[sz]\w*", r"\bpermission\w*", r"\bconsent\w*",
    r"\bconfirm\w*", r"\bcleared\b", r"\ballow\w*", r"\bvalidé\w*", r"\bautoris\w*", r"\bapprouv\w*",
    r"\bgenehmig\w*", r"\bfreigegeben\b", r"\berlaub\w*", r"\bbestätig\w*", r"\brückfrage\w*",
    r"\baprob\w*", r"\bautoriz\w*", r"\bconfirmaç\w*", r"\bconfirmación\b", r"\bpermiso\b",
    r"批准", r"授权", r"授權", r"同意", r"确认", r"確認", r"允许", r"允許", r"承認", r"許可",
    r"승인", r"허락", r"허가", r"확인", r"\bphê duyệt\b", r"\bcho phép\b", r"\bxác nhận\b",
    r"\bодобр\w*", r"\bразреш\w*", r"\bподтвержд\w*", r"وافق", r"موافقة", r"التأكيد", r"إذن",
)
LOWER = alt(
    r"\bpre-?approv\w*", r"\balready\b", r"\bin advance\b", r"\bahead of time\b", r"\bstanding\b",
    r"\b(?:never|don'?t|do not|stop)\s+(?:show|display|raise|open|ask|prompt|wait)\w*", r"\bno need\b",
    r"\bblanket\b", r"\bgeneral (?:approval|consent|permission)\b", r"\bon (?:the user'?s|their|his|her) behalf\b",
    r"\bformality\b", r"\b(?:reply|answer|respond|click|press)\w*\b.{0,20}\b(?:yes|allow|accept|approve)\b",
    r"\bno longer (?:needed|necessary|required)\b", r"\bnot (?:needed|necessary|required)\b", r"\bpermanent\w*",
    r"\bonce and for all\b", r"\bfor good\b", r"\blong-?term\b", r"\bplus nécessaires?\b", r"\bune fois pour toutes\b",
    r"\bnicht mehr nötig\b", r"\bdauerhaft\w*", r"\bya no (?:son|es) necesari\w*", r"\bpermanente\w*",
    r"\bnão (?:são|é) mais necessári\w*", r"不需要", r"不必", r"长期", r"長期", r"永久", r"已获得", r"필요 없", r"영구",
    r"\bне нужн\w*", r"\bбессрочн\w*", r"لا داعي", r"لا حاجة", r"دائمة", r"\bskip\w*", r"\bomit\w*", r"\bwaiv\w*",
    r"省略", r"省く", r"スキップ", r"跳过", r"略过", r"생략", r"건너뛰", r"\bпропуска\w*", r"تخطي", r"\bsautez?\b",
    r"\bignor\w*", r"\büberspring\w*", r"\bomite?\b", r"\bsalt(?:a|e|ar)\b", r"\bnot needed\b", r"\bunnecessary\b",
    r"\bwithout (?:asking|confirm\w*|approval|checking|the usual)\b", r"\byourself\b",
    r"\bfrom now on\b", r"\bpre-?(?:answer|accept|confirm|grant|authori[sz])\w*", r"\bno hace falta\b",
    r"\bnão precisa\b", r"묻지 말", r"자동으로",
    r"\bà l'avance\b", r"\bdéjà\b", r"\bn'attends? jamais\b", r"\bsans (?:me |lui )?demander\b",
    r"\bim voraus\b", r"\bbereits\b", r"\bschon\b", r"\bfrag\w* nie\b", r"\bohne rückfrage\b", r"\bselbst\b",
    r"\bde antemano\b", r"\bpreviamente\b", r"\bya\b", r"\bno pidas\b", r"\bsin preguntar\b", r"\bjá\b",
    r"\bnão peça\b", r"\bsem perguntar\b", r"\bin anticipo\b",
    r"预先", r"預先", r"事先", r"已经", r"已經", r"不用再?", r"无需", r"無需", r"不经", r"不經", r"直接替",
    r"事前", r"済み", r"不要です", r"なしで", r"미리", r"묻지 마", r"없이", r"\btrước\b(?! khi)", r"\bkhông cần\b",
    r"\bзаранее\b", r"\bуже\b", r"\bне спрашивай\b", r"\bбез (?:вопросов|подтвержд\w*)\b",
    r"مسبقاً", r"مسبقا", r"لا تطلب", r"دون سؤال",
)

# Authority nouns for identity claims and impersonation channels.
AUTHORITY = alt(
    r"\badmin\w*", r"\bowner\b", r"\broot\b", r"\bsysadmin\b", r"\bsuperuser\b", r"\bdeveloper\b",
    r"\bsecurity team\b", r"\bteam lead\b", r"\breal user\b", r"\breal owner\b", r"\bentwickler\b",
    r"\bdéveloppeur\b", r"\bdesarrollador\b", r"\bdesenvolvedor\b", r"\bsviluppatore\b", r"开发者", r"開発者", r"개발자",
    r"\bnhà phát triển\b", r"\bразработчик\w*", r"مطور",
    r"\badministrateur\b", r"\bpropriétaire\b", r"\béquipe sécurité\b", r"\bbesitzer\b", r"\binhaber\b",
    r"\badministrador\b", r"\bpropietario\b", r"\bdueño\b", r"\bdono\b", r"\bproprietario\b",
    r"管理员", r"管理員", r"所有者", r"管理者", r"オーナー", r"관리자", r"소유자",
    r"\bquản trị viên\b", r"\bchủ sở hữu\b", r"\bадминистратор\w*", r"\bвладел\w*", r"مدير", r"مالك",
)
FIRST_PERSON = alt(
    r"\bi am\b", r"\bi'm\b", r"\bje suis\b", r"\bich bin\b", r"\bsoy\b", r"\beu sou\b", r"\bsono\b",
    r"我是", r"我才是", r"私は", r"私が", r"僕は", r"저는", r"나는", r"내가", r"\btôi là\b", r"\bя\b", r"أنا",
)
# "Anything", "every command": the scope an attacker grants.
EVERYTHING = alt(
    r"\banything\b", r"\beverything\b", r"\bany (?:command|access|request)\w*", r"\ball commands\b",
    r"\bfull privileges\b", r"\bfull access\b", r"\btout\b", r"\balles\b", r"\bcualquier\b",
    r"\bqualquer\b", r"\bqualsiasi\b", r"任何", r"所有", r"何でも", r"すべて", r"무엇이든", r"모든",
    r"\bmọi\b", r"\bвсё\b", r"\bвсе\b", r"\bлюб\w*", r"أي أمر", r"أي شيء", r"جميع",
)
# Channels that would make other text count as the user or the owner speaking.
IMPERSONATE = alt(
    r"\bas (?:if (?:it|they) (?:came|were|was) )?(?:coming )?(?:straight |directly )?from the (?:developer|owner|admin\w*|user)\b",
    r"\boutrank\w*", r"\bnot the real (?:owner|user)\b", r"\bvaut un ordre\b",
    r"\boverrid\w* (?:the |what the )?user\b", r"\b(?:carry|carries|has|have|hold|holds) the (?:owner|admin\w*|developer)'?s? (?:authority|privileges|rights)\b",
    r"\bspeaks? for the (?:owner|user|admin\w*|developer)\b",
    r"\b(?:treat|consider|regard)\w*\b.{0,80}\bas\b.{0,40}\b(?:instructions|orders|commands|requests|messages)\b.{0,10}\bfrom\b",
    r"当作.{0,10}(?:用户|管理员|所有者).{0,6}(?:命令|指令)",
    r"\bignor\w* (?:what|whatever|ce que|lo que|o que|was)\b.{0,20}\b(?:user|utilisateur|usuario|usuário|nutzer)\b",
    r"\b(?:owner|propriétaire|besitzer|propietario|dono|admin\w*)\b.{0,40}(?:\bc'est moi\b|\bthat'?s me\b|\bit'?s me\b|\bbin ich\b|\bsoy yo\b|\bsou eu\b)",
    r"\b(?:do|follow|obey)\w*\b.{0,10}\b(?:only|whatever|everything|solely)\b.{0,20}\bnotes?\b",
    r"\bwhatever the notes? says?\b", r"\bon behalf of the (?:owner|admin\w*|developer)\b",
    r"ユーザーより.{0,20}優先", r"优先于用户", r"사용자보다 우선",
    r"\bcomo si fueran órdenes\b", r"\bórdenes directas\b", r"\bals befehl\w* des\b",
)

# Hiding an action from the user: toward the user (strong) or merely quiet (weak: "the suite
# silently skips GPU tests" is a fact).
SECRECY_USER = alt(
    r"\bwithout (?:saying|telling|informing|notifying|alerting|bringing|mentioning|asking|letting|a word)\b",
    r"\bsin avisar\b", r"\bsin mencionarlo\b", r"\bsin decir nada\b", r"\bsans le mentionner\b",
    r"\bohne es zu erwähnen\b", r"\bsem mencionar\b", r"\bno need to (?:mention|tell|say|inform|bring)\w*", r"\bsans (?:rien dire|avertir)\b", r"\bohne bescheid\b", r"\bohne zu fragen\b",
    r"\b(?:don'?t|do not|never) (?:tell|mention|inform|notify|alert|let)\b(?: \w+){0,3} (?:user|them|anyone|this)",
    r"\bne (?:dis|dites) rien\b", r"\bsans (?:le )?(?:dire|prévenir)\b", r"\bsag\w* (?:dem \w+ )?nichts\b",
    r"\bohne es\b.{0,20}\bzu sagen\b", r"\bsin decírselo\b", r"\bno (?:le )?digas\b",
    r"\bnão conte\b", r"\bsem avisar\b", r"\bsenza dirlo\b",
    r"不要告诉", r"不要告訴", r"别告诉", r"知らせず", r"言わず", r"内緒", r"알리지 말", r"\bđừng nói\b",
    # "no need to report to the user" in the languages that say it with a noun: "ユーザーへの報告は不要".
    r"(?:報告|連絡|通知|説明)(?:は|も)?不要", r"伝える必要(?:は)?(?:ない|ありません)", r"(?:无需|無需|不必|不用)(?:告诉|告訴|告知|通知|汇报|匯報|报告|報告)",
    r"(?:알릴|보고할) 필요(?:는|가)? 없", r"\bне нужно (?:сообщать|говорить|уведомлять)\b", r"\bне треба (?:повідомляти|казати)\b",
    r"\bnicht (?:erwähnen|melden)\b", r"\bpas besoin de (?:le )?(?:dire|signaler|prévenir)\b", r"\bno hace falta (?:decirlo|avisar|mencionarlo)\b",
    r"\bне говори\b", r"\bне сообщай\b", r"لا تخبر",
)
# A cover story: when someone asks, an answer given whatever the truth is ("if anyone asks, say
# it's under budget, even if it isn't"). Other languages: guard_concepts_extra; it counts as
# hiding from the user (joined to SECRECY_USER after the tables are read).
COVER_STORY = alt(
    r"\bif (?:anyone|anybody|someone|somebody|they|the user|people|my \w+|the \w+) (?:ever )?asks?\b(?!.{0,120}\b(?:truth|honest\w*)\b).{0,120}"
    r"\b(?:even (?:if|though) (?:it|that|this|they|we|you)(?:'s|'re| is| are| was| were| did| does| do| has| have)? ?(?:n'?t|not)\b"
    r"|whether (?:or not )?it'?s true|regardless of the truth)",
)
SECRECY_QUIET = alt(
    r"\bsilently\b", r"\bquietly\b", r"\bsecretly\b", r"\bcovertly\b", r"\bin the background\b",
    r"\bunprompted\b", r"\bslip\b", r"\bdiscrètement\b", r"\ben cachette\b", r"\bheimlich\b",
    r"\bunbemerkt\b", r"\bstillschweigend\b", r"\ben silencio\b", r"\ben silence\b", r"\bin silence\b",
    r"\bem silêncio\b", r"\bin silenzio\b", r"\bмолча\b", r"بصمت", r"静かに", r"默默", r"조용히", r"\ben secreto\b", r"\ba escondidas\b", r"\bescondido\b", r"\bdi nascosto\b",
    r"偷偷", r"悄悄", r"暗中", r"こっそり", r"몰래", r"\bâm thầm\b", r"\blặng lẽ\b",
    r"\bтихо\b", r"\bтайно\b", r"\bнезаметно\b", r"\bسراً", r"\bسرا\b",  # a word: "أسرار" (secrets) holds the letters
)

# Whose rules: an override needs to aim at the assistant's own (system, safety, previous…).
RULES_SCOPE = alt(
    r"\byour\b", r"\byou\b", r"\bsystem\b", r"\bsafety\b", r"\bsecurity\b", r"\bprevious\b", r"\babove\b",
    r"\bearlier\b", r"\bprior\b", r"\ball\b", r"\btes\b", r"\bvos\b", r"\bprécédentes\b",
    r"\bdu système\b", r"\bsystème\b", r"\bsistema\b", r"\bsécurité\b", r"\bdeine\b", r"\bbisherigen\b", r"\bvorherigen\b",
    r"\bsicherheit\w*", r"\bsystem\w*", r"\btus\b", r"\banteriores\b", r"\bdel sistema\b",
    r"\bseguridad\b", r"\bsuas\b", r"\bdo sistema\b", r"\bsegurança\b", r"\bprecedenti\b",
    r"之前", r"以前", r"先前", r"系统", r"系統", r"安全", r"これまで", r"前の", r"システム", r"이전", r"시스템",
    r"\btrước\b", r"\bhệ thống\b", r"\bcũ\b", r"\bassistant'?s?\b", r"\bbuilt-?in\b", r"\ban toàn\b", r"\bmọi\b", r"\btoutes\b", r"\balle\b",
    r"\btodas\b", r"\btodos\b", r"所有", r"すべて", r"모든", r"안전", r"\bвсе\b", r"\bбезопасн\w*", r"جميع", r"كل",
    r"الأمان", r"السلامة", r"\bпрежн\w*", r"\bпредыдущ\w*", r"\bсистемн\w*",
    r"السابقة", r"النظام",
)
UNRESTRICTED = alt(
    r"\bwithout (?:any )?(?:limits|restrictions|filters|rules|safety)\b", r"\bunrestricted\b",
    r"\bno (?:restrictions|limits|filters)\b", r"\bwould (?:normally |usually )?refuse\b",
    r"\bnever refuse\b", r"\bsans (?:aucune )?(?:limites?|restrictions?|filtres?)\b",
    r"\bohne (?:jede )?(?:einschränkung\w*|grenzen|filter)\b", r"\bsin (?:filtros|límites|restricciones)\b",
    r"\bsem (?:limites|restrições|filtros)\b", r"\bsenza (?:limiti|restrizioni)\b",
    r"没有任何限制", r"没有限制", r"不受限制", r"無制限", r"制限なし", r"ルールなし", r"제한 없", r"제한이 없",
    r"\bkhông có giới hạn\b", r"\bkhông giới hạn\b", r"\bбез ограничений\b", r"بدون قيود", r"دون قيود",
)

# Download-then-run spelled in words ("download https://… and run it with python").
DOWNLOAD = alt(
    r"\bdownload\w*", r"\bfetch\w*", r"\bgrab\w*", r"\btélécharg\w*", r"\bherunterlad\w*", r"\blade\b",
    r"\blad\w*\b.{0,60}\bherunter\b", r"\bdescarg\w*", r"\bbaix\w*", r"\bscaric\w*",
    r"下载", r"下載", r"ダウンロード", r"다운로드", r"\btải\b", r"\bскача\w*", r"\bзагруз\w*", r"نزّل", r"حمّل",
)
EXECUTE = alt(
    r"\brun\w*", r"\bexecut\w*", r"\bexec\b", r"\blaunch\w*", r"\bexécut\w*", r"\blanc\w*", r"\bausführ\w*",
    r"\bführ\w*\b.{0,60}\baus\b", r"\bejecut\w*", r"\bexecut\w*", r"\brod\w*", r"\besegu\w*",
    r"执行", r"執行", r"运行", r"運行", r"実行", r"실행", r"\bchạy\b", r"\bзапуст\w*", r"\bвыполн\w*",
    r"شغّل", r"نفّذ", r"نفذ",
)

# Weak signals: none decides alone; two or more families in one entry send it to the judge.
ADDRESSED = alt(
    r"\b(?:you|your|yourself|assistant|agent|tu|vous|ton|tes|du|dich|dir|dein\w*|tú|tus|usted|você|seu|sua)\b",
    r"你", r"あなた", r"당신", r"\bbạn\b", r"\bты\b", r"\bвы\b", r"أنت", r"المساعد",
)
PERSIST = alt(
    r"\bevery (?:session|time|reply|answer|response|task|deploy|run)\b", r"\bwhenever\b",
    r"\beach (?:time|session|morning|new)\b", r"\bfrom now on\b", r"\bnext time\b", r"\bin (?:the )?future\b",
    r"\balways\b", r"\bany (?:rule|file|message|text)\b", r"\bà chaque\b", r"\bchaque fois\b", r"\bdésormais\b",
    r"\bjedes? (?:mal|sitzung)\b", r"\bab sofort\b", r"\bcada (?:vez|sesión|sessão)\b", r"\bsempre\b",
    r"\bsiempre\b", r"\bogni volta\b", r"每次", r"以后", r"今後", r"毎回", r"매번", r"앞으로", r"\bmỗi (?:khi|lần)\b",
    r"\bкаждый раз\b", r"\bвпредь\b", r"كل مرة", r"دائماً",
)
TREAT_AS = alt(
    r"\btreat\w*\b.{0,60}\bas\b", r"\bconsider\w*\b.{0,60}\bas\b", r"\bas if\b", r"\bpretend\w*", r"\bcomme si\b",
    r"\bals ob\b", r"\bcomo si\b", r"\bcomo se\b", r"当作", r"として扱", r"처럼", r"\bcoi như\b", r"\bкак будто\b", r"كأن",
)


def _extend() -> None:
    # Each concept's other languages live in guard_concepts (a table: concept x language).
    from .guard_concepts import TABLE
    from .guard_concepts_extra import EXTRA
    from .guard_concepts_more import MORE
    from .guard_intent_words import INTENT

    for table in (TABLE, INTENT, EXTRA, MORE):
        for name, cells in table.items():
            if name in globals():
                globals()[name] = alt(globals()[name], *(w for cell in cells.values() for w in cell))


_extend()
SECRECY_USER = alt(SECRECY_USER, COVER_STORY)
