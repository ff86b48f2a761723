"""``%agent mcp …``: the user's MCP servers, by hand.

- ``%agent mcp add NAME [--user] COMMAND [ARG ...] [--env K=V ...]``: a local server;
  ``%agent mcp add NAME [--user] URL [--header K=V ...]``: a remote one (streamable HTTP);
  ``%agent mcp add NAME [--user] {JSON}``: an entry pasted from another host (``mcpServers``
  shape, a whole ``{"mcpServers": …}`` block included), or ``$var``, a notebook variable holding
  one (a dict or its JSON). Values are sealed at once (only
  references reach the file); ``--user`` writes the user's file instead of the workspace's.
- ``%agent mcp list``: every server, where it is configured, and whether it is approved.
- ``%agent mcp test NAME [--yes]``: shows the exact launch, asks (``--yes``: the line itself is
  the approval), starts it and lists its tools; asks again when its tools changed.
- ``%agent mcp tools [NAME]``: the tools of the approved servers, as the model sees them.
- ``%agent mcp allow NAME [AGENT]``: calls from AGENT (default ``agent``) no longer ask.
- ``%agent mcp remove NAME``: drops the entry, its sealed values and its approvals; stops it.

The rules live in :mod:`orkas_nb.connectors`; these magics parse, ask and print.
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING, Any

from IPython.core.error import UsageError

if TYPE_CHECKING:
    from ..state import NotebookState

MCP_USAGE = ("%agent mcp add NAME [--user] (COMMAND [ARG ...] [--env K=V] | URL [--header K=V] "
             "| {JSON} | $VAR) | list | test NAME [--yes] | tools [NAME] | allow NAME [AGENT] | remove NAME")


def mcp_command(state: NotebookState, rest: str) -> None:
    from ...core.errors import OrkasError

    words = rest.split(None, 1)
    verb, tail = (words[0], words[1] if len(words) > 1 else "") if words else ("", "")
    handler = _VERBS.get(verb)
    if handler is None:
        raise UsageError(f"%agent mcp needs a subcommand; usage: {MCP_USAGE}")
    try:
        handler(state, tail.strip())
    except OrkasError as exc:
        raise UsageError(str(exc)) from None


def _forget_tools(state: NotebookState) -> None:
    state.tools.clear()  # the kept tools of each session are built again with the servers
    state.tool_notices.clear()


def _add(state: NotebookState, tail: str) -> None:
    from ...connectors import config as cfg

    name, _, spec = tail.partition(" ")
    spec = spec.strip()
    if not name or not spec:
        raise UsageError(f"%agent mcp add needs a name and a server; usage: {MCP_USAGE}")
    user = spec.startswith("--user")
    spec = spec.removeprefix("--user").strip()
    if spec.startswith("$"):  # an entry (dict or JSON text) held by a notebook variable
        held = state.shell.user_ns.get(spec[1:].strip(), None)
        if not isinstance(held, (dict, str)):
            raise UsageError(f"{spec} is not a dict or JSON text in the notebook")
        entry = cfg.parse_entry(name, held)
    elif spec.startswith("{"):
        entry = cfg.parse_entry(name, spec)
    else:
        entry = cfg.parse_entry(name, _entry_from_words(shlex.split(spec)))
    path = cfg.save(state.workspace, name, entry, user=user)
    _forget_tools(state)
    server = cfg.load(state.workspace)[name]
    print(f"added {name!r} to {path} (values sealed; the file keeps references only)")
    print(f"  it would {server.describe()}")
    print(f"  nothing runs until you approve it: %agent mcp test {name}")


def _entry_from_words(words: list[str]) -> dict[str, Any]:
    entry: dict[str, Any] = {}
    pairs = {"--env": "env", "--header": "headers"}
    rest: list[str] = []
    i = 0
    while i < len(words):
        if words[i] in pairs and i + 1 < len(words):
            key, sep, value = words[i + 1].partition("=")
            if not sep or not key:
                raise UsageError(f"{words[i]} takes KEY=VALUE, not {words[i + 1]!r}")
            entry.setdefault(pairs[words[i]], {})[key] = value
            i += 2
            continue
        rest.append(words[i])
        i += 1
    if not rest:
        raise UsageError(f"a command or a URL is needed; usage: {MCP_USAGE}")
    if rest[0].startswith(("http://", "https://")):
        entry["url"] = rest[0]
    else:
        entry["command"], entry["args"] = rest[0], rest[1:]
    return entry


def _list(state: NotebookState, tail: str) -> None:
    from ...connectors import config as cfg
    from ...connectors.consent import ConsentStore

    servers = cfg.load(state.workspace)
    if not servers:
        print(f"no MCP servers ({cfg.workspace_file(state.workspace)} or {cfg.user_file()}); "
              "add one with %agent mcp add NAME COMMAND ...")
        return
    consent = ConsentStore()
    for name, server in servers.items():
        state_text = "disabled" if server.disabled else (
            "approved" if consent.record(server) else "not approved")
        print(f"{name}  ({server.scope}, {state_text}): {server.describe()}")


def _test(state: NotebookState, tail: str) -> None:
    from ...connectors.asking import review

    words = shlex.split(tail)
    yes = "--yes" in words
    names = [w for w in words if w != "--yes"]
    if len(names) != 1:
        raise UsageError(f"%agent mcp test needs one server name; usage: {MCP_USAGE}")
    seen = review(state.workspace, names[0], _line_approver(state) if not yes else _approved)
    _forget_tools(state)
    print(seen.message)
    for t in seen.tools:
        print(f"  {t.name}: {(t.description or '').strip().splitlines()[0] if t.description else ''}")


def _approved(request: Any) -> str:
    return "once"  # ``--yes``: the user approved by typing the line


def _line_approver(state: NotebookState) -> Any:
    """Asks at the prompt (the same text as a risky command's) where the front end answers
    ``input()``; elsewhere refuses, saying how to approve."""
    from ...harness.approval import prompt_answer, prompt_text

    kernel = getattr(state.shell, "kernel", None)
    can_ask = kernel is None or bool(getattr(kernel, "_allow_stdin", False))

    def approver(request: Any) -> Any:
        if not can_ask:
            print(f"cannot ask here: {request.subject}\n  run %agent mcp test NAME --yes "
                  "to approve what is shown")
            return "deny"
        try:
            return prompt_answer(input(prompt_text(request)))
        except Exception:  # noqa: BLE001 - StdinNotImplementedError: nobody to ask
            return "deny"

    return approver


def _tools(state: NotebookState, tail: str) -> None:
    from ...connectors.tools import connector_tools

    only = shlex.split(tail) or None
    tools, notices = connector_tools(state.workspace, [], only=only)
    for line in notices:
        print(line)
    for t in tools:
        print(f"{t.name}: {t.description}")
    if not tools and not notices:
        print("no MCP tools (add a server with %agent mcp add, approve it with %agent mcp test)")


def _allow(state: NotebookState, tail: str) -> None:
    from ...connectors import config as cfg
    from ...connectors.consent import ConsentStore

    words = shlex.split(tail)
    if len(words) not in (1, 2):
        raise UsageError(f"%agent mcp allow needs a server name; usage: {MCP_USAGE}")
    if words[0] not in cfg.load(state.workspace):
        raise UsageError(f"no MCP server named {words[0]!r}")
    agent = words[1] if len(words) == 2 else "agent"
    ConsentStore().allow_always(agent, words[0])
    print(f"calls from {agent!r} to {words[0]!r} no longer ask")


def _remove(state: NotebookState, tail: str) -> None:
    from ...connectors import config as cfg
    from ...connectors.consent import ConsentStore
    from ...connectors.runtime import manager

    name = tail.strip()
    if not name:
        raise UsageError(f"%agent mcp remove needs a server name; usage: {MCP_USAGE}")
    path = cfg.remove(state.workspace, name)
    if path is None:
        raise UsageError(f"no MCP server named {name!r}")
    ConsentStore().revoke(name)
    manager().stop(state.workspace.resolve(), name)
    _forget_tools(state)
    print(f"removed {name!r} from {path}, with its sealed values and approvals")


_VERBS = {"add": _add, "list": _list, "test": _test, "tools": _tools, "allow": _allow,
          "remove": _remove}
