"""Running code in the user's kernel as a cell runs it (``run_python``): magics, top-level
await, the last value displayed, interruptible by the kernel's interrupt; what it printed,
displayed and raised goes back to the model."""

from __future__ import annotations

import ast
import io
import signal
import sys
import threading
import traceback
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from typing import TYPE_CHECKING, Any, TextIO

from IPython.display import display

from ...harness.tool_protocol import ToolOutput
from .namespace import _cap

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

    from ...harness.cancellation import AbortSignal

OUTPUT_CHARS = 8000


class _Tee(io.TextIOBase):
    """Writes to the cell (the kernel's stream) and keeps a copy for the model.

    Only what the code's own thread writes is copied: while the code runs, the kernel's other
    threads (logging, comm handling) may write to the same process-wide stream, and that is
    not the code's output (nor the same from one run to the next, which would break replays).
    """

    def __init__(self, target: TextIO) -> None:
        self.target = target
        self.copy = io.StringIO()
        self._thread = threading.get_ident()

    def write(self, text: str) -> int:
        if threading.get_ident() == self._thread:
            self.copy.write(text)
        return self.target.write(text)

    def flush(self) -> None:
        self.target.flush()


async def execute_in_kernel(shell: InteractiveShell, code: str, abort: AbortSignal | None = None) -> ToolOutput:
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


async def _exec(shell: InteractiveShell, source: str) -> Any:
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
