"""The commands a parsed bash line would run, and what wrappers run inside them.

:mod:`shell_parse` fills these from the syntax tree; this module knows the wrappers that run
another command (``env``, ``timeout``, ``xargs``, ``find -exec``, ``sudo``…) and the commands
that run shell code given as text (``sh -c``, ``eval``, ``alias``), so the grader sees through
them.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

WRAPPERS_SIMPLE = frozenset({
    "nohup", "time", "command", "builtin", "exec", "nice", "ionice", "setsid", "stdbuf",
    "unbuffer", "chrt", "taskset", "doas", "sudo", "strace", "ltrace", "caffeinate", "then",
})
SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox", "fish"})


@dataclass
class Word:
    raw: str
    value: str | None  # None: computed at run time, cannot be known before

    @property
    def dynamic(self) -> bool:
        return self.value is None


@dataclass
class Redirect:
    op: str
    target: Word | None  # None for heredocs
    body: str | None = None  # heredoc/herestring text when static


@dataclass
class Command:
    name: Word
    args: list[Word]
    redirects: list[Redirect] = field(default_factory=list)
    stdin_fed: bool = False  # receives a pipe, a heredoc or a here-string
    pipeline: list[Command] | None = None  # the pipeline it belongs to, in order
    position: int = 0  # its index in that pipeline
    via: str = ""  # the wrapper that ran it (env, xargs, find -exec, sh -c …)
    outer: Command | None = None  # that wrapper's command

    def fed(self) -> bool:
        """Whether it reads a pipe, heredoc or here-string (directly or through its wrapper)."""
        return self.stdin_fed or (self.outer is not None and self.outer.fed())

    def upstream(self) -> list[Command]:
        """The commands before it in its pipeline (through its wrapper)."""
        top = self
        while top.outer is not None:
            top = top.outer
        if top.pipeline is None:
            return []
        return top.pipeline[: top.position]

    @property
    def program(self) -> str | None:
        """The program's base name (``/usr/bin/rm`` → ``rm``), or None if computed."""
        if self.name.value is None:
            return None
        return os.path.basename(self.name.value)

    def static_args(self) -> list[str]:
        return [a.value for a in self.args if a.value is not None]


@dataclass
class Script:
    commands: list[Command] = field(default_factory=list)
    literals: list[str] = field(default_factory=list)  # every static text, heredocs included
    functions: dict[str, list[str]] = field(default_factory=dict)  # name -> programs it calls
    errors: list[str] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)


def inline_code(cmd: Command) -> str | None:
    """The static shell code a command runs from an argument (``sh -c``, ``eval``, ``alias``)."""
    prog = cmd.program
    values = [a.value for a in cmd.args]
    if prog in SHELLS or prog == "su":
        for i, v in enumerate(values):
            if v is not None and v.startswith("-") and "c" in v.lstrip("-") and not v.startswith("--"):
                if i + 1 < len(values):
                    return values[i + 1] if values[i + 1] is not None else ""
        if prog in SHELLS and cmd.stdin_fed:
            bodies = [r.body for r in cmd.redirects if r.body is not None]
            if bodies:
                return "\n".join(bodies)
    if prog == "eval":
        return " ".join(v for v in values if v is not None)
    if prog == "alias":
        return "\n".join(v.split("=", 1)[1] for v in values if v and "=" in v)
    if prog in ("watch",):
        rest = [v for v in values if v is not None and not v.startswith("-")]
        return " ".join(rest) if rest else None
    return None


def _rest(cmd: Command, start: int, via: str) -> Command | None:
    if start >= len(cmd.args):
        return None
    inner = Command(name=cmd.args[start], args=cmd.args[start + 1:], redirects=cmd.redirects,
                    via=via, outer=cmd)
    return inner


def unwrap(cmd: Command) -> Command | None:
    """The command a wrapper runs, if ``cmd`` is a wrapper (env, timeout, xargs, find -exec…)."""
    prog = cmd.program
    args = cmd.args
    if prog in WRAPPERS_SIMPLE:
        i = 0
        while i < len(args) and (args[i].value or "").startswith("-"):
            opt = args[i].value or ""
            i += 2 if prog in ("sudo", "nice", "ionice", "chrt", "taskset", "stdbuf") and opt in (
                "-u", "-g", "-n", "-c", "-p", "-o", "-e", "-i", "-C") else 1
        if prog == "taskset" and i < len(args):
            i += 1  # the CPU mask
        if prog == "chrt" and i < len(args):
            i += 1  # the priority
        return _rest(cmd, i, prog or "")
    if prog == "env":
        i = 0
        while i < len(args):
            v = args[i].value
            if v is None:
                return _rest(cmd, i, "env")
            if v in ("-u", "--unset", "-C", "--chdir", "-S", "--split-string"):
                if v in ("-S", "--split-string") and i + 1 < len(args):
                    return _split_string(cmd, args[i + 1], "env -S")
                i += 2
            elif v.startswith("-") or re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", v):
                i += 1
            else:
                break
        return _rest(cmd, i, "env")
    if prog in ("timeout", "gtimeout"):
        i = 0
        while i < len(args) and (args[i].value or "").startswith("-"):
            i += 2 if args[i].value in ("-s", "--signal", "-k", "--kill-after") else 1
        return _rest(cmd, i + 1, "timeout")
    if prog == "xargs":
        i = 0
        with_value = {"-I", "-n", "-P", "-d", "-L", "-s", "-a", "-E", "--max-args", "--delimiter",
                      "--arg-file", "--max-procs", "--replace", "--max-lines", "--max-chars"}
        while i < len(args) and (args[i].value or "").startswith("-"):
            i += 2 if args[i].value in with_value else 1
        inner = _rest(cmd, i, "xargs")
        if inner is None:
            inner = Command(name=Word("echo", "echo"), args=[], via="xargs", outer=cmd)
        inner.args = inner.args + [Word("(from input)", None)]  # xargs appends input words
        return inner
    if prog in ("find", "fd"):
        for i, a in enumerate(args):
            if a.value in ("-exec", "-execdir", "-ok", "-okdir", "-x", "--exec", "-X", "--exec-batch"):
                end = next((j for j in range(i + 1, len(args)) if args[j].value in (";", "+")),
                           len(args))
                sub = Command(name=args[i + 1], args=args[i + 2:end], via="find -exec",
                              outer=cmd) if i + 1 < end else None
                return sub
    return None


def _split_string(cmd: Command, word: Word, via: str) -> Command | None:
    if word.value is None:
        return Command(name=Word(word.raw, None), args=[], via=via, outer=cmd)
    import shlex

    try:
        parts = shlex.split(word.value)
    except ValueError:
        return Command(name=Word(word.raw, None), args=[], via=via, outer=cmd)
    if not parts:
        return None
    return Command(name=Word(parts[0], parts[0]), args=[Word(p, p) for p in parts[1:]], via=via,
                   outer=cmd)
