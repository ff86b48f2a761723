"""``%agent packages …``: external packages (git repositories of skills and CLIs) by hand.

``%agent packages`` lists what is installed (kind, commit, commands, dependency state);
``install URL [--name NAME] [--deps yes|no]``, ``update NAME [--deps yes|no]``, ``remove NAME``
and ``deps NAME`` (install its dependencies now). Without ``--deps`` a package that declares
dependencies asks once, showing the exact commands; the answer is remembered with the
manifest's hash (:mod:`orkas_nb.connectors.packages` holds the rules; this module only asks and
prints). After a change the session's tools are rebuilt, so the next run sees the commands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError

if TYPE_CHECKING:
    from ..state import NotebookState

PACKAGES_USAGE = ("%agent packages | packages install URL [--name NAME] [--deps yes|no] | "
                  "packages update NAME [--deps yes|no] | packages remove NAME | packages deps NAME")


def _options(args: list[str], allowed: set[str]) -> tuple[list[str], dict[str, str]]:
    plain: list[str] = []
    opts: dict[str, str] = {}
    it = iter(args)
    for word in it:
        if word.startswith("--"):
            key = word[2:]
            if key not in allowed:
                raise UsageError(f"unknown option {word}; usage: {PACKAGES_USAGE}")
            value = next(it, None)
            if value is None:
                raise UsageError(f"{word} needs a value; usage: {PACKAGES_USAGE}")
            opts[key] = value
        else:
            plain.append(word)
    if "deps" in opts and opts["deps"] not in ("yes", "no"):
        raise UsageError(f"--deps takes yes or no; usage: {PACKAGES_USAGE}")
    return plain, opts


def _asker(opts: dict[str, str]) -> Any:
    if "deps" in opts:
        from ...connectors.packages import install_deps_answer

        return install_deps_answer if opts["deps"] == "yes" else lambda _name, _question: False

    def ask(_name: str, question: str) -> bool | None:
        from ...harness.approval import Decision, prompt_answer

        try:
            raw = input(f"{question}\ninstall? [y/N] ")
        except (EOFError, RuntimeError):  # no stdin (a headless kernel): not installed
            print("(no answer could be asked; install them with %agent packages deps NAME, or "
                  "pass --deps yes)")
            return None
        return prompt_answer(raw) is not Decision.DENY

    return ask


def packages_command(state: NotebookState, args: list[str]) -> None:
    from ...connectors.packages import Packages
    from ...core.errors import ConfigError

    packages = Packages()
    verb = args[0] if args else "list"
    try:
        if verb == "list":
            if len(args) > 1:
                raise UsageError(f"%agent packages takes no arguments; usage: {PACKAGES_USAGE}")
            _list(packages)
            return
        if verb == "install":
            plain, opts = _options(args[1:], {"name", "deps"})
            if len(plain) != 1:
                raise UsageError(f"%agent packages install needs one URL; usage: {PACKAGES_USAGE}")
            record = packages.install(plain[0], opts.get("name"), ask_deps=_asker(opts))
            print(f"installed {record.name} ({', '.join(record.kinds)}) at {record.commit[:12]} "
                  f"into {packages.source(record.name)}")
        elif verb in ("update", "remove", "deps"):
            plain, opts = _options(args[1:], {"deps"} if verb == "update" else set())
            if len(plain) != 1:
                raise UsageError(f"%agent packages {verb} needs one package name; usage: "
                                 f"{PACKAGES_USAGE}")
            if verb == "remove":
                record = packages.remove(plain[0])
                print(f"removed {record.name} (its folder, environment and commands)")
                state.tools.clear()
                return
            record = (packages.update(plain[0], ask_deps=_asker(opts)) if verb == "update"
                      else packages.install_deps(plain[0]))
            print(f"{'updated' if verb == 'update' else 'dependencies of'} {record.name}: "
                  f"{record.commit[:12]}")
        else:
            raise UsageError(f"unknown packages subcommand {verb!r}; usage: {PACKAGES_USAGE}")
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    _details(record)
    state.tools.clear()  # the next run builds its tools with the new PATH and folders


def _details(record: Any) -> None:
    if record.relays:
        print(f"  commands (on the bash tool's PATH): {', '.join(record.relays)}")
    for folder, only in record.skill_roots:
        print(f"  skills: {', '.join(only) if only else folder}")
    deps = {"none": None, "installed": "installed in its own environment",
            "declined": "not installed (declined; %agent packages deps NAME installs them)",
            "pending": "not installed yet (%agent packages deps NAME)"}[record.deps]
    if deps:
        print(f"  dependencies: {deps}")
    for problem in record.problems:
        print(f"  note: {problem}")


def _list(packages: Any) -> None:
    found = packages.list()
    if not found:
        print(f"no external packages (install one with %agent packages install URL; they are "
              f"kept in {packages.root})")
        return
    for record in found:
        print(f"{record.name}  {', '.join(record.kinds)}  {record.commit[:12]}  {record.url}")
        _details(record)
