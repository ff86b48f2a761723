"""``{var}`` references in a ``%%agent`` prompt, filled in from the notebook.

A reference is a name with optional attributes and one integer index: ``{df}``, ``{df.shape}``,
``{In[3]}``, ``{Out[4]}``, ``{_}``, ``{last_error}``. Nothing is ``eval``-ed. Braces that are
not a reference to something that exists stay as written (JSON, code, set literals), and
``{{name}}`` writes a literal ``{name}``.

- ``In[n]`` is cell *n*'s input as typed (IPython's raw history, not the transformed code).
- ``Out[n]`` is cell *n*'s output, formatted as IPython shows it.
- ``last_error`` is the last exception's traceback as plain text, read from ``sys.last_*``
  where IPython keeps it; the kernel's own exception handling is untouched.
User variables win over these names.
"""

from __future__ import annotations

import re
import sys
import traceback
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import IPython
from IPython.lib.pretty import pretty

_REF = re.compile(
    r"(?P<open>\{\{?)(?P<name>[A-Za-z_]\w*)(?P<attrs>(?:\.[A-Za-z_]\w*)*)"
    r"(?:\[(?P<index>-?\d+)\])?(?P<close>\}\}?)"
)
_MISSING = object()


@dataclass
class Interpolated:
    text: str
    notes: list[str] = field(default_factory=list)
    references: list[str] = field(default_factory=list)


def _format(value: Any, limit: int) -> str:
    if isinstance(value, str):
        text = value
    else:
        try:
            text = pretty(value, max_width=100)
        except Exception:  # noqa: BLE001 - any pretty-printer failure: fall back to repr
            text = repr(value)
    if len(text) > limit:
        text = text[:limit] + f"\n[… {len(text) - limit} more characters cut]"
    return text


def last_error_text() -> str | None:
    """The last traceback IPython recorded, without IPython's own frames and without colour."""
    value = getattr(sys, "last_value", None)
    if value is None:
        return None
    tb = getattr(sys, "last_traceback", None)
    ipython_dir = str(Path(IPython.__file__).parent)
    while tb is not None and ipython_dir and tb.tb_frame.f_code.co_filename.startswith(ipython_dir):
        tb = tb.tb_next
    return "".join(traceback.format_exception(type(value), value, tb)).rstrip()


class _Namespace:
    """Where references are looked up: the user namespace, then In/Out/last_error."""

    def __init__(self, user_ns: Mapping[str, Any], raw_inputs: Sequence[str] | None) -> None:
        self.user_ns = user_ns
        self.raw_inputs = raw_inputs

    def lookup(self, name: str, index: int | None) -> Any:
        if name == "In" and self.raw_inputs is not None and index is not None:
            try:
                return self.raw_inputs[index]
            except IndexError:
                return _MISSING
        if name in self.user_ns:
            value = self.user_ns[name]
            if index is None:
                return value
            try:
                return value[index]
            except (KeyError, IndexError, TypeError):
                return _MISSING
        if name == "last_error" and index is None:
            text = last_error_text()
            return _MISSING if text is None else text
        return _MISSING


def interpolate(
    text: str,
    user_ns: Mapping[str, Any],
    raw_inputs: Sequence[str] | None = None,
    *,
    max_chars: int = 20_000,
) -> Interpolated:
    ns = _Namespace(user_ns, raw_inputs)
    notes: list[str] = []
    refs: list[str] = []

    def replace(m: re.Match[str]) -> str:
        whole = m.group(0)
        opened, closed = m.group("open"), m.group("close")
        inner = whole[len(opened) : len(whole) - len(closed)]
        if opened == "{{" and closed == "}}":
            return "{" + inner + "}"  # the escape: {{name}} is a literal {name}
        # Unbalanced ("{{x}" or "{x}}"): the extra brace belongs to the text around it.
        prefix, suffix = opened[:-1], closed[:-1]
        index = int(m.group("index")) if m.group("index") is not None else None
        value = ns.lookup(m.group("name"), index)
        if value is _MISSING:
            if m.group("name") in ("In", "Out") and index is not None:
                notes.append(f"{{{inner}}} does not exist; left as written")
            return whole
        for attr in filter(None, m.group("attrs").split(".")):
            try:
                value = getattr(value, attr)
            except Exception:  # noqa: BLE001 - a property may raise anything
                notes.append(f"{{{inner}}}: no attribute {attr!r}; left as written")
                return whole
        refs.append(inner)
        return prefix + _format(value, max_chars) + suffix

    return Interpolated(text=_REF.sub(replace, text), notes=notes, references=refs)
