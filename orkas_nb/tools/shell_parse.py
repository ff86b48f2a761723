"""Parse a bash command line into the commands it would run, with a real bash grammar.

Why tree-sitter-bash rather than substring search, ``shlex`` or ``bashlex``: risk grading has
to see every command a line runs, including those inside ``$(...)``, backticks, ``<(...)``,
functions, loops, ``case`` arms and heredocs, and must know which words are quoted, expanded or
computed. ``shlex`` only splits words (it knows no ``$(...)``, pipes or heredocs); ``bashlex``
raises on ``case``, arithmetic and other constructs and has had no release since 2023.
tree-sitter-bash is the grammar editors and GitHub use, is maintained by the tree-sitter
project, parses every construct, and marks what it cannot parse (we then fail closed).

The result lists :class:`Command` objects with each word's *static value* when it can be known
(quotes removed, escapes applied, ``$VAR`` and ``~`` expanded from the environment the command
will get) or ``None`` when it is computed at run time (``$(...)``, unknown variables, braces).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from .shell_commands import Command, Redirect, Script, Word, inline_code, unwrap

MAX_DEPTH = 4


@lru_cache(maxsize=1)
def _parser() -> Any:
    import tree_sitter
    import tree_sitter_bash

    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))


def parse(source: str, env: Mapping[str, str], *, depth: int = 0) -> Script:
    """Parse ``source``; ``env`` is the environment the command will run with."""
    script = Script()
    tree = _parser().parse(source.encode("utf-8", errors="surrogateescape"))
    if tree.root_node.has_error:
        script.errors.append("the command line could not be parsed as bash")
    _Walker(script, dict(env), depth).visit(tree.root_node)
    return script


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text, flags=re.DOTALL)


_BRACES = re.compile(r"\{[^{}]*,[^{}]*\}|\{[^{}]*\.\.[^{}]*\}")


class _Walker:
    def __init__(self, script: Script, env: dict[str, str | None], depth: int) -> None:
        self.s = script
        self.env = env
        self.depth = depth

    # -- words --------------------------------------------------------------------------------

    def word(self, node: Any) -> Word:
        raw = node.text.decode("utf-8", errors="replace")
        value = self._value(node, quoted=False)
        if value is not None:
            self.s.literals.append(value)
        return Word(raw=raw, value=value)

    def _value(self, node: Any, quoted: bool) -> str | None:
        t = node.type
        text = node.text.decode("utf-8", errors="replace")
        if t == "word":
            if not quoted and _BRACES.search(text):
                return None  # brace expansion yields several words
            if text.startswith("~") and not quoted:
                home = self.env.get("HOME")
                if home is None:
                    return None
                text = home + text[1:] if text == "~" or text.startswith("~/") else text
            return _unescape(text)
        if t in ("raw_string",):
            return text[1:-1]
        if t == "number":
            return text
        if t == "string":
            parts = []
            for child in node.children:
                if child.type == '"':
                    continue
                v = self._string_part(child)
                if v is None:
                    self._collect(child)
                    return None
                parts.append(v)
            return "".join(parts)
        if t == "concatenation":
            parts = []
            dynamic = False
            for child in node.children:
                v = self._value(child, quoted)
                if v is None:
                    dynamic = True
                    self._collect(child)
                else:
                    parts.append(v)
            joined = "".join(parts)
            if not dynamic and parts and parts[0].startswith("~") and self.env.get("HOME"):
                pass  # a leading ~ was already expanded in its own word
            return None if dynamic else joined
        if t in ("simple_expansion", "expansion"):
            return self._expansion(node)
        # command/process substitution, arithmetic, ANSI-C strings, arrays: computed at run time
        self._collect(node)
        return None

    def _string_part(self, child: Any) -> str | None:
        if child.type == "string_content":
            return re.sub(r'\\([$`"\\\n])', r"\1", child.text.decode("utf-8", errors="replace"))
        if child.type in ("simple_expansion", "expansion"):
            return self._expansion(child)
        return None

    def _expansion(self, node: Any) -> str | None:
        names = [c for c in node.children if c.type == "variable_name"]
        plain = len(node.children) == 2 or (
            node.type == "expansion" and len(node.children) == 3 and names
        )
        if not names or not plain:
            return None  # ${x:-y}, ${#x}, $1, $@, $$: not statically known
        name = names[0].text.decode()
        return self.env.get(name) if name in self.env else None

    def _collect(self, node: Any) -> None:
        """Visit commands nested in a dynamic word ($(...), <(...), arithmetic)."""
        for child in node.children:
            self.visit(child)

    # -- statements ---------------------------------------------------------------------------

    def visit(self, node: Any) -> Command | None:
        """Visit a node; returns the command it stands for (for pipelines), if any."""
        t = node.type
        if t == "ERROR":
            self.s.errors.append("the command line has a syntax error")
        if t == "command":
            cmd = self.command(node)
            self.s.commands.append(cmd)
            return cmd
        if t == "pipeline":
            self.pipeline(node)
            return None
        if t == "redirected_statement":
            return self.redirected(node)
        if t == "variable_assignment":
            self.assignment(node)
            return None
        if t == "function_definition":
            self.function(node)
            return None
        if t == "for_statement":
            for child in node.children:
                if child.type == "variable_name":
                    self.env[child.text.decode()] = None  # its value changes at run time
        if t in ("word", "string", "raw_string", "concatenation", "simple_expansion", "expansion"):
            self.word(node)
            return None
        found = None
        for child in node.children:
            got = self.visit(child)
            if t == "negated_command" and got is not None:
                found = got
        return found

    def assignment(self, node: Any) -> None:
        name = node.children[0].text.decode() if node.children else ""
        value_nodes = node.children[2:]
        value: str | None = ""
        for v in value_nodes:
            got = self.word(v).value
            value = None if got is None or value is None else value + got
        if name:
            self.env[name] = value

    def function(self, node: Any) -> None:
        name_node = next((c for c in node.children if c.type == "word"), None)
        before = len(self.s.commands)
        for child in node.children:
            if child.type not in ("word",):
                self.visit(child)
        if name_node is not None:
            called = [c.program or "" for c in self.s.commands[before:]]
            self.s.functions[name_node.text.decode()] = called

    def redirected(self, node: Any) -> Command | None:
        body = [c for c in node.children if not c.type.endswith("_redirect")]
        redirects = [self.redirect(c) for c in node.children if c.type.endswith("_redirect")]
        target = None
        for b in body:
            got = self.visit(b)
            target = target or got
        for r in redirects:
            self.s.redirects.append(r)
            if target is not None:
                target.redirects.append(r)
                if r.op in ("<<", "<<-", "<<<", "<"):
                    target.stdin_fed = True
        if target is not None and target.stdin_fed:
            self._nested_code(target)  # sh <<EOF … EOF: the heredoc is the code
        return target

    def redirect(self, node: Any) -> Redirect:
        op = ""
        target: Word | None = None
        body: str | None = None
        for child in node.children:
            if child.type in ("<<", "<<-", "<<<", ">", ">>", "<", "&>", "&>>", ">&", "<&", ">|", "<>"):
                op = child.type
            elif child.type == "heredoc_body":
                body = child.text.decode("utf-8", errors="replace")
                self.s.literals.append(body)
                if any(c.type != "heredoc_content" for c in child.children):
                    body = None  # it expands $(...) or variables: computed
                    self._collect(child)
            elif child.type in ("heredoc_start", "heredoc_end", "file_descriptor"):
                continue
            elif child.type in ("word", "string", "raw_string", "concatenation", "number",
                                "simple_expansion", "expansion", "command_substitution",
                                "process_substitution", "ansi_c_string"):
                w = self.word(child)
                if op == "<<<":
                    body = w.value
                else:
                    target = w
        return Redirect(op=op, target=target, body=body)

    def pipeline(self, node: Any) -> None:
        members: list[Command] = []
        for child in node.children:
            if child.type in ("|", "|&"):
                continue
            got = self.visit(child)
            if got is not None:
                members.append(got)
        for i, c in enumerate(members):
            c.pipeline = members
            c.position = i
            if i > 0:
                c.stdin_fed = True

    def command(self, node: Any) -> Command:
        name: Word | None = None
        args: list[Word] = []
        saved = dict(self.env)
        prefixed = False
        for child in node.children:
            if child.type == "variable_assignment":
                self.assignment(child)  # VAR=x cmd: visible to cmd only, restored below
                prefixed = True
            elif child.type == "command_name":
                name = self.word(child.children[0]) if child.children else Word("", None)
            elif child.type.endswith("_redirect"):
                continue
            else:
                args.append(self.word(child))
        cmd = Command(name=name or Word("", ""), args=args)
        for child in node.children:
            if child.type.endswith("_redirect"):
                r = self.redirect(child)
                cmd.redirects.append(r)
                self.s.redirects.append(r)
                if r.op in ("<<", "<<-", "<<<", "<"):
                    cmd.stdin_fed = True
        if name is not None:
            self._nested(cmd)
        if prefixed:
            self.env = saved
        return cmd

    # -- commands inside commands -------------------------------------------------------------

    def _nested(self, cmd: Command) -> None:
        """Add the commands a wrapper runs (env X=1 rm, xargs rm, find -exec rm, sh -c '…')."""
        inner = unwrap(cmd)
        if inner is not None:
            self.s.commands.append(inner)
            self._nested(inner)
        self._nested_code(cmd)

    def _nested_code(self, cmd: Command) -> None:
        code = inline_code(cmd)
        if code is None or getattr(cmd, "_parsed_code", None) == code:
            return
        cmd._parsed_code = code  # type: ignore[attr-defined]
        if self.depth >= MAX_DEPTH:
            self.s.errors.append("the command nests shells too deeply to be checked")
            return
        sub = parse(code, {k: v for k, v in self.env.items() if v is not None}, depth=self.depth + 1)
        for c in sub.commands:
            c.via = c.via or f"{cmd.program} -c"
        self.s.commands.extend(sub.commands)
        self.s.literals.extend(sub.literals)
        self.s.errors.extend(sub.errors)
        self.s.functions.update(sub.functions)
        self.s.redirects.extend(sub.redirects)
