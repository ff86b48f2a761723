"""Risk grading of bash commands before they run.

Each command the parsed line would run (see :mod:`shell_parse`) is checked against rules that
yield findings: a *category* (what kind of risk), a *reason* written for the user and the model,
and whether it is *blocked* (never run, whatever the approver says). Risky findings go to the
approver; blocked ones are refused outright.

Some rules depend on the mode. With OS isolation (bubblewrap) the sandbox already confines what
no parser can see (``python3 -c``, ``awk``, paths built at run time), so only the risks the
sandbox does not remove are graded. Without isolation (degraded mode) the grader must stand in
for it: every path that leaves the workspace, every program whose effect cannot be read from
its arguments, and every network client needs approval.
"""

from __future__ import annotations

import ipaddress
import os
import re
import socket
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from .paths import PathPolicy, fold, is_secret_name
from .risk_vocabulary import (
    BLOCKED_PROGRAMS, DECODERS, ESCALATION, GIT_READ_ONLY, HARMLESS_DEVICES, INTERPRETERS,
    KNOWN_EFFECT, NET_CLIENTS, NO_FILES, PROTECTED_SUFFIXES, RAW_NET, SED_RUNS, SENSITIVE, TAR_EXEC,
)
from .shell_commands import SHELLS, Command
from .shell_parse import parse


@dataclass(frozen=True)
class Finding:
    category: str
    reason: str
    blocked: bool = False


@dataclass
class Grade:
    findings: list[Finding] = field(default_factory=list)

    @property
    def blocked(self) -> list[Finding]:
        return [f for f in self.findings if f.blocked]

    @property
    def risky(self) -> list[Finding]:
        return [f for f in self.findings if not f.blocked]

    @property
    def categories(self) -> list[str]:
        return sorted({f.category for f in self.findings})

    def add(self, category: str, reason: str, blocked: bool = False) -> None:
        f = Finding(category, reason, blocked)
        if f not in self.findings:
            self.findings.append(f)


@dataclass
class Context:
    policy: PathPolicy
    env: Mapping[str, str]
    cwd: Path
    isolated: bool
    network: bool
    kernel_pids: tuple[int, ...] = ()

    @property
    def net_reachable(self) -> bool:
        return self.network or not self.isolated


def grade(command: str, ctx: Context) -> Grade:
    """Grade one bash command line; see the module docstring."""
    g = Grade()
    script = parse(command, dict(ctx.env))
    if script.errors:
        g.add("unparseable", f"{script.errors[0]}, so what it would run cannot be checked")
    for name, called in script.functions.items():
        if name in called:
            g.add("blocked", f"function {name!r} calls itself (a fork bomb)", blocked=True)
    for literal in script.literals:
        _sensitive(literal, g, ctx)
    for cmd in script.commands:
        _command(cmd, ctx, g)
    for r in script.redirects:
        _redirect_target(r.target.value if r.target else None, r.op, ctx, g, r.target is not None)
    return g


def _sensitive(text: str, g: Grade, ctx: Context) -> None:
    m = SENSITIVE.search(text)
    if m and _granted_skill_file(text, ctx):
        if not ctx.isolated:  # not a credential, but nothing would keep the command off it
            g.add("skill_file", f"it names a file of a skill folder ({text}), which only the "
                  "sandbox keeps read-only")
            return
        m = None  # a skill's own file, bound read-only for it (tools.paths: read-only roots)
    where = m.group(0).strip(" '\"=:") if m else _credential_target(text, ctx)
    if where:
        if ctx.isolated:
            # Hidden in the sandbox whatever the answer; asking keeps the user informed.
            g.add("credential_path", f"it names a credential or state location ({where}), which "
                  "the sandbox hides")
        else:
            g.add("credential_path", f"it names a credential or state location ({where}); without "
                  "isolation such commands are never run (credential folders cannot be allowed)",
                  blocked=True)
        return
    for part in re.split(r"[\s/'\"=:;|&<>()]+", text):
        if part and is_secret_name(part):
            g.add("sensitive_path", f"it names a secret file ({part})")
            return


def _granted_skill_file(text: str, ctx: Context) -> bool:
    """Whether the word is a path, in a read-only root the host granted (a skill folder in the
    workspace's .orkas), that the file tools would read: the sandbox shows it as it is."""
    if not ctx.policy.readonly_roots or "\n" in text or "\x00" in text or len(text) > 4096:
        return False
    p = _resolve(text, ctx)
    if p is None or ctx.policy.readonly_root_of(p) is None:
        return False
    try:
        ctx.policy.check(str(p))
    except Exception:  # noqa: BLE001 - refused for any reason: the word stays sensitive
        return False
    return True


def _credential_target(text: str, ctx: Context) -> str | None:
    """The credential location a path-like word really points to (through symlinks), if any:
    ``cat link`` where link -> ~/.cargo/credentials.toml is a read of the credential."""
    if not text.strip() or "\x00" in text or "\n" in text or len(text) > 4096:
        return None
    p = _resolve(text, ctx)
    hit = ctx.policy.credential_of(p) if p is not None else None
    return f"{text} -> {hit}" if hit is not None else None


def _command(cmd: Command, ctx: Context, g: Grade) -> None:
    prog = cmd.program
    args = cmd.static_args()
    if prog is None:
        if not ctx.isolated:
            g.add("unconfined_code", "the program to run is computed at run time, so it cannot be checked")
        return
    if not prog:
        return
    if prog in BLOCKED_PROGRAMS or prog.startswith("mkfs."):
        g.add("blocked", f"{prog} changes the machine itself; the agent never runs it", blocked=True)
    if prog in ("kill", "pkill", "killall"):
        _kill(cmd, ctx, g)
    if prog in ESCALATION or (prog == "chmod" and _setuid(args)):
        g.add("privilege_escalation", f"{prog} can change privileges or ownership")
    if prog == "dd" and any(a.startswith("of=/dev/") for a in args):
        g.add("blocked", "dd onto a device would overwrite a disk", blocked=True)
    _delete(cmd, prog, args, ctx, g)
    _code_from_stdin(cmd, prog, g)
    if prog in ("eval", "source", ".") and any(a.dynamic for a in cmd.args):
        g.add("obfuscated_code", f"{prog} runs code computed at run time, which cannot be checked")
    if ctx.net_reachable:
        _network(cmd, prog, args, ctx, g)
    if not ctx.isolated:
        _degraded(cmd, prog, ctx, g)


def _setuid(args: list[str]) -> bool:
    modes = [a for a in args if not a.startswith("-")][:1]
    return any(re.fullmatch(r"[0-7]?[2-7][0-7]{3}", m) and m[-4] in "234567" or
               re.search(r"[ugoa]*[+=][rwxXt]*s", m) for m in modes)


def _kill(cmd: Command, ctx: Context, g: Grade) -> None:
    targets = [a for a in cmd.static_args() if not a.startswith("-") or a == "-1"]
    for t in targets:
        if t in ("-1", "1") or (t.isdigit() and int(t) in ctx.kernel_pids):
            g.add("blocked", "it would signal every process or the kernel itself", blocked=True)
    if not ctx.isolated and cmd.program in ("pkill", "killall"):
        g.add("process_kill", f"{cmd.program} matches processes by name and could stop the kernel")


def _delete(cmd: Command, prog: str, args: list[str], ctx: Context, g: Grade) -> None:
    recursive = False
    if prog == "rm":
        flags = "".join(a[1:] for a in args if a.startswith("-") and not a.startswith("--"))
        recursive = "r" in flags.lower() or "--recursive" in args
        targets = [a for a in args if not a.startswith("-")]
        dynamic = any(a.dynamic for a in cmd.args)
        for t in targets:
            p = _resolve(t, ctx)
            if p is not None and (p == Path("/") or p == ctx.policy.home or p.parent == Path("/")):
                g.add("blocked", f"rm of {p} would destroy the system or the home folder", blocked=True)
            elif p is not None and p in ctx.policy.roots and recursive:
                g.add("destructive_delete", f"it deletes the whole folder {p}")
        if recursive or any(("*" in t or "?" in t) for t in targets) or (dynamic and recursive):
            g.add("destructive_delete", "rm removes several files at once (recursive or glob)")
    elif prog == "find" and ("-delete" in args):
        g.add("destructive_delete", "find -delete removes every match")
    elif prog == "git" and args[:1] == ["clean"] and any(a.startswith("-") and "f" in a for a in args):
        g.add("destructive_delete", "git clean -f deletes untracked files")
    elif prog == "git" and args[:1] == ["reset"] and "--hard" in args:
        g.add("destructive_delete", "git reset --hard discards uncommitted work")
    elif prog in ("shred", "wipe", "srm"):
        g.add("destructive_delete", f"{prog} destroys file contents")
    elif prog == "rsync" and any(a.startswith("--delete") for a in args):
        g.add("destructive_delete", "rsync --delete removes files at the destination")


def _code_from_stdin(cmd: Command, prog: str, g: Grade) -> None:
    if prog not in INTERPRETERS or not cmd.fed():
        return
    script_args = [a for a in cmd.args if a.value is None or not a.value.startswith("-")]
    if script_args and prog not in SHELLS and script_args[0].value != "-":
        return  # python3 script.py < data.csv: stdin is data, not code
    upstream = cmd.upstream()
    names = {u.program for u in upstream}
    if any(n in ("curl", "wget", "aria2c") for n in names):
        g.add("download_execute", f"it pipes a download into {prog}")
    elif any(n in DECODERS for n in names) or any(u.program is None for u in upstream):
        g.add("obfuscated_code", f"it decodes text and runs it with {prog}, hiding what runs")
    elif prog in SHELLS and not upstream and all(r.body is not None for r in cmd.redirects if r.op in ("<<", "<<<", "<<-")):
        return  # a static heredoc: already parsed and graded as commands
    elif upstream or any(r.body is None and r.op in ("<<", "<<<", "<<-") for r in cmd.redirects):
        g.add("obfuscated_code", f"{prog} runs code computed at run time, which cannot be checked")
    if prog in SHELLS and any(a.dynamic for a in cmd.args):
        g.add("obfuscated_code", "it runs code computed at run time")


def _network(cmd: Command, prog: str, args: list[str], ctx: Context, g: Grade) -> None:
    if prog not in NET_CLIENTS and not (prog == "git" and args[:1] in (["push"], ["send-email"])):
        return
    for a in args:
        host = _host_of(a)
        if host and _is_local(host):
            g.add("network_local", f"{prog} would reach a local service ({host}), such as the "
                  "Jupyter server, which holds the user's notebooks")
    upload = {"-d", "--data", "--data-binary", "--data-raw", "--data-urlencode", "-F", "--form",
              "-T", "--upload-file", "--json", "--post-data", "--post-file", "--body-data",
              "--body-file"}
    if prog in RAW_NET or prog in ("scp", "sftp", "mail", "sendmail", "mutt") or prog == "git" or (
        prog == "rsync" and any(":" in a and not a.startswith("-") for a in args)
    ) or any(a.split("=")[0] in upload for a in args) or any(
        a in ("-X", "--request", "--method") and i + 1 < len(args) and args[i + 1].upper() in ("POST", "PUT", "PATCH")
        for i, a in enumerate(args)
    ) or (cmd.fed() and prog in ("curl", "wget")):
        g.add("exfiltration", f"{prog} can send local data over the network")
    if not ctx.isolated:
        g.add("network", f"{prog} uses the network, which cannot be confined without isolation")


def _host_of(arg: str) -> str | None:
    if "://" in arg:
        try:
            return urlsplit(arg).hostname
        except ValueError:
            return None
    m = re.match(r"^(?:[\w.-]+@)?(\[[0-9a-fA-F:.]+\]|[\w.-]+):\d+", arg)
    if m:
        return m.group(1).strip("[]")
    if arg.isdigit():
        return arg if int(arg) > 65535 else None  # 2130706433 is an address; 80 is a port
    if re.match(r"^(localhost|[\d.]+|\[?[0-9a-fA-F:]+\]?)$", arg) and ("." in arg or ":" in arg or arg == "localhost"):
        return arg.strip("[]")
    return None


def _is_local(host: str) -> bool:
    h = host.lower().rstrip(".")
    if h == "localhost" or h.endswith(".localhost") or h in ("0", "0.0.0.0", "::", "::1"):
        return True
    try:
        ip = ipaddress.ip_address(h)
    except ValueError:
        try:
            ip = ipaddress.ip_address(socket.inet_aton(h))  # 127.1, 0x7f.1, 2130706433
        except (OSError, ValueError):
            return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:
        ip = ip.ipv4_mapped
    return ip.is_loopback or ip.is_private or ip.is_link_local or ip.is_unspecified or ip.is_reserved


def _redirect_target(value: str | None, op: str, ctx: Context, g: Grade, has_target: bool) -> None:
    if not has_target or op in ("<<", "<<<", "<<-", ">&", "<&"):
        return
    if value is None:
        if not ctx.isolated:
            g.add("outside_workspace", "a redirection goes to a file computed at run time")
        return
    if value.startswith(("/dev/tcp/", "/dev/udp/")):
        if ctx.net_reachable:
            g.add("exfiltration", "a redirection opens a raw network connection (/dev/tcp)")
            host = value.split("/")[3] if value.count("/") >= 3 else ""
            if host and _is_local(host):
                g.add("network_local", f"a redirection reaches a local service ({host})")
        return
    if not ctx.isolated:
        _outside(value, ctx, g, "a redirection")


def _resolve(word: str, ctx: Context) -> Path | None:
    try:
        w = os.path.expanduser(word) if word.startswith("~") else word
        return (ctx.cwd / w).resolve()
    except (OSError, ValueError, RuntimeError):
        return None


def _outside(word: str, ctx: Context, g: Grade, what: str) -> None:
    if word.startswith(HARMLESS_DEVICES):
        return
    folded = fold(word).rstrip("/")
    if folded.endswith(PROTECTED_SUFFIXES) or ".git/hooks/" in folded:
        g.add("protected_path", f"{what} touches {word}, which git or your shell would run outside "
              "any sandbox")
    candidates: Iterable[str] = [word]
    if any(ch in word for ch in "*?["):
        import glob

        base = word if os.path.isabs(word) else str(ctx.cwd / word)
        found = glob.glob(os.path.expanduser(base))
        candidates = found or [word.split("*")[0].split("?")[0].split("[")[0] or "."]
    for c in candidates:
        p = _resolve(c, ctx)
        if p is None or ctx.policy.writable_root_of(p) is None:
            g.add("outside_workspace", f"{what} reaches {p or c}, outside the workspace")
            return
        if any(fold(part) == ".orkas" for part in p.parts):
            g.add("sensitive_path", f"{what} reaches the agent's state folder (.orkas)")
            return
        try:
            st = os.lstat(p)
        except OSError:
            continue
        if st.st_nlink > 1 and not os.path.isdir(p):
            g.add("outside_workspace", f"{what} touches {p.name}, which has several hard links and "
                  "may be a file outside the workspace under another name")
            return


def _degraded(cmd: Command, prog: str, ctx: Context, g: Grade) -> None:
    """Without isolation the grader is the only guard: paths, unknown programs, dynamic args."""
    name = cmd.name.value or ""
    if "/" in name:
        p = _resolve(name, ctx)
        if p is not None and ctx.policy.writable_root_of(p) is not None:
            g.add("unconfined_code", f"it runs a program from the workspace ({name}), which cannot "
                  "be confined without isolation")
            return
    runs_code = _runs_code(prog, cmd.static_args(), cmd)
    if prog not in KNOWN_EFFECT and not _known_variant(prog, cmd.static_args()) or runs_code:
        g.add("unconfined_code", f"{prog} can run arbitrary code or touch any file, which cannot be "
              "confined without isolation")
        return
    if prog in NO_FILES:
        return
    operands = [a for a in cmd.args if a.value is not None and not a.value.startswith("-")]
    for a in cmd.args:
        if a.value is None:
            g.add("outside_workspace", f"an argument of {prog} is computed at run time, so the files "
                  "it touches cannot be checked")
            return
        v = a.value
        if v.startswith("-") and "=" in v:
            v = v.split("=", 1)[1]
        elif v.startswith("-"):
            continue
        if prog in ("grep", "egrep", "fgrep", "rg", "sed") and operands and a is operands[0]:
            continue  # the pattern or script, not a path
        if prog == "git" and operands and a is operands[0]:
            continue  # the subcommand
        _outside(v, ctx, g, f"{prog}")


def _known_variant(prog: str, args: list[str]) -> bool:
    """Programs known only in some uses: read-only git, tar without exec hooks, plain sed."""
    if prog == "git":
        sub = next((a for a in args if not a.startswith("-")), "")
        return sub in GIT_READ_ONLY and not any(a == "-c" or a.startswith(("--exec-path", "-c")) for a in args)
    return prog in ("tar", "sed")


def _runs_code(prog: str, args: list[str], cmd: Command) -> bool:
    if prog == "tar":
        return any(a.split("=")[0] in TAR_EXEC for a in args)
    if prog == "sed":
        if any(a in ("-f", "--file") or a.startswith("--file=") for a in args):
            return True  # the script is in a file the grader cannot read
        scripts = [a for a in args if not a.startswith("-")][:1]
        scripts += [args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-e", "--expression")]
        return any(SED_RUNS.search(sc) for sc in scripts)
    return False
