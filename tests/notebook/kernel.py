"""A real IPython kernel driven through jupyter_client, as a front end drives it.

It keeps, per executed cell, the reply and every IOPub output, and a notebook-like view of
display ids (``display_data`` creates, ``update_display_data`` replaces), so a test can see what
a saved notebook would hold. Kernels are stopped by their own handle, never by name.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jupyter_client.manager import KernelManager

REPO = Path(__file__).resolve().parents[2]
MIME = "application/vnd.orkas.transcript+json"


@dataclass
class Cell:
    msg_id: str
    sent: float
    outputs: list[dict[str, Any]] = field(default_factory=list)
    reply: dict[str, Any] | None = None
    replied_at: float | None = None  # when this process read the reply (time.monotonic)
    # when the kernel sent it (time.time, the reply's header): a bound on how fast a cell ends
    # measures this, not how long a loaded machine took to deliver and pump the reply
    reply_sent: float | None = None
    idle_at: float | None = None

    @property
    def done(self) -> bool:
        return self.reply is not None and self.idle_at is not None

    @property
    def status(self) -> str:
        return (self.reply or {}).get("status", "")

    def stream(self, name: str = "stdout") -> str:
        return "".join(o.get("text", "") for o in self.outputs
                       if o["msg_type"] == "stream" and o.get("name") == name)

    @property
    def error(self) -> dict[str, Any] | None:
        for o in self.outputs:
            if o["msg_type"] == "error":
                return o
        return None


def kernel_env(env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment for a test kernel: this checkout importable, no settings leaking in from
    the machine (a front end's notebook name, a default model or session), then ``env``."""
    kernel_env = dict(os.environ)
    kernel_env["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(REPO), kernel_env.get("PYTHONPATH", "")) if p)
    for name in ("JPY_SESSION_NAME", "ORKAS_MODEL", "ORKAS_SESSION", "ORKAS_WORKSPACE"):
        kernel_env.pop(name, None)
    kernel_env.update(env or {})
    return kernel_env


class Kernel:
    def __init__(self, cwd: str | os.PathLike[str], env: dict[str, str] | None = None) -> None:
        self.cwd = str(cwd)
        self.env = kernel_env(env)
        self.km = KernelManager(kernel_name="python3")
        self.cells: dict[str, Cell] = {}
        self.displays: dict[str, dict[str, Any]] = {}  # display id -> latest data
        self.display_log: list[tuple[float, str, dict[str, Any]]] = []

    # -- lifecycle ------------------------------------------------------------------------------

    def start(self) -> Kernel:
        self.km.start_kernel(cwd=self.cwd, env=self.env)
        self.kc = self.km.client()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=60)
        return self

    def stop(self) -> None:
        try:
            self.kc.stop_channels()
        finally:
            if self.km.has_kernel:
                self.km.shutdown_kernel(now=True)

    def restart(self) -> None:
        self.kc.stop_channels()
        self.km.restart_kernel(now=False)
        self.kc = self.km.client()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=60)
        self.cells.clear()

    @property
    def pid(self) -> int:
        return self.km.provisioner.pid  # type: ignore[union-attr]

    def kill9(self) -> None:
        pid = self.pid
        os.kill(pid, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while self.km.is_alive() and time.monotonic() < deadline:
            time.sleep(0.05)
        self.kc.stop_channels()
        self.km.cleanup_resources()

    def __enter__(self) -> Kernel:  # noqa: PYI034
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- executing ------------------------------------------------------------------------------

    def send(self, code: str, allow_stdin: bool = False) -> Cell:
        msg_id = self.kc.execute(code, store_history=True, allow_stdin=allow_stdin)
        cell = Cell(msg_id, time.monotonic())
        self.cells[msg_id] = cell
        return cell

    def run(self, code: str, timeout: float = 60.0, allow_error: bool = False) -> Cell:
        cell = self.send(code)
        self.pump(lambda: cell.done, timeout, f"cell {code[:40]!r}")
        if cell.status != "ok" and not allow_error:
            err = cell.error or {}
            raise AssertionError(f"cell failed: {err.get('ename')}: {err.get('evalue')}\n"
                                 + "\n".join(err.get("traceback", [])) + cell.stream("stderr"))
        return cell

    def value(self, expression: str, timeout: float = 30.0) -> Any:
        """Evaluate ``expression`` in the kernel; it must be JSON-serialisable."""
        cell = self.run(f"import json as _j; print(_j.dumps({expression}))", timeout)
        return json.loads(cell.stream().strip().splitlines()[-1])

    def pump(self, until: Callable[[], bool], timeout: float = 30.0, what: str = "condition",
             on_stdin: Callable[[dict[str, Any]], str] | None = None) -> None:
        deadline = time.monotonic() + timeout
        while not until():
            if time.monotonic() > deadline:
                raise TimeoutError(f"timed out waiting for {what}")
            self._drain_shell()
            if on_stdin is not None:
                try:
                    req = self.kc.get_stdin_msg(timeout=0)
                    self.kc.input(on_stdin(req["content"]))
                except queue.Empty:
                    pass
            try:
                msg = self.kc.get_iopub_msg(timeout=0.02)
            except queue.Empty:
                continue
            self._on_iopub(msg)
        self._drain_shell()

    def settle(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        self.pump(lambda: time.monotonic() >= end, seconds + 5)

    def _drain_shell(self) -> None:
        while True:
            try:
                msg = self.kc.get_shell_msg(timeout=0)
            except queue.Empty:
                return
            cell = self.cells.get(msg.get("parent_header", {}).get("msg_id"))
            if cell is not None and msg["msg_type"] == "execute_reply":
                cell.reply = msg["content"]
                cell.replied_at = time.monotonic()
                sent = msg["header"].get("date")
                cell.reply_sent = sent.timestamp() if hasattr(sent, "timestamp") else None

    def _on_iopub(self, msg: dict[str, Any]) -> None:
        kind, content = msg["msg_type"], msg["content"]
        cell = self.cells.get(msg.get("parent_header", {}).get("msg_id"))
        if kind in ("display_data", "update_display_data"):
            display_id = content.get("transient", {}).get("display_id")
            if display_id:
                self.displays[display_id] = content["data"]
                self.display_log.append((time.monotonic(), display_id, content["data"]))
        if cell is None:
            return
        if kind == "status" and content.get("execution_state") == "idle":
            cell.idle_at = time.monotonic()
        elif kind in ("display_data", "update_display_data", "execute_result", "error", "stream"):
            cell.outputs.append({"msg_type": kind, **content})

    # -- looking --------------------------------------------------------------------------------

    def shown(self, cell: Cell) -> list[dict[str, Any]]:
        """The cell's display outputs as a saved notebook holds them (latest data per id)."""
        out = []
        for o in cell.outputs:
            if o["msg_type"] != "display_data":
                continue
            display_id = o.get("transient", {}).get("display_id")
            out.append(self.displays.get(display_id, o["data"]) if display_id else o["data"])
        return out

    def transcript(self, cell: Cell) -> dict[str, Any]:
        found = [d[MIME] for d in self.shown(cell) if MIME in d]
        assert found, f"no transcript in the cell's outputs: {self.shown(cell)}"
        return found[-1]
