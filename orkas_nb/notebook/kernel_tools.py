"""Kernel tools: the agent looks at, runs code in, and proposes cells for the user's kernel.

Registered in notebook runs only (the magic adds them to the Agent's tools):

- ``list_variables`` — names, types, shapes and sizes in the user namespace;
- ``inspect_variable`` — a safe, size-capped preview of one value (DataFrame, array, mapping…):
  it reads attributes, never evaluates code;
- ``run_python`` — runs code in the user namespace after consent through the approver (category
  ``kernel_python``); without consent nothing runs. Its displays and plots appear in the cell;
  stdout, the error and the text form of rich outputs go back to the model;
- ``propose_cell`` — puts code into a new cell below for the user to review and run. Without
  the labextension only ``set_next_input`` exists, which applies once, when the whole cell
  ends, and keeps only the last proposal: the tool tells the model so.

The tools run on the kernel's main thread (``thread=False``), as the user's own cells do:
user objects, matplotlib and signal handlers expect it.
"""

from __future__ import annotations

import ast
import asyncio
import io
import reprlib
import signal
import sys
import threading
import traceback
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from types import ModuleType
from typing import Any

from ..harness.approval import ApprovalGate, ApprovalRequest, ApproverLike, Decision
from ..harness.tool_protocol import FunctionTool, Tool, ToolContext, ToolOutput

PREVIEW_CHARS = 4000
OUTPUT_CHARS = 8000
KERNEL_PYTHON = "kernel_python"
_SAFE_REPR = reprlib.Repr()
_SAFE_REPR.maxstring = 200
_SAFE_REPR.maxother = 200
_SAFE_REPR.maxlist = _SAFE_REPR.maxtuple = _SAFE_REPR.maxset = _SAFE_REPR.maxdict = 20
_SAFE_REPR.maxlevel = 3


def _shell() -> Any:
    from IPython import get_ipython

    shell = get_ipython()
    if shell is None:
        raise RuntimeError("kernel tools need an IPython kernel (get_ipython() is None)")
    return shell


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


def _user_variables(shell: Any, include_private: bool) -> list[tuple[str, Any]]:
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


def list_variables_text(shell: Any, include_private: bool = False, limit: int = 200) -> str:
    rows = _user_variables(shell, include_private)
    if not rows:
        return "The user namespace has no variables yet."
    lines = ["name | type | shape | size", "--- | --- | --- | ---"]
    for name, value in rows[:limit]:
        lines.append(" | ".join((name, *describe(value))))
    if len(rows) > limit:
        lines.append(f"… and {len(rows) - limit} more")
    return "\n".join(lines)


def resolve(shell: Any, name: str) -> Any:
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
        import numpy as np

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
        import inspect

        try:
            sig = str(inspect.signature(value))
        except (TypeError, ValueError):
            sig = "(…)"
        doc = (inspect.getdoc(value) or "").split("\n\n")[0]
        return f"{getattr(value, '__name__', '?')}{sig}\n{doc}"
    return _SAFE_REPR.repr(value)


class _Tee(io.TextIOBase):
    """Writes to the cell (the kernel's stream) and keeps a copy for the model.

    Only what the code's own thread writes is copied: while the code runs, the kernel's other
    threads (logging, comm handling) may write to the same process-wide stream, and that is
    not the code's output (nor the same from one run to the next, which would break replays).
    """

    def __init__(self, target: Any) -> None:
        self.target = target
        self.copy = io.StringIO()
        self._thread = threading.get_ident()

    def write(self, text: str) -> int:
        if threading.get_ident() == self._thread:
            self.copy.write(text)
        return self.target.write(text)

    def flush(self) -> None:
        self.target.flush()


async def execute_in_kernel(shell: Any, code: str, abort: Any = None) -> ToolOutput:
    """Run code in the user namespace like a cell: magics, top-level await, last value shown.

    The kernel's interrupt stops code that runs synchronously (a loop, a long computation),
    as in a cell of the user's; it then stops the run too (``abort``), since that is what the
    user asked for.
    """
    out, err = _Tee(sys.stdout), _Tee(sys.stderr)
    shown: list[str] = []

    def record(msg: dict[str, Any]) -> dict[str, Any]:
        data = msg.get("content", {}).get("data", {})
        if msg.get("msg_type") in ("display_data", "update_display_data") and data:
            rich = [m for m in data if m != "text/plain"]
            shown.append(data.get("text/plain", "") + (f" [{', '.join(rich)} shown in the cell]" if rich else ""))
        return msg

    pub = getattr(shell, "display_pub", None)
    hooked = hasattr(pub, "register_hook")
    if hooked:
        pub.register_hook(record)
    error = ""
    value: Any = None
    try:
        with redirect_stdout(out), redirect_stderr(err):
            try:
                value = await _exec(shell, shell.transform_cell(code))
            except KeyboardInterrupt:
                error = "KeyboardInterrupt: the user interrupted the kernel; the run stops"
                if abort is not None:
                    abort.abort("interrupted by the user (kernel interrupt)")
            except Exception as exc:  # noqa: BLE001 - the agent's code failed: tell the model
                error = _short_traceback(exc)
            if value is not None:
                from IPython.display import display

                display(value)
            # Figures of the inline backend are drawn on post_execute, as after a cell.
            shell.events.trigger("post_execute")
    finally:
        if hooked:
            pub.unregister_hook(record)
    parts = []
    if out.copy.getvalue():
        parts.append("stdout:\n" + out.copy.getvalue())
    if err.copy.getvalue():
        parts.append("stderr:\n" + err.copy.getvalue())
    if shown:
        parts.append("displayed:\n" + "\n".join(shown))
    if error:
        parts.append("error:\n" + error)
    text = "\n".join(parts) or "(ran; no output)"
    return ToolOutput(text=_cap(text, OUTPUT_CHARS), is_error=bool(error))


async def _exec(shell: Any, source: str) -> Any:
    """Exec statements, eval a trailing expression; allow top-level await."""
    tree = ast.parse(source, filename="<agent>", mode="exec")
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    ns = shell.user_ns
    if tree.body:
        with _interruptible():
            result = eval(compile(tree, "<agent>", "exec", flags=flags), ns)
        if hasattr(result, "__await__"):
            await result
    if last is None:
        return None
    with _interruptible():
        value = eval(compile(ast.Expression(last.value), "<agent>", "eval", flags=flags), ns)
    if hasattr(value, "__await__") and _has_await(last):
        value = await value
    return value


@contextmanager
def _interruptible() -> Iterator[None]:
    """SIGINT raises KeyboardInterrupt in synchronous code again, for as long as it runs.

    An awaited cell's SIGINT handler (ipykernel) only schedules a cancellation on the loop,
    which a busy main thread never reaches: without this, ``while True: pass`` in the agent's
    code could not be interrupted. Never held across an ``await``: the loop itself must not
    see a KeyboardInterrupt.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _has_await(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Await) for n in ast.walk(node))


def _short_traceback(exc: BaseException) -> str:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == "<agent>"]
    where = f" (line {frames[-1].lineno})" if frames else ""
    lines = traceback.format_exception_only(type(exc), exc)
    return f"{''.join(lines).strip()}{where}"


PROPOSE_CAVEAT = (
    "The cell is put below the current one only when the whole %%agent cell has finished, and "
    "only the last proposal of a run is kept; the user reviews and runs it. Propose once, at "
    "the end, with everything in one cell."
)


def kernel_tools(
    shell: Any | None = None,
    *,
    approver: ApproverLike | None = None,
    gate: ApprovalGate | None = None,
) -> list[Tool]:
    """The four kernel tools bound to ``shell`` (default: the running IPython)."""
    gate = gate or ApprovalGate(approver)

    def get_shell() -> Any:
        return shell if shell is not None else _shell()

    def list_variables(include_private: bool = False) -> str:
        """List the variables of the user's kernel: name, type, shape and size.

        Args:
            include_private: also list names that start with an underscore.
        """
        return list_variables_text(get_shell(), include_private)

    def inspect_variable(name: str, max_chars: int = PREVIEW_CHARS) -> str:
        """Preview one variable of the user's kernel (DataFrame head and dtypes, array, dict…).

        Args:
            name: a variable name, or a dotted attribute path such as `df.columns`.
            max_chars: the longest preview to return.
        """
        return preview(resolve(get_shell(), name), max(200, min(max_chars, 20_000)))

    async def run_python(code: str, ctx: ToolContext) -> ToolOutput:
        """Run Python code in the user's kernel, in their namespace (after the user consents).

        Displays and plots appear in the user's cell; you get stdout, errors and the text form
        of what was displayed. Variables you set stay in the user's namespace.

        Args:
            code: the code to run, as in a notebook cell (the last expression is displayed).
        """
        request = ApprovalRequest(
            kind="command", category=KERNEL_PYTHON, subject=code,
            reasons=["runs Python in your kernel: it can read and change your variables and files"],
            scope_key=f"{KERNEL_PYTHON}:{ctx.agent}", scope_text="all Python this agent runs",
            tool="run_python", agent=ctx.agent, call_id=ctx.call_id,
        )
        who = approver or ctx.services.get("approver")
        decision = await gate.ask(request, run=ctx.abort, approver=who)
        if decision is Decision.DENY:
            return ToolOutput(text="Denied: the user did not consent, so nothing was run. "
                                   "Ask them, or propose the code with propose_cell instead.",
                              is_error=True, denied=True)
        # Let the views draw this call before code that may hold the loop for a long time.
        for _ in range(3):
            await asyncio.sleep(0)
        return await execute_in_kernel(get_shell(), code, ctx.abort)

    def propose_cell(code: str) -> str:
        """Put code into a new cell below, for the user to review and run.

        Args:
            code: the complete code of the cell.
        """
        get_shell().set_next_input(code, replace=False)
        return "Proposed. " + PROPOSE_CAVEAT

    return [
        FunctionTool(list_variables, read_only=True, thread=False),
        FunctionTool(inspect_variable, read_only=True, thread=False),
        FunctionTool(run_python, thread=False),
        FunctionTool(propose_cell, thread=False,
                     description="Put code into a new cell below for the user to review and run. "
                                 + PROPOSE_CAVEAT),
    ]


__all__ = [
    "KERNEL_PYTHON",
    "PROPOSE_CAVEAT",
    "describe",
    "execute_in_kernel",
    "kernel_tools",
    "list_variables_text",
    "preview",
    "resolve",
]
