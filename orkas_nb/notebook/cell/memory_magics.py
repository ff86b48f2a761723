"""``%agent kb …`` and ``%agent memory …``: the knowledge base and cross-session memory by hand.

The magics only translate words into calls of :mod:`orkas_nb.memory`; every rule (what may be
written, caps, the guard) lives there, so the model's tools and the user's magics agree.
"""

from __future__ import annotations

from pathlib import Path

from IPython.core.error import UsageError

KB_USAGE = "%agent kb add PATH | list | remove PATH | sync | search QUERY | info"
MEMORY_USAGE = ("%agent memory on | off | show | add profile|notes TEXT | forget ID | "
                "edit profile|notes [- BULLETS] | export FILE | clear [profile|notes] | "
                "judge off|doubtful|all [PROVIDER/MODEL]")


def kb_command(workspace: Path, args: list[str], rest: str, embedder: str = "auto") -> None:
    from ... import memory
    from ...agent.assembly import knowledge_base
    from ...core.errors import ConfigError
    from ...memory.embedder_choice import kind_of

    if not args:
        raise UsageError(f"a kb subcommand is needed; usage: {KB_USAGE}")
    verb, operand = args[0], rest[len(args[0]):].strip()
    if verb == "add":
        if not operand:
            raise UsageError(f"%agent kb add needs a file or folder; usage: {KB_USAGE}")
        try:
            kb = knowledge_base(workspace, embedder)
        except ConfigError as exc:
            raise UsageError(f"Agent.kb_embedder: {exc}") from None
        if kb.embedder is None and kind_of(embedder) == "auto":
            found = memory.default_embedder()  # vectors whenever the local model is installed
            if found is not None:
                kb = memory.open_knowledge_base(workspace, embedder=found)
        try:
            report = kb.add(operand)
        except FileNotFoundError as exc:
            raise UsageError(str(exc)) from None
        print(report.summary())
        print(_engine_line(kb))
    elif verb == "list":
        kb = _existing(workspace, embedder)
        rows = kb.sources()
        if not rows:
            print("the knowledge base has no sources; add some with %agent kb add PATH")
        for row in rows:
            print(f"{row.path}  ({row.kind}, {row.documents} documents, {row.chunks} chunks)")
    elif verb == "remove":
        if not operand:
            raise UsageError(f"%agent kb remove needs a source path; usage: {KB_USAGE}")
        try:
            print(_existing(workspace, embedder).remove(operand).summary())
        except KeyError:
            raise UsageError(f"{operand!r} is not a source of the knowledge base; see %agent kb list") from None
    elif verb == "sync":
        print(_existing(workspace, embedder).sync().summary())
    elif verb == "search":
        if not operand:
            raise UsageError(f"%agent kb search needs a query; usage: {KB_USAGE}")
        print(memory.format_hits(_existing(workspace, embedder).search(operand, k=5)) or "no match")
    elif verb == "info":
        kb = _existing(workspace, embedder)
        print(_engine_line(kb))
        print(", ".join(f"{k}: {v}" for k, v in kb.stats().items()))
    else:
        raise UsageError(f"unknown kb subcommand {verb!r}; usage: {KB_USAGE}")


def _existing(workspace: Path, embedder: str = "auto"):  # type: ignore[no-untyped-def]
    from ... import memory
    from ...agent.assembly import knowledge_base
    from ...core.errors import ConfigError

    if not memory.has_knowledge_base(workspace):
        raise UsageError(f"{workspace} has no knowledge base yet; start one with %agent kb add PATH")
    try:
        return knowledge_base(workspace, embedder)
    except ConfigError as exc:
        raise UsageError(f"Agent.kb_embedder: {exc}") from None


def _engine_line(kb) -> str:  # type: ignore[no-untyped-def]
    search = "hybrid (full text + vectors)" if kb.embedder is not None else (
        "full text only (pip install 'orkas_nb[embeddings]' for vectors)")
    return f"engine: {kb.engine}; search: {search}"


def memory_command(workspace: Path, args: list[str], rest: str) -> None:
    from ...memory import CrossSessionMemory

    if not args:
        raise UsageError(f"a memory subcommand is needed; usage: {MEMORY_USAGE}")
    mem = CrossSessionMemory(workspace)
    verb = args[0]
    if verb in ("on", "off"):
        mem.enable(verb == "on")
        print(f"cross-session memory is {verb} for {workspace} (from the next run)")
    elif verb == "show":
        print(mem.listing() if mem.enabled or _has_entries(mem) else "memory is off and empty")
        if _has_entries(mem):
            print("(undo any entry with %agent memory forget ID)")
        if not mem.enabled:
            print("(memory is off: %agent memory on)")
    elif verb == "forget":
        if len(args) != 2:
            raise UsageError(f"%agent memory forget needs one entry id (see %agent memory show); "
                             f"usage: {MEMORY_USAGE}")
        result = mem.forget(args[1])
        if not result.ok:
            raise UsageError(result.message)
        print(result.message)
    elif verb == "judge":
        mode = args[1] if len(args) > 1 else ""
        if mode not in ("off", "doubtful", "all") or len(args) > 3:
            raise UsageError(f"%agent memory judge takes off, doubtful or all, then an optional "
                             f"provider/model; usage: {MEMORY_USAGE}")
        mem.set_judge(mode, args[2] if len(args) > 2 else None)  # type: ignore[arg-type]
        who = args[2] if len(args) > 2 else "the agent's own model"
        print(f"memory judge: {mode}" + ("" if mode == "off" else f" ({who}, from the next run)"))
    elif verb in ("add", "edit"):
        target = args[1] if len(args) > 1 else ""
        if target not in ("profile", "notes"):
            raise UsageError(f"%agent memory {verb} needs profile or notes; usage: {MEMORY_USAGE}")
        text = rest[len(verb):].strip()[len(target):].strip()
        if verb == "edit" and not text:
            print(mem.export_target(target))
            print(f"(replace it all with: %agent memory edit {target} NEW TEXT)")
            return
        if not text:
            raise UsageError(f"%agent memory add needs text; usage: {MEMORY_USAGE}")
        result = mem.edit(target, text) if verb == "edit" else mem.add(target, text)
        print(result.message)
    elif verb == "export":
        if len(args) != 2:
            raise UsageError(f"%agent memory export needs one file name; usage: {MEMORY_USAGE}")
        path = (workspace / args[1]).resolve()
        path.write_text(mem.export(), encoding="utf-8")
        print(f"memory exported to {path}")
    elif verb == "clear":
        target = args[1] if len(args) > 1 else None
        if target not in (None, "profile", "notes"):
            raise UsageError(f"%agent memory clear takes profile or notes; usage: {MEMORY_USAGE}")
        mem.clear(target)
        print(f"cleared {target or 'profile and notes'}")
    else:
        raise UsageError(f"unknown memory subcommand {verb!r}; usage: {MEMORY_USAGE}")


def _has_entries(mem) -> bool:  # type: ignore[no-untyped-def]
    return bool(mem.entries("profile") or mem.entries("notes"))
