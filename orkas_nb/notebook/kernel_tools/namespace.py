"""Looking at the user's namespace without running anything: ``list_variables`` and
``inspect_variable`` read names, types, shapes, sizes and capped previews, by attribute access."""

from __future__ import annotations

import inspect
import reprlib
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

PREVIEW_CHARS = 4000
_SAFE_REPR = reprlib.Repr()
_SAFE_REPR.maxstring = 200
_SAFE_REPR.maxother = 200
_SAFE_REPR.maxlist = _SAFE_REPR.maxtuple = _SAFE_REPR.maxset = _SAFE_REPR.maxdict = 20
_SAFE_REPR.maxlevel = 3


def _cap(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + f"\n… ({len(text) - limit:,} more chars)"


def _human(n: int) -> str:
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{n} B"  # pragma: no cover


def describe(value: Any) -> tuple[str, str, str]:
    """(type, shape, size) of a value, without touching its contents beyond attributes.

    The size is that of an array's or a frame's data (``nbytes``, ``memory_usage``), the same
    on every machine; other values have none (their length is in the shape).
    """
    kind = type(value).__name__
    module = type(value).__module__
    if module not in ("builtins", "__main__"):
        kind = f"{module.split('.')[0]}.{kind}"
    shape = ""
    raw_shape = getattr(value, "shape", None)
    if isinstance(raw_shape, tuple):
        shape = "×".join(str(d) for d in raw_shape) or "scalar"
    elif isinstance(value, (str, bytes, list, tuple, dict, set, frozenset)):
        shape = f"len {len(value)}"
    size = ""
    try:
        usage = getattr(value, "memory_usage", None)
        nbytes = getattr(value, "nbytes", None)
        if callable(usage) and hasattr(value, "columns"):
            size = _human(int(usage(index=True, deep=False).sum()))
        elif isinstance(nbytes, int):
            size = _human(nbytes)
        # Nothing else gets a size: sys.getsizeof counts an object's own header, not what it
        # holds, and differs between Python versions (a dict of six items: 360 B on 3.10,
        # 272 B on 3.11), so a notebook recorded on one Python would not replay on another.
    except Exception:  # noqa: BLE001 - a hostile __sizeof__ or memory_usage: leave the size out
        size = ""
    return kind, shape, size


def _user_variables(shell: InteractiveShell, include_private: bool) -> list[tuple[str, Any]]:
    hidden = getattr(shell, "user_ns_hidden", {})
    out = []
    for name, value in list(shell.user_ns.items()):
        if name in hidden and hidden[name] is value:
            continue
        if name.startswith("_") and not include_private:
            continue
        if isinstance(value, ModuleType):
            continue
        out.append((name, value))
    return out


def list_variables_text(shell: InteractiveShell, include_private: bool = False, limit: int = 200) -> str:
    rows = _user_variables(shell, include_private)
    if not rows:
        return "The user namespace has no variables yet."
    lines = ["name | type | shape | size", "--- | --- | --- | ---"]
    for name, value in rows[:limit]:
        lines.append(" | ".join((name, *describe(value))))
    if len(rows) > limit:
        lines.append(f"… and {len(rows) - limit} more")
    return "\n".join(lines)


def resolve(shell: InteractiveShell, name: str) -> Any:
    """A dotted name in the user namespace, by attribute access only (no evaluation)."""
    parts = name.strip().split(".")
    if not parts or not all(p.isidentifier() for p in parts):
        raise ValueError(f"{name!r} is not a variable name (use a name or a dotted attribute path)")
    if parts[0] not in shell.user_ns:
        raise KeyError(f"no variable named {parts[0]!r} in the user namespace")
    value = shell.user_ns[parts[0]]
    for p in parts[1:]:
        value = getattr(value, p)
    return value


def preview(value: Any, max_chars: int = PREVIEW_CHARS) -> str:
    """A size-capped, human-readable preview of a value."""
    kind, shape, size = describe(value)
    head = f"{kind}" + (f", shape {shape}" if shape else "") + (f", {size}" if size else "")
    try:
        body = _preview_body(value)
    except Exception as exc:  # noqa: BLE001 - the value's own methods failed: say so, keep going
        body = f"(no preview: {type(exc).__name__}: {exc})"
    return _cap(f"{head}\n{body}", max_chars)


def _preview_body(value: Any) -> str:
    if hasattr(value, "dtypes") and hasattr(value, "head") and hasattr(value, "columns"):
        dtypes = "\n".join(f"  {c}: {t}" for c, t in list(value.dtypes.items())[:50])
        table = value.head(10).to_string(max_cols=20, max_colwidth=40)
        return f"columns:\n{dtypes}\nfirst rows:\n{table}"
    if hasattr(value, "dtype") and hasattr(value, "head") and callable(value.head):
        return f"dtype {value.dtype}\n{value.head(10).to_string()}"
    if hasattr(value, "dtype") and hasattr(value, "shape") and type(value).__module__ == "numpy":
        import numpy as np  # optional: only a numpy value brings it

        text = np.array2string(value, threshold=100, edgeitems=3, max_line_width=100)
        stats = ""
        if value.size and value.size <= 5_000_000 and np.issubdtype(value.dtype, np.number):
            stats = f"\nmin {value.min()}, max {value.max()}, mean {value.mean():.6g}"
        return f"dtype {value.dtype}\n{text}{stats}"
    if isinstance(value, dict):
        items = list(value.items())[:30]
        lines = [f"  {_SAFE_REPR.repr(k)}: {_SAFE_REPR.repr(v)}," for k, v in items]
        more = f"\n  … {len(value) - 30} more keys" if len(value) > 30 else ""
        return "{\n" + "\n".join(lines) + more + "\n}"
    if isinstance(value, (str, bytes)):
        return _cap(value if isinstance(value, str) else repr(value), PREVIEW_CHARS)
    if callable(value) and not isinstance(value, type):
        try:
            sig = str(inspect.signature(value))
        except (TypeError, ValueError):
            sig = "(…)"
        doc = (inspect.getdoc(value) or "").split("\n\n")[0]
        return f"{getattr(value, '__name__', '?')}{sig}\n{doc}"
    return _SAFE_REPR.repr(value)
