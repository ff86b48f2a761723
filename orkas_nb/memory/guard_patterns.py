"""The phrase layer of the memory guard: known injection and exfiltration wordings.

One defence among several (see :mod:`.guard`): these patterns need the imperative shape of an
attack and run on the guard's normalised copies; the look-alike and digit-for-letter tables
that build those copies live here too.
"""

from __future__ import annotations

import re

from .guard_detectors import Finding, local_only

_CONFUSABLES = str.maketrans(
    {
        "а": "a",
        "е": "e",
        "о": "o",
        "р": "p",
        "с": "c",
        "у": "y",
        "х": "x",
        "і": "i",
        "ј": "j",
        "ѕ": "s",
        "ԁ": "d",
        "ɡ": "g",
        "һ": "h",
        "ӏ": "l",
        "к": "k",
        "м": "m",
        "т": "t",
        "в": "b",
        "н": "h",
        "α": "a",
        "ο": "o",
        "ε": "e",
        "ι": "i",
        "κ": "k",
        "ν": "v",
        "ρ": "p",
        "τ": "t",
        "υ": "u",
        "χ": "x",
    }
)


_LEET = str.maketrans(
    {"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s"}
)


def _compile(patterns: list[str]) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in patterns))


_PREV = r"(?:previous|prior|above|earlier|preceding|former|existing|original|system|all|any|your|the|these|those)"
_RULES = r"(?:instructions?|rules|prompts?|directions|directives|guidelines|guardrails|context|constraints|orders|commands|programming)"

INJECTION = _compile(
    [
        # English
        rf"\b(?:ignore|disregard|forget|override|bypass|skip|drop|abandon|discard)\b(?: \w+){{0,3}} {_PREV}\b(?: \w+){{0,2}} {_RULES}\b",
        r"\b(?:ignore|disregard|forget|override|bypass)\b (?:everything|all) (?:you were|you've been|that was|above|before)",
        r"\byou are (?:now|no longer)\b(?: \w+){0,4} (?:unrestricted|jailbroken|dan|free of|without (?:any )?(?:rules|restrictions|limits))",
        r"\byou are now (?:a|an|the|in)\b",
        r"\b(?:from now on|henceforth|in every future (?:session|conversation)),? (?:you )?(?:must|will|shall|should)? ?(?:ignore|disregard|always obey|never refuse|obey|comply)",
        r"\b(?:new|updated|real|actual|true) (?:system )?(?:instructions?|prompt|rules)\s*:",
        r"\b(?:reveal|print|show|output|repeat|leak|dump)\b(?: \w+){0,3} (?:system prompt|hidden (?:prompt|instructions)|initial instructions)",
        r"\b(?:do not|don't|never) (?:tell|inform|alert|warn) (?:the )?(?:user|human|developer)",
        r"\b(?:jailbreak|developer mode|dan mode|god mode)\b",
        r"\bact as (?:an? )?(?:unrestricted|unfiltered|uncensored|jailbroken)",
        r"\b(?:disable|turn off|remove)\b(?: \w+){0,2} (?:safety|guardrails|filters|restrictions)",
        r"\bwhen(?:ever)? (?:you|the assistant) (?:see|read|load)s? this,? (?:you )?(?:must|should|will)",
        r"(?:^|\n|\. )(?:system|developer|assistant) ?: ?(?:you|always|never|ignore|do not|don't|from now)",
        r"\b(?:never|don't|do not) ask (?:the user )?(?:for )?(?:permission|approval|confirmation)",
        r"\b(?:skip|bypass|auto-?approve|suppress)\b(?: \w+){0,2} (?:confirmations?|approvals?|permission (?:checks|prompts)|confirmation prompts)",
        # chat-template and role markup
        r"<\|?(?:im_start|im_end|system|endoftext|start_header_id)\|?>",
        r"\[/?inst\]|<<sys>>|</?system>|^#{2,} ?system\b|\bsystem override\b",
        # French
        r"\b(?:ignore[rz]?|oublie[rz]?|néglige[rz]?)\b(?: \w+){0,3} (?:les |tes |vos |toutes les )?(?:instructions|consignes|règles|directives)\b",
        r"\bdésormais,? (?:tu|vous) (?:dois|devez|es|êtes|ignore)",
        # Spanish / Portuguese / Italian
        r"\b(?:ignora|ignore|olvida|olvide|esquece|esqueça|dimentica|trascura)\b(?: \w+){0,3} (?:las |os |as |le |tus |suas |tutte le |todas (?:las|as) )?(?:instrucciones|instruções|istruzioni|reglas|regras|regole)\b",
        r"\b(?:a partir de ahora|de ahora en adelante|d'ora in poi|a partir de agora),? (?:eres|és|sei|você é|tu es)",
        # German / Dutch
        r"\b(?:ignoriere|ignorier|vergiss|missachte|negeer|vergeet)\b(?: \w+){0,3} (?:anweisungen|instruktionen|regeln|vorgaben|instructies|regels)\b",
        r"\bab jetzt bist du\b|\bvanaf nu ben je\b",
        # Russian
        r"\b(?:игнорируй|игнорируйте|забудь|забудьте|проигнорируй)\b(?: \w+){0,3} (?:инструкции|указания|правила)",
        r"\bтеперь ты\b",
        # Chinese
        r"(?:忽略|无视|忽视|忘记|忘掉|不要理会|無視|忽略掉).{0,8}(?:指令|指示|说明|規則|规则|提示|設定|设定)",
        r"(?:你现在是|從現在開始你是|从现在开始你是|你不再是)",
        # Japanese
        r"(?:以前|前|上記|これまで|すべて)の?(?:指示|命令|ルール|プロンプト)を?(?:無視|忘れ)",
        # Korean
        r"(?:이전|위의|모든).{0,6}(?:지시|명령|규칙|지침).{0,4}(?:무시|잊어)",
        # Arabic / Hindi
        r"(?:تجاهل|انس).{0,20}(?:التعليمات|الأوامر|القواعد)",
        r"(?:पिछले|सभी).{0,20}(?:निर्देशों|निर्देश).{0,10}(?:अनदेखा|भूल)",
    ]
)

_SENDER = r"(?:curl|wget|nc|ncat|netcat|socat|scp|rsync|ftp|sftp|telnet|invoke-webrequest|iwr|invoke-restmethod|irm|requests\.(?:post|put|get)|urllib|fetch\(|httpx\.(?:post|put)|sendmail|mail)"
_SECRET_SOURCE = (
    r"(?:~/\.ssh|id_rsa|id_ed25519|\.aws/credentials|\.netrc|\.pgpass|\.npmrc|\.pypirc|\.git-credentials|"
    r"/etc/(?:passwd|shadow)|\.env\b|\$\{?\w*(?:key|token|secret|passw|pwd|credential|auth)\w*\}?|"
    r"\bprintenv\b|\benv\b ?\||\bset\b ?\||os\.environ|process\.env|keychain|bash_history|\.zsh_history|"
    r"cookies?\.sqlite|login data)"
)
_SECRET_WORDS = r"(?:api[ _-]?keys?|tokens?|passwords?|passphrases?|credentials|secrets?|ssh keys?|private keys?|\.env(?: file)?|cookies|session cookies)"

EXFILTRATION = _compile(
    [
        rf"{_SENDER}\b.{{0,120}}{_SECRET_SOURCE}",
        rf"{_SECRET_SOURCE}.{{0,80}}\|\s*(?:base64.{{0,20}}\|\s*)?{_SENDER}\b",
        rf"{_SENDER}\b.{{0,60}}(?:-d|--data\S*|-f|--form|-t|--upload-file)\s*@?\S*{_SECRET_SOURCE}",
        rf"\b(?:send|upload|post|email|forward|transmit|exfiltrate|leak|share)\b(?: \w+){{0,4}} {_SECRET_WORDS}\b.{{0,40}}\b(?:to|at|into)\b",
        r"\bexfiltrat\w*",
        r"\b(?:include|print|show|output|paste|reveal|dump|display|echo|cat)\b.{0,40}(?:~/\.ssh|id_rsa|id_ed25519|\.aws/credentials|/etc/shadow|\.git-credentials|\.netrc)",
        rf"(?:\benv\b|\bprintenv\b|\bset\b|\bexport -p\b)\s*\|\s*{_SENDER}\b",
        r"\bpowershell\b.{0,20}-e(?:nc(?:odedcommand)?)?\b",
        r"\bbase64\b.{0,40}\|\s*(?:sh|bash)\b|\|\s*(?:sh|bash)\s*$",
        r"\b(?:envoie|envoyer|envíe|envía|enviar|invia|inviare|sende|schicke)\b.{0,40}(?:clés?|mots? de passe|contraseñas?|claves?|password|chiavi|schlüssel|passwörter|token|secrets?|credenciales|zugangsdaten)",
        r"(?:发送|上传|发给|發送).{0,20}(?:密钥|密碼|密码|令牌|凭证|憑證|秘钥)",
        r"(?:密钥|密碼|密码|令牌|凭证|憑證|秘钥).{0,12}(?:发送|上传|发给|發送|传到)",
        r"(?:отправь|пришли|загрузи).{0,30}(?:ключ|пароль|токен|секрет)",
    ]
)

# Spacing tricks ("i g n o r e", "ignorepreviousinstructions"): the same phrases, letters only.
SQUASHED = re.compile(
    r"(?:ignore|disregard|forget|override)(?:all|any|the|your)?(?:previous|prior|above|earlier|"
    r"system)(?:instructions?|rules|prompts?|directions)|youarenowdan|developermode"
)

SECRET_VALUE = re.compile(
    r"-----BEGIN (?:[A-Z ]+ )?PRIVATE KEY-----|\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}|"
    r"\bAKIA[0-9A-Z]{16}\b|\bgh[pousr]_[A-Za-z0-9]{30,}|\bxox[abpr]-[A-Za-z0-9-]{10,}|"
    r"\bAIza[0-9A-Za-z_-]{35}\b|\bglpat-[A-Za-z0-9_-]{20,}"
)


# A package manager told to trust a host without TLS, or to fetch over plain http: whoever sits
# on the path (or owns the look-alike mirror) chooses the code that runs at install.
UNTRUSTED_INDEX = re.compile(
    r"\b(?:pip3?|pipx|uv|poetry|python3? -m pip)\b[^;\n|]{0,160}(?:--trusted-host\b|(?:-i|--index-url|--extra-index-url)"
    r"\s*=?\s*http://|\binstall\s+(?:\S+\s+)*?http://)|\bnpm\b[^;\n|]{0,80}--registry\s*=?\s*http://|"
    r"\b(?:npm|yarn|pnpm) config set registry\s+http://|\bpip config set\b[^;\n]{0,40}http://|"
    r"--trusted-host\b|--(?:extra-)?index-url\s*=?\s*http://"  # pip's own flags, whatever names the tool
)


def _pattern_findings(flat: str) -> list[Finding]:
    """The phrase layer: known injection and exfiltration wordings (one defence among several)."""
    out = []
    if EXFILTRATION.search(flat) and not local_only(flat):
        out.append(Finding("exfiltration", "it reads like a command to send secrets or credentials "
                                           "off the machine"))
    if UNTRUSTED_INDEX.search(flat):
        out.append(Finding("download_exec", "it installs packages from an unverified index or a plain-http "
                                            "address (TLS checks off)"))
    squashed = re.sub(r"[\W\d_]+", "", flat.translate(_CONFUSABLES).translate(_LEET))
    if INJECTION.search(flat) or INJECTION.search(flat.translate(_CONFUSABLES)) or \
            SQUASHED.search(squashed):
        out.append(Finding("injection", "it reads like an instruction aimed at the assistant "
                                        "(prompt injection)"))
    return out
