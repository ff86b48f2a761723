"""The tool protocol, the ``@tool`` decorator and the registry.

"Tools" names three things in orkas_nb; this module is the *protocol* every tool speaks. The
workspace tools an Agent gets by default (files, search, bash, web) are the package
:mod:`orkas_nb.tools`; the memory's own two tools (``kb_search``, ``memory``) are
:mod:`orkas_nb.memory.tools`. An Agent's ``tools`` attribute is a :class:`ToolRegistry` holding
whichever of them it was given.

A tool is anything with ``name``, ``description``, ``input_schema``, ``read_only`` and an async
``execute(arguments, ctx)``. It may also say ``concurrency_safe``: whether its calls may run
alongside the neighbouring calls of the same answer (:func:`runs_alongside`; read-only tools do
unless they say otherwise, a tool that writes only where no other call looks, such as a team's
``dispatch_to``, may opt in). The decorator builds one from a typed Python function: the JSON
schema comes from the signature (through pydantic) and the docstring (summary and ``Args:``).
Validation of a proposed call happens before ``execute``: the dispatcher
(:mod:`orkas_nb.harness.dispatch`) runs :func:`validate_arguments` on every call, so a tool
receives only arguments that passed its schema.
"""

from __future__ import annotations

import functools
import inspect
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Protocol, get_type_hints, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from ..core.messages import ImageBlock
from ..providers.base import ToolSpec
from .cancellation import AbortSignal
from .offload import run_blocking

# What both wire formats accept as a tool name (OpenAI and Anthropic answer 400 otherwise).
TOOL_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")


def check_tool_name(name: object) -> None:
    """Refuse, with a clear error, a name the model APIs would refuse on every request."""
    if not isinstance(name, str) or not TOOL_NAME.fullmatch(name):
        raise ValueError(f"tool name {name!r} is not accepted by the model APIs: use 1 to 64 "
                         f"ASCII letters, digits, '_' or '-'")


@dataclass
class Taint:
    """What untrusted content (web pages, downloaded documents, MCP results) a run has read.

    A tool declares its output untrusted (``untrusted_output=True``, or ``ToolOutput.untrusted``
    for one call); the runner marks the taint after such a call, and tools whose effect outlives
    the run (the memory tool) consult it to ask the user first. It only grows.
    """

    sources: list[str] = field(default_factory=list)

    def mark(self, source: str) -> None:
        if source not in self.sources:
            self.sources.append(source)

    def __bool__(self) -> bool:
        return bool(self.sources)


@dataclass
class ToolContext:
    """What a running tool may know about its run. Hosts put their services in ``services``."""

    workspace: Path
    abort: AbortSignal
    agent: str = "agent"
    session: str | None = None
    call_id: str = ""
    services: dict[str, Any] = field(default_factory=dict)
    turn_id: str = ""  # id of the user message that started the turn (its place in the session)
    taint: Taint = field(default_factory=Taint)


class ToolOutput(BaseModel):
    """What a tool returns. ``is_error`` makes it a failed observation."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    text: str = ""
    images: list[ImageBlock] = Field(default_factory=list)
    is_error: bool = False
    denied: bool = False  # the user or a policy refused: nothing ran (status "denied")
    output_files: list[str] = Field(default_factory=list)
    untrusted: bool = False  # this result carries content from outside (see Taint)
    structured: dict[str, Any] | None = None  # JSON besides the text (MCP), to hand on as is
    # The turn ends after this call's batch, with no further model request (a team's
    # ``hand_off_to``: the agent answers the user, the commander does not add a synthesis).
    end_turn: bool = False
    # The call's result comes later from outside the run (``"user"``: ``ask_user``): ``text``
    # is saved as a placeholder that keeps the call open, and the turn ends after this batch.
    # The answer becomes the call's result (``harness.awaiting.answer_call``) and a run that
    # continues the session (``Runner.run(None)``) goes on from it.
    awaiting: str | None = None


@runtime_checkable
class Tool(Protocol):
    name: str
    description: str
    input_schema: dict[str, Any]
    read_only: bool
    # Optional (read with getattr, so tools written before it still conform): see runs_alongside.
    # concurrency_safe: bool | None

    async def execute(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolOutput: ...


def runs_alongside(t: Tool) -> bool:
    """Whether ``t``'s calls may run concurrently with adjacent calls that may too.

    ``concurrency_safe`` decides when the tool sets it (True or False); otherwise read-only
    tools may and the others are barriers that run alone (SPEC §4).
    """
    declared = getattr(t, "concurrency_safe", None)
    if declared is None:
        return bool(t.read_only)
    return bool(declared)


class ArgumentsInvalid(Exception):
    """The arguments failed the tool's schema; the message is written for the model."""


def validate_arguments(tool: Tool, arguments: dict[str, Any]) -> dict[str, Any]:
    """Check arguments against the tool's schema; return them (possibly coerced)."""
    check = getattr(tool, "validate", None)
    if callable(check):
        return check(arguments)
    return _validate_json_schema(tool.input_schema, arguments)


def _validate_json_schema(schema: dict[str, Any], arguments: dict[str, Any]) -> dict[str, Any]:
    import jsonschema  # lazy: only hand-written schemas need it

    errors = sorted(
        jsonschema.Draft202012Validator(schema).iter_errors(arguments), key=lambda e: list(e.path)
    )
    if errors:
        lines = [f"{'/'.join(map(str, e.path)) or '(root)'}: {e.message}" for e in errors[:5]]
        raise ArgumentsInvalid("; ".join(lines))
    return arguments


def _to_output(value: Any) -> ToolOutput:
    if isinstance(value, ToolOutput):
        return value
    if value is None:
        return ToolOutput(text="")
    if isinstance(value, str):
        return ToolOutput(text=value)
    if isinstance(value, ImageBlock):
        return ToolOutput(images=[value])
    if isinstance(value, BaseModel):
        return ToolOutput(text=value.model_dump_json())
    return ToolOutput(text=json.dumps(value, ensure_ascii=False, default=str))


_ARG_LINE = re.compile(r"^\s{2,}(\*{0,2}\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")


@functools.lru_cache(maxsize=1024)
def _parse_docstring(doc: str) -> tuple[str, dict[str, str]]:
    """Split a docstring into its description and per-argument text (Google style)."""
    doc = inspect.cleandoc(doc or "")
    described: dict[str, str] = {}
    head: list[str] = []
    current: str | None = None
    in_args = False
    for line in doc.splitlines():
        stripped = line.strip()
        if stripped in ("Args:", "Arguments:", "Parameters:"):
            in_args = True
            continue
        if in_args:
            if stripped and not line.startswith(" ") and stripped.endswith(":"):
                in_args = False  # another section (Returns:, Raises:)
                continue
            m = _ARG_LINE.match("  " + line if not line.startswith(" ") else line)
            if m and not line.startswith("      "):
                current = m.group(1).lstrip("*")
                described[current] = m.group(2).strip()
            elif current and stripped:
                described[current] += " " + stripped
            continue
        head.append(line)
    return "\n".join(head).strip(), described


class FunctionTool:
    """A tool built from a typed (sync or async) Python function."""

    def __init__(
        self,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        read_only: bool = False,
        thread: bool = True,
        untrusted_output: bool = False,
        concurrency_safe: bool | None = None,
    ) -> None:
        self.fn = fn
        # None: as read_only says (see runs_alongside).
        self.concurrency_safe = concurrency_safe
        # The output carries content nobody vouches for (web pages, documents, MCP results).
        self.untrusted_output = untrusted_output
        self._is_async = inspect.iscoroutinefunction(fn)  # asked once, not on every call
        # A sync function runs in a worker thread so it cannot block Stop or other tools;
        # thread=False keeps it on the loop (for code that must run on the main thread).
        self.thread = thread
        self.name = name or fn.__name__
        check_tool_name(self.name)
        summary, arg_docs = _parse_docstring(fn.__doc__ or "")
        arg_docs = dict(arg_docs)  # the parse is cached and shared
        self.description = description or summary or self.name
        self.read_only = read_only
        self._ctx_param, self._model, self.input_schema = _arguments_model(fn, self.name, arg_docs)

    def validate(self, arguments: dict[str, Any]) -> dict[str, Any]:
        try:
            parsed = self._model.model_validate(arguments)
        except ValidationError as exc:
            problems = [
                f"{'.'.join(map(str, e['loc'])) or '(root)'}: {e['msg']}" for e in exc.errors()[:5]
            ]
            raise ArgumentsInvalid("; ".join(problems)) from None
        return {k: getattr(parsed, k) for k in type(parsed).model_fields}

    async def execute(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        kwargs = dict(arguments)
        if self._ctx_param:
            kwargs[self._ctx_param] = ctx
        if self._is_async:
            value = await self.fn(**kwargs)
        elif self.thread:
            value = await run_blocking(self.fn, **kwargs)
        else:
            value = self.fn(**kwargs)
        if inspect.isawaitable(value):
            value = await value
        return _to_output(value)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<tool {self.name}{' (read-only)' if self.read_only else ''}>"


# Tools are often built per agent from the same function (closures over a workspace): the
# arguments model and its schema (~1 ms of pydantic work each) depend only on the code, its
# defaults and its globals, so they are built once.
_MODELS: dict[Any, tuple[str | None, type[BaseModel], dict[str, Any]]] = {}


def _arguments_model(
    fn: Callable[..., Any], name: str, arg_docs: dict[str, str]
) -> tuple[str | None, type[BaseModel], dict[str, Any]]:
    code = getattr(fn, "__code__", None)
    key: Any = None
    if code is not None:
        key = (code, name, fn.__doc__, fn.__defaults__, tuple(sorted((fn.__kwdefaults__ or {}).items())),
               id(fn.__globals__))
        try:
            hit = _MODELS.get(key)
        except TypeError:  # an unhashable default: build every time
            key, hit = None, None
        if hit is not None:
            return hit
    ctx_param: str | None = None
    hints = get_type_hints(fn)
    fields: dict[str, Any] = {}
    for pname, param in inspect.signature(fn).parameters.items():
        annotation = hints.get(pname, Any)
        if annotation is ToolContext:
            ctx_param = pname
            continue
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[pname] = (annotation, Field(default, description=arg_docs.get(pname)))
    model: type[BaseModel] = create_model(  # type: ignore[call-overload]
        f"{name}_args", __config__=ConfigDict(extra="forbid"), **fields
    )
    built = (ctx_param, model, _clean_schema(model.model_json_schema()))
    if key is not None:
        _MODELS[key] = built
    return built


def _clean_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Drop pydantic's ``title`` noise; models read the rest."""
    if isinstance(schema, dict):
        return {
            k: _clean_schema(v)
            for k, v in schema.items()
            if not (k == "title" and isinstance(v, str))
        }
    if isinstance(schema, list):
        return [_clean_schema(v) for v in schema]  # type: ignore[return-value]
    return schema


def tool(
    fn: Callable[..., Any] | None = None,
    *,
    name: str | None = None,
    description: str | None = None,
    read_only: bool = False,
    thread: bool = True,
    untrusted_output: bool = False,
    concurrency_safe: bool | None = None,
) -> Any:
    """Turn a typed function into a :class:`Tool`. Use bare (``@tool``) or with options.

    ``concurrency_safe=True`` lets calls of a tool that is not read-only run alongside other
    such calls of the same answer; ``False`` makes even a read-only tool run alone.
    """

    def wrap(f: Callable[..., Any]) -> FunctionTool:
        return FunctionTool(
            f, name=name, description=description, read_only=read_only, thread=thread,
            untrusted_output=untrusted_output, concurrency_safe=concurrency_safe,
        )

    return wrap(fn) if fn is not None else wrap


class ToolRegistry:
    """The tools of one agent, by name, in registration order."""

    def __init__(self, tools: list[Tool] | None = None) -> None:
        self._tools: dict[str, Tool] = {}
        self._specs: list[ToolSpec] | None = None
        for t in tools or []:
            self.add(t)

    def add(self, t: Tool | Callable[..., Any]) -> Tool:
        # Duck-typed rather than isinstance(Protocol): the runtime protocol check costs ~10 us
        # per tool, and agents are built often (one per notebook cell).
        if not (hasattr(t, "execute") and hasattr(t, "input_schema") and hasattr(t, "name")):
            t = FunctionTool(t)  # a plain function: decorate it on the way in
        check_tool_name(t.name)
        if t.name in self._tools:
            raise ValueError(f"a tool named {t.name!r} is already registered")
        self._tools[t.name] = t
        self._specs = None
        return t

    def remove(self, name: str) -> None:
        self._tools.pop(name, None)
        self._specs = None

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def names(self) -> list[str]:
        return list(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    def specs(self) -> list[ToolSpec]:
        """Specs in a stable order; cached, so requests stay byte-identical (prompt caching)."""
        if self._specs is None:
            self._specs = [_spec_of(t) for t in self._tools.values()]
        return self._specs


# Specs by (name, description, schema object). Agents are built often (one per notebook cell)
# from the same tool functions, whose schema dicts are shared (``_MODELS``): the same frozen
# spec object is handed to each, so per-spec caches downstream (token estimates, a provider's
# wire JSON) hit across agents. Holding the schema keeps its id from being reused.
_SPECS: dict[tuple[str, str, int], tuple[Any, ToolSpec]] = {}


def _spec_of(t: Tool) -> ToolSpec:
    key = (t.name, t.description, id(t.input_schema))
    hit = _SPECS.get(key) if isinstance(t.name, str) and isinstance(t.description, str) else None
    if hit is not None and hit[0] is t.input_schema:
        return hit[1]
    spec = ToolSpec(name=t.name, description=t.description, input_schema=t.input_schema)
    if isinstance(t.input_schema, dict):
        # Validation copied the schema; keep the tool's own dict (shared, see above).
        spec = ToolSpec.model_construct(name=spec.name, description=spec.description,
                                        input_schema=t.input_schema)
        if len(_SPECS) > 4096:
            _SPECS.clear()
        _SPECS[key] = (t.input_schema, spec)
    return spec

