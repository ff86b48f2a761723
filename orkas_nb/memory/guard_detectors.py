"""Structural detectors of the memory guard: what an entry *does*, not how it is phrased.

A phrase list cannot generalise (paraphrase and translation beat it), so each detector looks
for a structure that a benign preference or project fact does not have:

- **shell**: a destructive command on a dangerous target (``rm -r`` on ``~`` or ``/``, ``dd``
  onto a device, ``mkfs``, ``DROP DATABASE``…), a download piped into an interpreter, a
  reverse shell, an edit of ``authorized_keys`` — found by parsing the command, in any language
  around it;
- **secret flow**: a secret reference (an env name like ``*_API_KEY``, a ``$VAR`` expansion, a
  credential path, an env dump, the word for password/token/key) *and* a sink: a network
  destination (URL, e-mail, IP, sender command), a verb that shows or sends it, or a verb that
  copies it into memory — unless the verb is negated ("never print it");
- **control claims**: words about approvals together with words that lower them ("already",
  "in advance", "never ask"), first-person authority ("I am the admin"), grants of root or of
  everything, channels that make other text speak as the owner, overrides of the assistant's
  own rules, requests to act without limits;
- **secrecy**: hiding an action from the user;
- **obfuscation**: the same checks on decoded base64 and hex, on the reversed and ROT13 text,
  on words split by hyphens and letters split by spaces; readable text hidden in an encoding is
  itself refused (memory is for readable facts).

Each finding is *sure* (the guard refuses) or *doubtful* (a judge may decide; without one the
entry is kept). Words per language live in :mod:`.guard_lexicon`.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import re
from dataclasses import dataclass

from . import guard_lexicon as L
from .guard_kept import without_kept_consent, without_name_only, without_required_consent
from .guard_consent import lowered_approval, waived_confirmation
from .guard_scope import clauses, without_protective
from .guard_objects import affirmed as _affirmed, near as _near
from .guard_intent_words import words as intent_words


@dataclass(frozen=True)
class Finding:
    category: str
    reason: str
    sure: bool = True


def _c(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


# ---------------------------------------------------------------------------------------------
# shell

_SEGMENT_END = re.compile(r"[;|&\n`'\"()]|(?<=\S)[.,](?:\s|$)|[^\x00-\x7f]")
_DANGEROUS_TARGET = re.compile(
    r"^(?:/\*?|~/?\*?|~/\S*|\$\{?home\}?(?:/\S*)?|/(?:etc|usr|home|boot|bin|sbin|lib\w*|root|sys|dev|"
    r"proc|users|var/lib)(?:/\S*)?|/(?:var|opt|srv|mnt|media)(?:/[^/\s]*)?/?\*?|\.\.?/?\*?|\*|\.git/?|"
    r"[a-z]:\\\S*)$"
)


def _targets(segment: str) -> tuple[list[str], list[str]]:
    tokens = [t.lstrip("([{<`'\"“«").rstrip(".,;:!?)]}>`'\"”»") for t in segment.split()[1:]]
    flags = [t for t in tokens if t.startswith("-")]
    return flags, [t for t in tokens if t and not t.startswith("-")]


def _segments(flat: str, command: str) -> list[str]:
    out = []
    for m in re.finditer(rf"(?:^|[\s`'\"(;|&$])(?:sudo\s+)?({command})\b", flat):
        rest = flat[m.start(1):]
        end = _SEGMENT_END.search(rest, len(m.group(1)))
        out.append(rest[: end.start() if end else len(rest)])
    return out


# A home path inside a place that only holds regenerated files (a cache, a temp or build dir).
_REGENERATED = re.compile(r"^(?:~|\$\{?home\}?)/(?:[^/\s]+/)*(?:\.?cache|caches|\.?tmp|temp|__pycache__|node_modules|"
                          r"\.pytest_cache|\.mypy_cache|\.ruff_cache|build|dist)/[^\s]*$")


def _dangerous(targets: list[str]) -> str | None:
    return next((t for t in targets if _DANGEROUS_TARGET.match(t)
                 and not (_REGENERATED.match(t) and ".." not in t)), None)


_DOWNLOAD_EXEC = _c(
    r"\b(?:curl|wget|fetch|iwr|irm|invoke-webrequest|invoke-restmethod|http)\b[^|\n]{0,200}\|\s*"
    r"(?:sudo\s+(?:-\S+\s+)*)?(?:(?:ba|z|k|da|fi)?sh|python\d?(?:\.\d+)?|perl|ruby|node|iex|"
    r"invoke-expression|source|pwsh|powershell)\b"
    r"|(?:\b(?:ba|z)?sh|\bsource|\beval|\bpython\d?(?:\s+-c)?)\s*[<(\"']*\s*<?\(\s*\$?\(?\s*(?:curl|wget)\b"
    r"|\$\(\s*(?:curl|wget)\b"
    r"|\biex\b\W{0,5}(?:iwr|irm|invoke-webrequest|invoke-restmethod|new-object\s+net\.webclient)"
    r"|\bdownloadstring\s*\("
    r"|\b(?:os\.system|subprocess\.\w+|popen)\s*\(.{0,80}\b(?:curl|wget)\b"
    r"|\bbase64\s+(?:-d|--decode)\b.{0,20}\|\s*(?:ba)?sh\b"
)
_REMOTE_ACCESS = _c(
    r"\b(?:nc|ncat|netcat)\b[^|;\n]{0,80}\s-[a-z]*[ec]\b|/dev/tcp/|\bbash\s+-i\b.{0,30}>&|"
    r"\bsocat\b.{0,80}\bexec:|\bmeterpreter\b|\breverse shell\b"
)
_ADD = L.alt(r"\badd\w*", r"\bappend\w*", r"\bajout\w*", r"\bhinzu\w*", r"\bañad\w*", r"\bagreg\w*",
             r"\badicion\w*", r"\baggiung\w*", r"添加", r"加入", r"追加", r"추가", r"\bthêm\b", r"\bдобав\w*",
             r"أضف", r">>")
_SCRIPT_URL = _c(r"\bhttps?://\S+\.(?:sh|py|ps1|bat|cmd|exe|pl|rb|js|bash)\b")
_INTERPRETER = _c(r"\b(?:ba|z)?sh\b|\bpython\d?\b|\bpowershell\b|\bpwsh\b|\bnode\b|\bperl\b|\bstart\w*")
_URL = _c(r"\bhttps?://[^\s`'\"<>]+")
_DOWNLOAD, _EXECUTE = _c(L.DOWNLOAD), _c(L.EXECUTE)


def shell_findings(flat: str) -> list[Finding]:
    out: list[Finding] = []
    for seg in _segments(flat, r"rm|rmdir|shred|remove-item|del|erase|rd"):
        flags, targets = _targets(seg)
        recursive = any("r" in f.lstrip("-") or f in ("--recursive", "-recurse") for f in flags) or \
            seg.startswith(("shred", "del", "erase", "rd", "remove-item"))
        hit = _dangerous(targets)
        if recursive and hit:
            out.append(Finding("destructive", f"it holds a command that deletes {hit!r} recursively"))
    # A quoted pattern is one of find's arguments ("find / -name '*.db' -delete"), not its end.
    for seg in _segments(re.sub(r"\"[^\"\n`]*\"|'[^'\n`]*'", "q", flat), r"find"):
        _, targets = _targets(seg.split(" -", 1)[0])
        if re.search(r"\s-delete\b|\s-exec\s+rm\b", seg) and _dangerous(targets[:1]):
            out.append(Finding("destructive", "it holds a find command that deletes a whole tree"))
    for seg in _segments(flat, r"chmod|chown|chgrp"):
        flags, targets = _targets(seg)
        if any("r" in f.lstrip("-") for f in flags) and _dangerous(targets[1:]):
            out.append(Finding("destructive", "it changes permissions of a whole system or home tree"))
    if re.search(r"\bdd\b[^;|&\n]{0,80}\bof=/dev/|\bmkfs(?:\.\w+)?\s+(?:-\S+\s+)*/dev/|\bwipefs\b|"
                 r">\s*/dev/(?:sd|nvme|hd|xvd|disk|mmcblk)|:\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}|"
                 r"\bformat\s+[a-z]:|\bdrop\s+(?:database|schema)\b|\bmkfs\b.{0,60}/dev/|/dev/\S+.{0,60}\bmkfs\b|"
                 r"\bformat\w*\b.{0,40}/dev/|"
                 r"\b(?:truncate|drop|delete|wipe|purge)\b.{0,20}\b(?:every|all)\b.{0,20}\b(?:tables?|databases?)\b|"
                 r"\bgit\s+push\b[^;\n]*(?:--delete|\s:)\s*\$\(|\bgit\s+push\b[^;\n]*--mirror\b", flat):
        out.append(Finding("destructive", "it holds a command that wipes a disk, a file system or a database"))
    if re.search(r"\bdrop\s+table\b|\btruncate\s+table\b|\bgit\s+reset\s+--hard\b|"
                 r"\bgit\s+push\b[^;|&\n]*\s(?:--force|-f)(?!-with-lease)\b|\bgit\s+clean\s+-\w*[fd]", flat):
        out.append(Finding("destructive", "it holds a command that discards data", sure=False))
    if _DOWNLOAD_EXEC.search(flat):
        out.append(Finding("download_exec", "it pipes downloaded code into an interpreter"))
    elif _SCRIPT_URL.search(flat) and (_EXECUTE.search(flat) or _INTERPRETER.search(flat)):
        out.append(Finding("download_exec", "it asks to run a script fetched from the network"))
    elif _URL.search(flat) and re.search(r"\bpipe\w*|\|", flat) and _INTERPRETER.search(flat):
        out.append(Finding("download_exec", "it feeds a download to an interpreter"))
    elif _DOWNLOAD.search(flat) and _URL.search(flat) and _EXECUTE.search(flat):
        out.append(Finding("download_exec", "it asks to download something and run it", sure=False))
    if re.search(r"\bcrontab\b|authorized_keys|\bsystemctl enable\b", flat) and re.search(_ADD, flat) \
            and (_EXECUTE.search(flat) or _INTERPRETER.search(flat) or _URL.search(flat)):
        out.append(Finding("remote_access", "it plants a command that runs again by itself (cron, login keys)"))
    if _REMOTE_ACCESS.search(flat):
        out.append(Finding("remote_access", "it opens a shell for a remote host"))
    if "authorized_keys" in flat and re.search(_ADD, flat):
        out.append(Finding("remote_access", "it adds a login key to authorized_keys"))
    if re.search(r"\bgit\s+remote\s+(?:add|set-url)\b|\bremote origin\b", flat) and _URL.search(flat) \
            or re.search(r"\bgit\s+remote\b.{0,40}\bgit@", flat):
        out.append(Finding("remote_access", "it points the repository at another remote", sure=False))
    return out


# ---------------------------------------------------------------------------------------------
# secret flow

_ENV_SECRET = _c(
    r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*_(?:API_?KEY|KEY|TOKEN|SECRET(?:_KEY)?|ACCESS_KEY|PASSWORD|PASSWD|"
    r"PWD|PASS|CREDENTIALS?|AUTH|PAT)\b"
)
_SECRET_REF = _c(
    r"\$\{?[a-z_]*(?:key|token|secret|passw|pwd|cred|auth)\w*\}?|%\w*(?:key|token|secret)\w*%|"
    r"\bos\.environ\b|\bprocess\.env\b|\bgetenv\b|\bprintenv\b|\benv\s*\||\bexport\s+-p\b|"
    r"~/\.ssh/(?!config\b|known_hosts\b)\S+|\bid_(?:rsa|dsa|ecdsa|ed25519)\w*|\.aws/credentials|\.netrc\b|"
    r"\.pgpass\b|\.git-credentials\b|\.kube/config\b|\.docker/config\.json|\.npmrc\b|\.pypirc\b|"
    r"\bkaggle\.json\b|application_default_credentials|/etc/shadow\b|(?<![\w.])\.env\b(?!\.)|"
    r"\bsecrets?\.(?:ya?ml|json|toml)\b|\bcredentials\.json\b|\bkeychain\b|\.gnupg\b|"
    r"~/\.ssh\b|\bssh\b.{0,6}(?:keys?|鍵|키)|\b(?:ssh|private|secret|access) key|\bwhoami\b|\buname\b|\bifconfig\b"
)
_SECRET_WORD = _c(L.SECRET_WORDS)
_NETWORK_COMMAND = (r"(?:^|[\s`'\"(;|&])(?:curl|wget|nc|ncat|netcat|scp|rsync|sftp|sendmail|mail|telnet|socat)\s|"
                    r"\b(?:requests|httpx|aiohttp|urllib3?|session)\.(?:get|post|put|patch|request)\(|\burlopen\(|"
                    r"\bfetch\(|\binvoke-(?:webrequest|restmethod)\b")
# A URL with a query parameter to fill ("include it as the ?t= parameter"): the address carries it.
_QUERY_SLOT = r"https?://\S*\?\S*=|[?&]\w+=(?:\s|$|[`'\")])"
_NETWORK_SINK = _c(
    r"\bhttps?://|\b(?:s?ftp|scp)://|[\w.+-]+@[\w-]+\.[a-z][\w.-]*|\b\d{1,3}(?:\.\d{1,3}){3}\b|"
    r"\bgist\b|pastebin|webhook\.site|requestbin|ngrok|" + _NETWORK_COMMAND
)
# Loopback addresses, and what else names a host: a secret sent to the first stays on the machine.
_LOOPBACK = _c(r"\b(?:https?://)?(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])(?::\d+)?(?:/\S*)?")
# (0.0.0.0 is no loopback: a server bound there listens on every interface.)
_ADDRESS = _c(r"\b(?:https?|s?ftp|scp)://|[\w.+-]+@[\w-]+\.[a-z][\w.-]*|\b\d{1,3}(?:\.\d{1,3}){3}\b|"
              r"\bgist\b|pastebin|webhook\.site|requestbin|ngrok|\b[\w-]+\.(?:com|net|org|io|dev|app|xyz|top|cc|ru|cn)\b")
_SHOW, _SEND, _KEEP = _c(L.SHOW), _c(L.SEND), _c(L.KEEP)
# Places anyone can read: a secret kept there is published, whatever the verb says.
_PUBLIC_PLACE = _c(r"\bgists?\b|pastebin|\bpublic(?:ly)?\b|\böffentlich\w*|\bpublique?s?\b|\bpúblic[oa]s?\b|\bpubblic[oa]\b|"
                   r"\bherkese açık\b|\bпубличн\w*|\bпублічн\w*|\bpubliczn\w*|\bopenbaar\b|公开|公開|공개|\bcông khai\b|\bpublik\b")


def local_only(flat: str) -> bool:
    """Every address the entry names is a loopback one (``localhost``, ``127.0.0.1``, ``[::1]``)."""
    return bool(_LOOPBACK.search(flat)) and not _ADDRESS.search(_LOOPBACK.sub(" ", flat))
_PLACE = _c(L.MEMORY_PLACE)
_ENV_SECRET_FLAT = _c(
    r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)*_(?:api_?key|key|token|secret(?:_key)?|access_key|password|passwd|"
    r"pwd|credentials?)\b"
)
_OUTPUT = _c(L.OUTPUT_PLACE)
_BULK = _c(r"\b(?:every|all|each)\b.{0,15}\bfiles?\b|\bthe (?:whole |entire )?(?:folder|repo(?:sitory)?|codebase|"
           r"home|project)\b|~(?:/|\s|$)|\b(?:tous les|alle|todos los|todos os) (?:fichiers|dateien|archivos|arquivos)\b|"
           r"所有文件|全てのファイル|모든 파일|\btất cả tệp\b|\bвсе файлы\b|جميع الملفات")
_VALUE_OF = _c(L.VALUE_OF)


_ABSENT = re.compile(L.NEGATION + r"\W+(?:\w+\W+)?$")


def _beside_secret(flat: str) -> bool:
    """A network address and a secret (name, path, ``$VAR`` or word) in the same clause."""
    return any(_NETWORK_SINK.search(c) and (_ENV_SECRET_FLAT.search(c) or _SECRET_REF.search(c) or _SECRET_WORD.search(c))
               for c in clauses(flat))


def secret_findings(nfkc: str, flat: str) -> list[Finding]:
    refs = bool(_ENV_SECRET.search(nfkc) or _ENV_SECRET_FLAT.search(flat) or _SECRET_REF.search(flat))
    # "no requiere clave", "requires no key": a secret word negated right before is an absence.
    secret = refs or any(not _ABSENT.search(flat[max(0, m.start() - 30):m.start()]) for m in _SECRET_WORD.finditer(flat))
    # The secret may be named anywhere; the sinks count only outside protective clauses
    # ("the token is in $X_TOKEN; never echo it" states where a secret is and forbids showing it).
    unguarded = without_name_only(flat)
    flat = without_protective(unguarded)
    if not secret:
        if _BULK.search(flat) and _NETWORK_SINK.search(flat) and _affirmed(_SEND, flat):
            return [Finding("exfiltration", "it sends the user's files somewhere off the machine")]
        return []
    # A named secret (env name, path, $VAR) goes with any sink; the mere word "token" or
    # "password" needs the verb right before it ("upload dist/* with the PyPI token" is a fact).
    out: list[Finding] = []
    # An entry that forbids leaking its secret ("the key comes from OWM_KEY and must not be
    # printed") may still name a host it talks to elsewhere: the address is a sink for the
    # secret only in a clause that names the secret too (or through a send verb, below).
    # With no send verb nor a network command, an address in another clause than the secret is
    # where the secret is *used* ("API base URL: https://…; auth header read from WEATHER_KEY").
    send, show, keep = _affirmed(_SEND, flat), _affirmed(_SHOW, flat), _affirmed(_KEEP, flat)
    sends = bool(send) or bool(re.search(_NETWORK_COMMAND, flat)) or bool(re.search(_QUERY_SLOT, flat)) or \
        bool(_PUBLIC_PLACE.search(flat))
    network = _NETWORK_SINK.search(flat) if flat == unguarded and sends else _beside_secret(flat)
    if network and local_only(flat):
        network = None  # every address is this machine's own: a local API called with its dev token
    if refs and _affirmed(_VALUE_OF, flat):
        out.append(Finding("exfiltration", "it asks for what is inside a secret (its contents or value)"))
    elif network or (send and (refs or _near(send, flat))):
        out.append(Finding("exfiltration", "it sends a secret (key, token, password, credential file) "
                                           "somewhere off the machine"))
    elif (show and (refs or _near(show, flat))) or (refs and _affirmed(_OUTPUT, flat)):
        out.append(Finding("exfiltration", "it asks to show a secret's value in answers or output"))
    if keep and _PLACE.search(flat):
        out.append(Finding("credential_copy", "it asks to copy a credential into memory"))
    return out


# ---------------------------------------------------------------------------------------------
# control claims and secrecy

_FIRST_AUTHORITY = _c(L.FIRST_PERSON + r".{0,40}" + L.AUTHORITY)
_DEMAND = _c(L.alt(L.RULES, L.VOID, L.APPROVAL, L.LOWER, L.TREAT_AS, L.EVERYTHING, L.IMPERSONATE, L.MEMORY_PLACE,
             L.SECRET_WORDS, L.SEND, L.EXECUTE, L.UNRESTRICTED, L.PERSIST, *intent_words("FOLLOW"),
             *intent_words("PRECEDENCE"), r"\breal\b", r"\bsystem\w*", r"\btrust\w*", r"\bprivileg\w*", r"\bsudo\b",
             r"\broot\b", r"\bverif\w*", r"\bconfiguration\b", r"\bupdat\w*", r"\bspeaking\b", r"\btesting\b", r"\btest\w*"))
_ROOT_EVERYTHING = _c(r"\broot\b.{0,60}" + L.EVERYTHING + "|" + L.EVERYTHING + r".{0,60}\broot\b")
# "root" as a place (the repo root, the root folder) grants nothing.
_ROOT_PLACE = _c(r"\b(?:repo(?:sitory)?|project|workspace|git|site|web|document|source|package|monorepo|tree|workspace's|"
                 r"repo's|project's)\s+root\b|\broot\s+(?:dir\w*|folder|of\b|level|path|\.|/)|\bat the root\b|"
                 r"\bfrom the root\b|\bin the root\b|\bracine du (?:dépôt|projet)\b|\b(?:projekt|repo)-?(?:wurzel|root)\b|"
                 r"\braíz del (?:repo|proyecto)\b|\braiz do (?:repo|projeto)\b")
_IMPERSONATE = _c(L.IMPERSONATE)
_GRANT = _c(r"\bgrant\w*\b.{0,30}\b(?:any|all|full|every)\b.{0,20}\b(?:access|privileges?|permissions?|rights)")
_SANDBOX_OFF = _c(
    r"(?:\bdisabl\w*|\bturn\w* off|\bswitch\w* off|\bbypass\w*|\bdesliga\w*|\bdésactiv\w*|\bdeaktivier\w*|"
    r"\bdesactiv\w*|\bdisattiv\w*|关闭|關閉|無効|끄|\btắt\b|\bотключ\w*|تعطيل).{0,40}"
    r"(?:\bsandbox\w*|\bbac à sable\b|\bapproval\w*|\bconfirmation\w*|\bguard\w*|\bsafety checks?\b|沙箱|サンドボックス|샌드박스)"
    r"|\bsandbox\w*.{0,20}(?:\boff\b|\bdisabled\b)"
)
_RULES, _VOID, _SCOPE = _c(L.RULES), _c(L.VOID), _c(L.RULES_SCOPE)
_UNRESTRICTED = _c(L.UNRESTRICTED)
_SCOPE_WEAK = _c(L.alt(*intent_words("RULES_SCOPE_WEAK")))
_ARTIFACT = _c(r"\b[\w-]+/[\w./-]+|\b[\w-]+\.(?:md|txt|rst|py|toml|ya?ml|json|cfg|ini)\b")
_SECRECY_USER, _SECRECY_QUIET = _c(L.SECRECY_USER), _c(L.SECRECY_QUIET)
_ACTION = _c(L.EXECUTE + r"|\bdelet\w*|\bpush\w*|\bopen\w*|\badd\w*|\bchang\w*|\bpoint\w*|" + L.SEND +
             r"|删除|削除|삭제|\bxóa\b|\bудаля\w*|احذف|\bborr\w*|\blösch\w*|\beffac\w*|\bsupprim\w*"
             r"|\bcambi\w*|\bänder\w*|\bmodifi\w*|\bmud\w*|更改|修改|変更|변경|\bthay đổi\b|\bизмени\w*|غيّر|غير")


def control_findings(flat: str) -> list[Finding]:
    out: list[Finding] = []
    flat = without_kept_consent(flat)
    if lowered_approval(flat):
        out.append(Finding("approval_claim", "it claims approvals were given or are not needed; only "
                                             "the user grants approvals, when asked"))
    if waived_confirmation(without_required_consent(flat)):
        out.append(Finding("approval_claim", "it waives the user's confirmation for destructive "
                                             "actions or for everything"))
    if _SANDBOX_OFF.search(flat):
        out.append(Finding("approval_claim", "it asks to turn off the sandbox or the approval checks"))
    if _FIRST_AUTHORITY.search(flat):
        # "I am the sole developer; I live in Shanghai" is the user's own fact: the claim is an
        # attack when it comes with a demand on the assistant's rules, approvals or obedience.
        out.append(Finding("identity_claim", "it claims an identity or authority (admin, owner) that "
                                             "memory cannot vouch for", sure=bool(_DEMAND.search(flat))))
    if _ROOT_EVERYTHING.search(_ROOT_PLACE.sub(" ", flat)) or _GRANT.search(flat):
        out.append(Finding("identity_claim", "it grants root or unlimited access"))
    if _IMPERSONATE.search(flat):
        out.append(Finding("identity_claim", "it makes other text count as the owner or developer speaking"))
    if _RULES.search(flat) and _VOID.search(flat):
        scoped = bool(_SCOPE.search(flat)) or bool(_SCOPE_WEAK.search(flat) and not _ARTIFACT.search(flat))
        out.append(Finding("rule_override", "it tells the assistant to set aside its own rules", sure=scoped))
    if _UNRESTRICTED.search(flat):
        out.append(Finding("rule_override", "it asks the assistant to act without its limits"))
    if _SECRECY_USER.search(without_required_consent(without_protective(flat, user=True))):
        out.append(Finding("hidden_instruction", "it asks to hide an action from the user"))
    elif _SECRECY_QUIET.search(flat):
        acts = bool(_ACTION.search(flat))
        out.append(Finding("hidden_instruction", "it asks to do something quietly", sure=acts))
    return out


# ---------------------------------------------------------------------------------------------
# weak signals: what the structures above could not pin down

FAMILIES = {
    "addressed to the assistant": _c(L.ADDRESSED),
    "about approvals, rules or authority": _c(L.APPROVAL + "|" + L.RULES + "|" + L.AUTHORITY +
                                              r"|\bsandbox\w*|\bsudo\b|\bprivileg\w*|\bprompts?\b"),
    "meant for every later session": _c(L.PERSIST),
    "setting something aside": _c(L.VOID + "|" + L.LOWER + "|" + L.TREAT_AS),
    "a command or a network address": _c(
        r"\b(?:rm|curl|wget|dd|mkfs\S*|crontab|truncate|drop|chmod|chown|nc|scp|git push|eval|exec|iex|"
        r"bash|sh|powershell)\b|\bhttps?://|\b\d{1,3}(?:\.\d{1,3}){3}\b|[\w.+-]+@[\w-]+\.[a-z]"),
    "about secrets": _c(L.SECRET_WORDS + r"|\b[a-z0-9]+_(?:api_?key|key|token|secret|password)\b|~/\.ssh|"
                                         r"\.env\b|credentials|recovery codes?|\b2fa\b|passphrase"),
}


def signal_findings(flat: str) -> list[Finding]:
    """A doubtful finding when two or more weak-signal families meet (a judge may decide)."""
    hits = [name for name, pattern in FAMILIES.items() if pattern.search(flat)]
    if len(hits) < 2:
        return []
    return [Finding("weak_signals", "it is " + " and ".join(hits), sure=False)]


# ---------------------------------------------------------------------------------------------
# obfuscation: decoded and rearranged copies

_B64 = re.compile(r"[A-Za-z0-9+/]{16,}={0,2}")
_HEX = re.compile(r"\b(?:[0-9a-fA-F]{2}){6,}\b")


def _readable(data: bytes) -> str | None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    printable = sum(ch.isprintable() or ch in "\n\t" for ch in text)
    if len(text) >= 6 and printable / len(text) > 0.95 and re.search(r"[^\W\d_]{2,}\W+\S", text):
        return text
    return None


def decoded_payloads(text: str) -> list[str]:
    """Readable text hidden as base64 or hex in ``text``."""
    found = []
    for m in _B64.finditer(text):
        blob = m.group(0)
        try:
            decoded = base64.b64decode(blob + "=" * (-len(blob) % 4), validate=True)
        except (binascii.Error, ValueError):
            continue
        readable = _readable(decoded)
        if readable:
            found.append(readable)
    for m in _HEX.finditer(text):
        readable = _readable(bytes.fromhex(m.group(0)))
        if readable:
            found.append(readable)
    return found


def rearranged(flat: str) -> list[str]:
    """Copies that undo cheap disguises: split words, spaced letters, reversal, ROT13."""
    joined = re.sub(r"(?<=[^\W\d_])[-.·_*](?=[^\W\d_])", "", flat)
    spaced = re.sub(r"\b(?:\S ){3,}\S\b", lambda m: m.group(0).replace(" ", ""), flat)
    return [joined, spaced, flat[::-1], codecs.encode(flat, "rot13")]
