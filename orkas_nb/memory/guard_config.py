"""Detectors of *where code comes from and where it runs*, read from syntax alone.

Some standing orders need no word of any language to be recognised: the entry itself holds the
configuration that moves a trust anchor, the file that runs on its own, or the code that runs
what the network sends. A fact about a project states such a thing ("pip.conf points at the
internal mirror", "core.hooksPath points at .githooks/"); an order carries the command or the
file to write. These detectors read the syntax, so they hold in any language the entry is
written in:

- **moved trust anchor**: a package index, registry or channel set to a URL
  (``npm config set registry URL``, ``--index-url URL``, ``[[tool.poetry.source]]`` with a
  ``url``, ``PIP_INDEX_URL=URL``, ``conda config --add channels URL``), a git remote set or
  added (``git remote set-url``, ``insteadOf``), a hooks path set outside the repository;
- **autorun location**: a file that runs without being asked to — IPython startup files,
  desktop autostart, git hooks, ``authorized_keys``, ``sitecustomize``/``.pth`` — named by
  its path, with something from or to elsewhere (a URL, a server, a key, a fetch) or the entry
  itself to copy there ("our startup file loads pandas" is a fact);
- **remote code**: ``exec``/``eval``/``%run``/``chmod +x``/``nohup`` together with a URL, an IP
  address or a fetch call (``requests.get``, ``urlopen``) — code that runs what it downloads;
- **credential files moved**: a credential file of the one list (``~/.ssh``, ``~/.aws``,
  ``~/.netrc``, ``~/.pypirc``, ``~/.npmrc``, ``~/.git-credentials``, ``~/.config/gh``,
  ``~/.config/gcloud``, ``~/.docker/config``, ``~/.kube/config``, private ``id_*`` keys) with a
  verb that copies, shows or sends, outside a prohibition: its contents leave the file;
- **character-code payloads**: ``chr()`` lists and ``\\x``/``\\u`` escapes decoded and scanned
  again (base64 and hex are decoded by :func:`.guard_detectors.decoded_payloads`).

An entry that only *mentions* these (a review rule, a quoted log) is read without its quoted
spans (:mod:`.guard_scope`), and protective clauses are blanked before any of them look.
"""

from __future__ import annotations

import re

from . import guard_lexicon as L
from .guard_detectors import Finding
from .guard_future import _SELF, _affirmed

_URL = r"(?:https?|ftp|git|ssh)://\S+|\bgit@[\w.-]+:\S+|\b\d{1,3}(?:\.\d{1,3}){3}\b"
_TARGET = re.compile(_URL)
_ANCHOR = re.compile(
    r"\b(?:npm|yarn|pnpm)\s+config\s+set\s+(?:@[\w-]+:)?registry\b|\bregistry\s*=\s*(?:https?|ftp)://|"
    r"\bpip3?\s+config\s+set\b|--(?:extra-)?index-url\b|\bindex-url\s*=|\b(?:pip|uv)_(?:extra_)?index_url\s*=|"
    r"\btool\.poetry\.source\b|\bpoetry\s+source\s+add\b|\bconda\s+config\s+--(?:add|append|prepend)\s+channels\b|"
    r"\bgit\s+remote\s+(?:set-url|add)\b|\binsteadof\b|\bgoproxy\s*=|"
    r"\bgit\s+push\s+(?:--\S+\s+)*(?:https?|ssh|git)://|\bgit\s+push\s+(?:--\S+\s+)*git@"
)
# ``origin`` moved to a URL in words ("set origin to https://…", "origin を https://… に set").
_ORIGIN_TO = re.compile(r"\b(?:origin|upstream|remote)\b.{0,40}(?:" + _URL + r")")
_HOOKS_OUT = re.compile(r"\bcore\.hookspath\b\S*\s*(?:=\s*|\s)?['\"]?(?:/|~|\$|https?://)")
_AUTORUN = re.compile(
    r"profile_default/startup|\.ipython/\S*startup|\.config/autostart|\.git/hooks/|\bauthorized_keys\b|"
    r"\bsitecustomize\.py\b|\busercustomize\.py\b|site-packages/\S+\.pth\b|\blaunchagents\b|"
    r"\bcrontab\s+-[el]?\s*<|\(crontab\s+-l|\bsystemctl\s+(?:--user\s+)?enable\b|/etc/rc\.local\b"
)
_RUNNER = re.compile(
    r"\bexec\s*\(|\beval\s*\(|\bexec\(\)|\beval\(\)|%run\b|\bchmod\s+\+?[0-7]*x\b|"
    r"\bnohup\b|\bsource\s+<\(|\b(?:ba)?sh\s+<\(|\bpython3?\s+<\(|\bimportlib\b.{0,40}\bimport_module\b|"
    r"\binvoke-expression\b|\biex\b"
)
# What makes a write into an autorun file an attack rather than a fact about where one lives:
# something from or to elsewhere (a URL, a server, a key, a fetch) or the entry copying itself.
_ELSEWHERE = re.compile(
    r"\bserver\w*|\bserveur\w*|\bservidor\w*|\bсервер\w*|サーバ|서버|服务器|伺服器|máy chủ|خادم|سرور|שרת|सर्वर|"
    r"\bssh\b|\bkeys?\b|\bclé\b|\bschlüssel\b|\bключ\w*|鍵|키|密钥|کلید"
)
_FETCH = re.compile(r"\brequests\.get\b|\burlopen\b|\burllib\b|\bhttpx\.get\b|\bwget\b|\bcurl\b|\bfetch\s*\(")
_CHR_LIST = re.compile(r"\bchr\s*,\s*\[\s*(\d{2,3}(?:\s*,\s*\d{2,3}){5,})\s*\]|\[\s*(\d{2,3}(?:\s*,\s*\d{2,3}){7,})\s*\]")
_ESCAPES = re.compile(r"(?:\\x[0-9a-f]{2}){6,}|(?:\\u[0-9a-f]{4}){6,}", re.IGNORECASE)


_CRED_FILE = re.compile(
    r"~/\.(?:ssh|aws|netrc|pypirc|npmrc|git-credentials|docker/config|kube/config|config/gh|config/gcloud)|"
    r"\bid_(?:rsa|ed25519|ecdsa|dsa)\b(?!\.pub)"
)
_MOVE = re.compile(L.alt(L.KEEP, L.SHOW, L.SEND))


def config_findings(flat: str) -> list[Finding]:
    """Moved trust anchors, autorun files and remote code in a normalised entry (``flat``
    with its protective clauses blanked and, for a mention, its quoted spans)."""
    out: list[Finding] = []
    target = _TARGET.search(flat)
    if (_ANCHOR.search(flat) and target) or _ORIGIN_TO.search(flat) or _HOOKS_OUT.search(flat):
        out.append(Finding("tool_abuse", "it moves where code or packages come from or go to (a package "
                                         "index, registry, git remote or hooks path set to another place)"))
    if _AUTORUN.search(flat) and (target or _FETCH.search(flat) or _ELSEWHERE.search(flat) or _SELF.search(flat)):
        out.append(Finding("persistence", "it writes into a file that runs on its own (startup file, "
                                          "autostart, git hook, authorized_keys)"))
    if _CRED_FILE.search(flat) and _affirmed(_MOVE, flat):
        out.append(Finding("exfiltration", "it copies, shows or sends a credential file (SSH, cloud, "
                                           "registry or git credentials)"))
    if _RUNNER.search(flat) and (target or _FETCH.search(flat)):
        out.append(Finding("download_exec", "it runs code fetched from the network"))
    return out


def char_payloads(nfkc: str) -> list[str]:
    """Text hidden as character codes (``chr`` lists, ``\\x``/``\\u`` escapes), decoded."""
    out = []
    for m in _CHR_LIST.finditer(nfkc):
        codes = [int(c) for c in re.findall(r"\d+", m.group(1) or m.group(2))]
        if all(32 <= c < 127 for c in codes):
            out.append("".join(map(chr, codes)))
    for m in _ESCAPES.finditer(nfkc):
        try:
            out.append(m.group().encode("ascii").decode("unicode_escape"))
        except UnicodeDecodeError:
            continue
    return out
