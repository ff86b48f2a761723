"""The words the risk grader (:mod:`.risk`) knows: program families, sensitive paths, and the
few programs that are safe only in some uses. Data only; the rules that use it live in risk.py."""

from __future__ import annotations

import re

from . import credentials
from .shell_commands import SHELLS

BLOCKED_PROGRAMS = frozenset({
    "shutdown", "reboot", "halt", "poweroff", "mkfs", "mkswap", "fdisk", "sfdisk", "parted",
    "wipefs", "insmod", "rmmod", "modprobe", "kexec", "init", "telinit", "swapoff", "swapon",
    "mount", "umount", "systemctl", "launchctl",
})
ESCALATION = frozenset({
    "sudo", "su", "doas", "pkexec", "runuser", "setpriv", "nsenter", "unshare", "chroot", "capsh",
    "setcap", "chown", "chgrp", "docker", "podman", "lxc", "machinectl", "visudo", "passwd",
    "useradd", "usermod", "adduser",
})
NET_CLIENTS = frozenset({
    "curl", "wget", "http", "https", "httpie", "xh", "nc", "ncat", "netcat", "socat", "telnet",
    "ssh", "scp", "sftp", "ftp", "rsync", "aria2c", "lynx", "w3m", "links", "mail", "sendmail",
    "mutt", "openssl",
})
RAW_NET = frozenset({"nc", "ncat", "netcat", "socat", "telnet", "ssh", "ftp", "openssl"})
INTERPRETERS = SHELLS | frozenset({
    "python", "python2", "python3", "perl", "ruby", "node", "nodejs", "deno", "bun", "php",
    "lua", "Rscript", "R", "julia", "tclsh", "osascript", "pwsh", "powershell", "awk", "gawk",
    "mawk", "nawk", "ipython", "jupyter",
})
DECODERS = frozenset({"base64", "base32", "xxd", "openssl", "uudecode", "gunzip", "zcat", "rev", "tr"})
# Programs whose effect (in degraded mode) is fully read from their path arguments.
KNOWN_EFFECT = frozenset({
    "ls", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "rg", "sort", "uniq", "cut",
    "tr", "echo", "printf", "pwd", "mkdir", "rmdir", "cp", "mv", "rm", "touch", "diff", "cmp",
    "file", "stat", "du", "df", "date", "true", "false", "test", "[", "basename", "dirname",
    "realpath", "readlink", "seq", "tee", "nl", "paste", "join", "comm", "column", "md5sum",
    "sha1sum", "sha256sum", "gzip", "gunzip", "zcat", "bzip2", "xz", "unzip", "zip", "jq",
    "whoami", "id", "uname", "hostname", "sleep", "printenv", "which", "type", "cd", "export",
    "unset", "set", "exit", "return", "shift", "local", "declare", "readonly", ":", "wait",
    "find", "tree", "less", "more", "od", "hexdump", "base64", "fold", "fmt", "expand", "split",
    "csplit", "shuf", "tac", "ln", "chmod", "env", "timeout", "nohup", "nice", "time", "xargs",
    "command", "builtin", "exec", "stdbuf", "yes", "expr", "bc", "numfmt", "iconv", "sync",
    "eval",  # its static code is parsed and graded like the rest; dynamic code is flagged
})
NO_FILES = frozenset({"echo", "printf", "true", "false", "expr", "seq", "sleep", "date", ":",
                      "export", "unset", "set", "local", "declare", "readonly", "exit", "return",
                      "yes", "bc", "numfmt", "test", "[", "eval"})
HARMLESS_DEVICES = ("/dev/null", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/zero",
                    "/dev/urandom", "/dev/random", "/dev/tty", "/dev/fd/")
# Credential locations: written down once, in credentials.py (the sandbox masks the same list).
SENSITIVE = credentials.SENSITIVE


# Read-only git subcommands run no hook; the rest can (hooks, aliases, filters).
GIT_READ_ONLY = frozenset({"status", "log", "diff", "show", "branch", "rev-parse", "ls-files",
                           "blame", "shortlog", "describe", "tag", "remote", "grep", "reflog"})
TAR_EXEC = ("--to-command", "--use-compress-program", "-I", "--checkpoint-action", "--info-script",
            "-F", "--new-volume-script", "--rsh-command", "--rmt-command")
PROTECTED_SUFFIXES = (".git/config", ".git/hooks", ".bashrc", ".bash_profile", ".profile",
                      ".zshrc", ".zprofile", ".zshenv", ".envrc", ".bash_login")
SED_RUNS = re.compile(r"(?:^|[;\n{}])\s*(?:[\d$]+|/[^/]*/)?(?:,(?:[\d$]+|/[^/]*/))?\s*[eFwWrR]\b"
                       r"|s(.)(?:(?!\1).|\\.)*\1(?:(?!\1).|\\.)*\1[gpiImM\d]*[ewW]")


__all__ = [
    "BLOCKED_PROGRAMS", "DECODERS", "ESCALATION", "GIT_READ_ONLY", "HARMLESS_DEVICES",
    "INTERPRETERS", "KNOWN_EFFECT", "NET_CLIENTS", "NO_FILES", "PROTECTED_SUFFIXES", "RAW_NET",
    "SED_RUNS", "SENSITIVE", "TAR_EXEC",
]
