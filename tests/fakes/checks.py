"""Request checks for the fake model server: each body as strict as the real service reads it.

A body is validated against the official SDKs' request types
(``openai.types.chat.completion_create_params.CompletionCreateParams{Streaming,NonStreaming}``,
``anthropic.types.message_create_params.MessageCreateParams{Streaming,NonStreaming}``) through
pydantic, with three changes to the schema pydantic builds from those TypedDicts, made once on
the core schema so they reach every nested type:

- every TypedDict forbids unknown keys (a TypedDict alone lets them pass in silence);
- ``Iterable`` fields (validated lazily, i.e. not at all, by a plain ``TypeAdapter``) become lists;
- unions of TypedDicts told apart by a literal ``role`` or ``type`` become tagged unions, so an
  error names the one branch that was meant, and the SDK's response models inside request unions
  are dropped (a JSON body never holds a model instance, and their ``extra='allow'`` would let an
  unknown key through).

Then the rules the types cannot say: tool-call pairing on both wires, Anthropic's role order and
non-empty content, ``stream_options`` only with ``stream``, and the tool-name pattern. A failed
check raises :class:`Rejected` with the real API's status and error fields, which the server
answers in that API's error shape.

``compatible=True`` reads a body as OpenAI-compatible servers do (llama.cpp, vLLM, Ollama): the
sampling and template extensions they document are accepted. Anthropic's legacy sampling
parameters (``temperature``, ``top_p``, ``top_k``) are accepted under ``anthropic-version:
2023-06-01`` only; API version 2026-10-21 (which the 2.x SDK types describe) removed them.
"""

from __future__ import annotations

import copy
import functools
import re
from dataclasses import dataclass
from typing import Any

__all__ = ["ANTHROPIC_VERSIONS", "COMPATIBLE_EXTENSIONS", "Rejected", "check_anthropic", "check_openai"]

ANTHROPIC_VERSIONS = ("2023-01-01", "2023-06-01", "2026-10-21")
_LEGACY_SAMPLING = {"temperature": (0.0, 1.0), "top_p": (0.0, 1.0), "top_k": (0, None)}
_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_ANTHROPIC_TOOL_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,128}$")

# Request fields OpenAI-compatible servers document beyond OpenAI's own (llama.cpp server README,
# vLLM "extra parameters" for chat completions, Ollama's OpenAI compatibility page).
COMPATIBLE_EXTENSIONS = frozenset({
    # llama.cpp
    "cache_prompt", "n_predict", "n_probs", "min_keep", "top_k", "min_p", "typical_p", "repeat_penalty",
    "repeat_last_n", "dry_multiplier", "dry_base", "dry_allowed_length", "dry_penalty_last_n",
    "xtc_probability", "xtc_threshold", "mirostat", "mirostat_tau", "mirostat_eta", "grammar",
    "json_schema", "id_slot", "samplers", "t_max_predict_ms", "timings_per_token", "return_tokens",
    "post_sampling_probs", "reasoning_format", "parse_tool_calls", "chat_template_kwargs",
    # vLLM
    "repetition_penalty", "length_penalty", "min_tokens", "ignore_eos", "skip_special_tokens",
    "spaces_between_special_tokens", "include_stop_str_in_output", "stop_token_ids", "bad_words",
    "allowed_token_ids", "guided_json", "guided_regex", "guided_choice", "guided_grammar",
    "guided_decoding_backend", "structured_outputs", "echo", "add_generation_prompt",
    "continue_final_message", "add_special_tokens", "chat_template", "documents", "priority",
    "truncate_prompt_tokens", "prompt_logprobs", "cache_salt",
    # Ollama
    "keep_alive", "think",
})
# Assistant-message fields those servers read back (the reasoning they streamed).
_COMPATIBLE_MESSAGE_FIELDS = ("reasoning_content", "reasoning")


@dataclass
class Rejected(Exception):
    """A request the real service answers with an error: its status and error fields."""

    message: str
    status: int = 400
    param: str | None = None
    code: str | None = None
    etype: str = "invalid_request_error"

    def __str__(self) -> str:
        return self.message


# -- the SDK request types, made strict -----------------------------------------------------------

def _definitions(schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = {}

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("ref"), str):
                found[node["ref"]] = node
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    return found


def _tag_values(choice: dict[str, Any], defs: dict[str, dict[str, Any]], key: str) -> list[Any] | None:
    """The literal values a TypedDict choice takes at ``key``, or None if it has no such field."""
    if choice.get("type") == "definition-ref":
        choice = defs.get(choice["schema_ref"], {})
    if choice.get("type") != "typed-dict":
        return None
    field = choice["fields"].get(key)
    if not field or field.get("required") is False:
        return None
    inner = field["schema"]
    return list(inner["expected"]) if inner.get("type") == "literal" else None


_MODELS_ONLY = {"fake": "a union of SDK response models, dropped from the union around it"}


def _tighten(node: Any, defs: dict[str, dict[str, Any]]) -> Any:
    """The schema with the three changes of the module docstring (children first)."""
    if isinstance(node, list):
        return [_tighten(v, defs) for v in node]
    if not isinstance(node, dict):
        return node
    node = {k: _tighten(v, defs) for k, v in node.items()}
    kind = node.get("type")
    if kind == "typed-dict":
        node["extra_behavior"] = "forbid"
    elif kind == "generator":
        node = {"type": "list", "items_schema": node.get("items_schema", {"type": "any"}),
                **{k: node[k] for k in ("min_length", "max_length", "ref") if k in node}}
    elif kind == "union":
        choices: list[Any] = []
        for choice in node["choices"]:
            schema = choice[0] if isinstance(choice, (list, tuple)) else choice
            target = defs.get(schema["schema_ref"], {}) if schema.get("type") == "definition-ref" else schema
            if target.get("type") == "model" or target.get("metadata") == _MODELS_ONLY:
                continue
            if schema.get("type") == "union":
                choices.extend(schema["choices"])
            else:
                choices.append(choice)
        plain = [c[0] if isinstance(c, (list, tuple)) else c for c in choices]
        for key in ("role", "type"):
            tags = [_tag_values(c, defs, key) for c in plain]
            values = [v for t in tags if t for v in t]
            if len(plain) > 1 and all(tags) and len(values) == len(set(values)):
                return {"type": "tagged-union", "discriminator": key,
                        "choices": {v: c for c, t in zip(plain, tags) for v in t},
                        **{k: node[k] for k in ("ref", "metadata") if k in node}}
        if not choices:  # only model instances were allowed here: nothing JSON can be
            return {"type": "none", "metadata": _MODELS_ONLY, **{k: node[k] for k in ("ref",) if k in node}}
        if len(choices) == 1 and "ref" not in node:
            return plain[0]
        node["choices"] = choices
    return node


@functools.cache
def _validator(wire: str, streaming: bool) -> Any:
    from pydantic import TypeAdapter
    from pydantic_core import SchemaValidator

    if wire == "openai":
        from openai.types.chat import completion_create_params as p
        kind: Any = p.CompletionCreateParamsStreaming if streaming else p.CompletionCreateParamsNonStreaming
    else:
        from anthropic.types import message_create_params as p  # type: ignore[no-redef]
        kind = p.MessageCreateParamsStreaming if streaming else p.MessageCreateParamsNonStreaming
    schema = TypeAdapter(kind).core_schema
    return SchemaValidator(_tighten(copy.deepcopy(schema), _definitions(schema)))


def warm() -> None:
    """Build the four validators now (the SDK imports take a second or two), not on a request."""
    for wire in ("openai", "anthropic"):
        for streaming in (True, False):
            _validator(wire, streaming)


def _path(body: Any, loc: tuple[Any, ...], kind: str) -> list[Any]:
    """The error's location in the body: pydantic's union labels and tags dropped."""
    out: list[Any] = []
    current = body
    tag_seen = False  # a tagged union puts the tag ("user", "text") in the loc before the fields
    for i, item in enumerate(loc):
        last = i == len(loc) - 1
        if last and kind in ("missing", "extra_forbidden"):
            out.append(item)  # the key that is missing or unknown
        elif isinstance(current, dict) and not tag_seen and not last \
                and item in (current.get("type"), current.get("role")):
            tag_seen = True
        elif isinstance(current, dict) and isinstance(item, str) and item in current:
            out.append(item)
            current, tag_seen = current[item], False
        elif isinstance(current, list) and isinstance(item, int) and 0 <= item < len(current):
            out.append(item)
            current, tag_seen = current[item], False
    return out


def _first_error(validator: Any, body: dict[str, Any]) -> tuple[list[Any], dict[str, Any]] | None:
    from pydantic_core import ValidationError

    try:
        validator.validate_python(body, strict=True)  # JSON has no "5" for 5: no coercion
    except ValidationError as exc:
        errors = exc.errors()
        # The deepest error is the meant branch of a union (the shallow ones are "not a string").
        best = max(errors, key=lambda e: len(e["loc"]))
        return _path(body, tuple(best["loc"]), best["type"]), best
    return None


def _openai_param(path: list[Any]) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else (p if i == 0 else f".{p}") for i, p in enumerate(path))


# -- OpenAI Chat Completions -----------------------------------------------------------------------

def check_openai(body: Any, *, compatible: bool = False) -> None:
    """Raise :class:`Rejected` as the Chat Completions endpoint would for this body."""
    if not isinstance(body, dict):
        raise Rejected("Invalid type for request body: expected an object.", code="invalid_type")
    streaming = body.get("stream") is True
    checked = copy.copy(body)
    if compatible:
        for key in COMPATIBLE_EXTENSIONS & checked.keys():
            del checked[key]
        if isinstance(checked.get("messages"), list):
            checked["messages"] = [
                {k: v for k, v in m.items() if k not in _COMPATIBLE_MESSAGE_FIELDS}
                if isinstance(m, dict) and m.get("role") == "assistant" else m
                for m in checked["messages"]
            ]
    if "stream_options" in checked and not streaming:
        raise Rejected("The 'stream_options' parameter is only allowed when 'stream' is enabled.",
                       param="stream_options", code="invalid_value")
    found = _first_error(_validator("openai", streaming), checked)
    if found is not None:
        path, error = found
        param = _openai_param(path)
        if error["type"] == "extra_forbidden":
            if len(path) == 1:
                raise Rejected(f"Unrecognized request argument supplied: {path[0]}")
            raise Rejected(f"Unknown parameter: '{param}'.", param=param, code="unknown_parameter")
        if error["type"] == "missing":
            raise Rejected(f"Missing required parameter: '{param}'.", param=param,
                           code="missing_required_parameter")
        if error["type"] == "union_tag_invalid":
            ctx = error["ctx"]
            param = f"{param}.{ctx['discriminator'].strip(chr(39))}"
            raise Rejected(f"Invalid value: '{ctx['tag']}'. Supported values are: {ctx['expected_tags']}.",
                           param=param, code="invalid_value")
        if error["type"] in ("literal_error", "enum"):
            raise Rejected(f"Invalid value: {error['input']!r}. Supported values are: "
                           f"{error['ctx']['expected']}.", param=param, code="invalid_value")
        raise Rejected(f"Invalid type for '{param}': {error['msg']}.", param=param, code="invalid_type")
    messages = body["messages"]
    if not messages:
        raise Rejected("Invalid 'messages': empty array. Expected an array with minimum length 1, "
                       "but got an empty array instead.", param="messages", code="empty_array")
    tools = body.get("tools") or []
    if "parallel_tool_calls" in body and not tools:
        raise Rejected("Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed "
                       "when 'tools' are specified.", param="parallel_tool_calls", code="invalid_value")
    for i, spec in enumerate(tools):
        name = (spec.get("function") or {}).get("name", "")
        if spec.get("type") == "function" and not _TOOL_NAME.match(name):
            raise Rejected(f"Invalid 'tools[{i}].function.name': string does not match pattern. Expected a "
                           "string that matches the pattern '^[a-zA-Z0-9_-]+$'.",
                           param=f"tools[{i}].function.name", code="invalid_value")
    for i, m in enumerate(messages):
        if m.get("content") == [] and m["role"] != "assistant":
            raise Rejected(f"Invalid 'messages[{i}].content': empty array. Expected an array with minimum "
                           "length 1, but got an empty array instead.", param=f"messages[{i}].content",
                           code="empty_array")
    _openai_pairing(messages)


def _openai_pairing(messages: list[dict[str, Any]]) -> None:
    """Each tool message answers a call of the assistant message before it; each call gets one answer."""
    asked: list[str] = []
    answered: set[str] = set()
    asker = -1
    for i, m in enumerate(messages):
        if m["role"] == "tool":
            call = m["tool_call_id"]
            if call not in asked or call in answered:
                raise Rejected("Invalid parameter: messages with role 'tool' must be a response to a "
                               "preceeding message with 'tool_calls'.", param=f"messages.[{i}].role")
            answered.add(call)
            continue
        _all_answered(asked, answered, asker)
        asked, answered, asker = [], set(), i
        if m["role"] == "assistant":
            asked = [c["id"] for c in m.get("tool_calls") or ()]
            if m.get("content") is None and not asked and not m.get("function_call") and not m.get("audio"):
                raise Rejected("Invalid value for 'content': expected a string, got null.",
                               param=f"messages.[{i}].content")
    _all_answered(asked, answered, asker)


def _all_answered(asked: list[str], answered: set[str], asker: int) -> None:
    missing = [c for c in asked if c not in answered]
    if missing:
        raise Rejected("An assistant message with 'tool_calls' must be followed by tool messages responding "
                       "to each 'tool_call_id'. The following tool_call_ids did not have response messages: "
                       + ", ".join(missing), param=f"messages.[{asker}].role")


# -- Anthropic Messages ------------------------------------------------------------------------------

def check_anthropic(body: Any, *, version: str = "2023-06-01", compatible: bool = False) -> None:
    """Raise :class:`Rejected` as the Messages endpoint would for this body."""
    if not isinstance(body, dict):
        raise Rejected("body: Input should be a valid dictionary")
    checked = copy.copy(body)
    if version == "2026-10-21" and not compatible:  # removed there, whatever the SDK's types say
        for key in _LEGACY_SAMPLING.keys() & body.keys():
            raise Rejected(f"{key}: Extra inputs are not permitted")
    if version == "2023-06-01" or compatible:
        for key, (low, high) in _LEGACY_SAMPLING.items():
            if key not in checked:
                continue
            value = checked.pop(key)
            if isinstance(value, bool) or not isinstance(value, (int, float)) \
                    or value < low or (high is not None and value > high):
                bound = f"between {low} and {high}" if high is not None else f"at least {low}"
                raise Rejected(f"{key}: Input should be a number {bound}")
    found = _first_error(_validator("anthropic", body.get("stream") is True), checked)
    if found is not None:
        path, error = found
        where = ".".join(map(str, path)) or "body"
        raise Rejected(f"{where}: {error['msg']}")
    marks = _count_cache_control(body)
    if marks > 4:
        raise Rejected(f"A maximum of 4 blocks with cache_control may be provided. Found {marks}.")
    for i, spec in enumerate(body.get("tools") or ()):
        if spec.get("type") in (None, "custom") and not _ANTHROPIC_TOOL_NAME.match(spec.get("name", "")):
            raise Rejected(f"tools.{i}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{{1,128}}$'")
    _anthropic_turns(body["messages"])


def _count_cache_control(node: Any) -> int:
    if isinstance(node, dict):
        return int("cache_control" in node) + sum(_count_cache_control(v) for v in node.values())
    if isinstance(node, list):
        return sum(_count_cache_control(v) for v in node)
    return 0


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message["content"]
    return [{"type": "text", "text": content}] if isinstance(content, str) else list(content)


def _anthropic_turns(messages: list[dict[str, Any]]) -> None:
    """Role order, non-empty content, and every tool_use answered in the very next user turn."""
    if not messages:
        raise Rejected("messages: at least one message is required")
    if messages[0]["role"] != "user":
        raise Rejected('messages: first message must use the "user" role')
    uses: list[str] = []
    for i, m in enumerate(messages):
        role, blocks = m["role"], _blocks(m)
        if i and messages[i - 1]["role"] == role:
            raise Rejected(f'messages: roles must alternate between "user" and "assistant", but found '
                           f'multiple "{role}" roles in a row')
        if not blocks and not (role == "assistant" and i == len(messages) - 1):
            raise Rejected(f"messages.{i}: all messages must have non-empty content except for the "
                           "optional final assistant message")
        for j, b in enumerate(blocks):
            if b.get("type") == "text" and not b["text"].strip():
                raise Rejected(f"messages.{i}.content.{j}: text content blocks must contain non-whitespace text")
        if role == "assistant":
            uses = [b["id"] for b in blocks if b.get("type") == "tool_use"]
            continue
        results = [j for j, b in enumerate(blocks) if b.get("type") == "tool_result"]
        for j in results:
            if blocks[j]["tool_use_id"] not in uses:
                raise Rejected(f"messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` "
                               f"blocks: {blocks[j]['tool_use_id']}. Each `tool_result` block must have a "
                               "corresponding `tool_use` block in the previous message.")
        answered = [blocks[j]["tool_use_id"] for j in results]
        missing = [u for u in uses if u not in answered]
        if missing:
            raise Rejected(f"messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately "
                           f"after: {', '.join(missing)}. Each `tool_use` block must have a corresponding "
                           "`tool_result` block in the next message.")
        if results and results != list(range(len(results))):
            raise Rejected(f"messages.{i}: `tool_result` blocks must come first in the content of the "
                           "message that answers `tool_use` blocks, before any other block.")
        uses = []
