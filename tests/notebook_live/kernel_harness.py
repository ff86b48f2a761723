"""A front end in the test process: a real kernel, driven through jupyter_client as a browser would.

The harness reads every IOPub message, keeps a mirror of each widget model the kernel opens
(``comm_open`` with the ``jupyter.widget`` target, then ``update`` messages), and sends the
messages a browser sends on a click or a keystroke (``comm_msg`` on the shell channel). It can do
so while a cell is still busy, which is the point: SPEC §14.1 says clicks reach the kernel
mid-run only when the cell is awaiting.
"""

from __future__ import annotations

import os
import queue
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.notebook.kernel import kernel_env

from jupyter_client.manager import KernelManager



@dataclass
class Update:
    """One widget message as the front end saw it."""

    t: float  # when this process read it (time.monotonic)
    comm_id: str
    keys: tuple[str, ...]
    size: int
    # when the kernel sent it (time.time, from the header): rates are measured on this clock, as
    # a loaded test process reads a second's messages late and in bunches
    sent: float = 0.0


@dataclass
class Model:
    comm_id: str
    state: dict[str, Any]
    opened: float
    closed: bool = False
    updates: int = 0

    @property
    def name(self) -> str:
        return str(self.state.get("_model_name", ""))

    @property
    def classes(self) -> tuple[str, ...]:
        return tuple(self.state.get("_dom_classes", ()))


@dataclass
class Execution:
    msg_id: str
    started: float
    outputs: list[dict[str, Any]] = field(default_factory=list)
    reply: dict[str, Any] | None = None
    idle_at: float | None = None  # when this process read the idle status (time.monotonic)
    # when the kernel sent it (time.time, from the message's header): a bound on how fast a
    # cell ends measures this, not how long a loaded machine took to deliver and pump it
    idle_sent: float | None = None

    @property
    def done(self) -> bool:
        return self.reply is not None and self.idle_at is not None

    @property
    def status(self) -> str:
        return (self.reply or {}).get("content", {}).get("status", "")


class WidgetKernel:
    """A kernel plus a mirror of its widgets. Use as a context manager; stops its kernel by handle."""

    def __init__(self, cwd: str | os.PathLike[str], env: dict[str, str] | None = None) -> None:
        self.cwd = str(cwd)
        self.km = KernelManager(kernel_name="python3")
        self._env = kernel_env(env)
        self.models: dict[str, Model] = {}
        self.updates: list[Update] = []
        self.executions: dict[str, Execution] = {}
        self.stream_text: list[str] = []

    # -- lifecycle ------------------------------------------------------------------------------

    def __enter__(self) -> WidgetKernel:
        self.km.start_kernel(cwd=self.cwd, env=self._env)
        self.kc = self.km.client()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=60)
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self.kc.stop_channels()
        finally:
            self.km.shutdown_kernel(now=True)

    @property
    def pid(self) -> int:
        return self.km.provisioner.pid  # type: ignore[union-attr]

    # -- executing ------------------------------------------------------------------------------

    def start(self, code: str) -> Execution:
        """Send a cell and return at once (the cell runs while the test acts)."""
        msg_id = self.kc.execute(code, store_history=True, allow_stdin=False)
        ex = Execution(msg_id=msg_id, started=time.monotonic())
        self.executions[msg_id] = ex
        return ex

    def run(self, code: str, timeout: float = 60.0, allow_error: bool = False) -> Execution:
        """Run a cell to its end and return it; raise on an error unless ``allow_error``."""
        ex = self.start(code)
        self.wait(ex, timeout=timeout)
        if ex.status != "ok" and not allow_error:
            content = (ex.reply or {}).get("content", {})
            tb = "\n".join(content.get("traceback", []))
            raise AssertionError(f"cell failed: {content.get('ename')}: {content.get('evalue')}\n{tb}")
        return ex

    def wait(self, ex: Execution, timeout: float = 60.0) -> Execution:
        self.pump(lambda: ex.done, timeout=timeout, what=f"cell {ex.msg_id} to end")
        return ex

    def pump(self, until: Callable[[], bool], timeout: float = 30.0, what: str = "condition") -> None:
        """Process kernel messages until ``until()`` holds."""
        deadline = time.monotonic() + timeout
        while not until():
            if time.monotonic() > deadline:
                raise TimeoutError(f"timed out waiting for {what}")
            self._drain_shell()
            try:
                msg = self.kc.get_iopub_msg(timeout=0.02)
            except queue.Empty:
                continue
            self._on_iopub(msg)
        self._drain_shell()

    def settle(self, seconds: float = 0.2) -> None:
        """Process messages for a while (e.g. to see that nothing more arrives)."""
        end = time.monotonic() + seconds
        self.pump(lambda: time.monotonic() >= end, timeout=seconds + 5)

    def _drain_shell(self) -> None:
        while True:
            try:
                msg = self.kc.get_shell_msg(timeout=0)
            except queue.Empty:
                return
            parent = msg.get("parent_header", {}).get("msg_id")
            ex = self.executions.get(parent)
            if ex is not None and msg["msg_type"] == "execute_reply":
                ex.reply = msg

    def _on_iopub(self, msg: dict[str, Any]) -> None:
        now = time.monotonic()
        kind = msg["msg_type"]
        content = msg["content"]
        parent = msg.get("parent_header", {}).get("msg_id")
        ex = self.executions.get(parent)
        if kind == "status" and ex is not None and content.get("execution_state") == "idle":
            ex.idle_at = now
            stamp = msg["header"].get("date")
            ex.idle_sent = stamp.timestamp() if hasattr(stamp, "timestamp") else None
        elif kind == "comm_open" and content.get("target_name") == "jupyter.widget":
            state = dict(content["data"].get("state", {}))
            self.models[content["comm_id"]] = Model(content["comm_id"], state, opened=now)
        elif kind == "comm_msg":
            model = self.models.get(content["comm_id"])
            data = content.get("data", {})
            if model is not None and data.get("method") in ("update", "echo_update"):
                state = data.get("state", {})
                model.state.update(state)
                if data.get("method") == "update":
                    model.updates += 1
                    size = sum(len(str(v)) for v in state.values())
                    stamp = msg["header"].get("date")
                    sent = stamp.timestamp() if hasattr(stamp, "timestamp") else 0.0
                    self.updates.append(Update(now, model.comm_id, tuple(sorted(state)), size, sent))
        elif kind == "comm_close":
            model = self.models.get(content["comm_id"])
            if model is not None:
                model.closed = True
        elif ex is not None and kind in ("display_data", "execute_result", "error", "stream",
                                         "update_display_data", "clear_output"):
            ex.outputs.append({"msg_type": kind, **content})
            if kind == "stream":
                self.stream_text.append(content.get("text", ""))

    # -- acting as the browser ------------------------------------------------------------------

    def send_comm(self, comm_id: str, data: dict[str, Any]) -> None:
        msg = self.kc.session.msg("comm_msg", {"comm_id": comm_id, "data": data})
        self.kc.shell_channel.send(msg)

    def click(self, comm_id: str) -> None:
        self.send_comm(comm_id, {"method": "custom", "content": {"event": "click"}})

    def set_state(self, comm_id: str, **state: Any) -> None:
        self.send_comm(comm_id, {"method": "update", "state": state, "buffer_paths": []})

    def interrupt(self) -> None:
        self.km.interrupt_kernel()

    # -- looking ----------------------------------------------------------------------------------

    def find(self, css_class: str, *, open_only: bool = True) -> list[Model]:
        """Widgets carrying a DOM class, oldest first."""
        found = [m for m in self.models.values() if css_class in m.classes]
        if open_only:
            found = [m for m in found if not m.closed]
        return sorted(found, key=lambda m: m.opened)

    def wait_for(self, css_class: str, timeout: float = 30.0) -> Model:
        self.pump(lambda: bool(self.find(css_class)), timeout=timeout, what=f"a widget .{css_class}")
        return self.find(css_class)[-1]

    def children(self, model: Model) -> list[Model]:
        ids = [c.removeprefix("IPY_MODEL_") for c in model.state.get("children", ())]
        return [self.models[i] for i in ids if i in self.models]


def markdown_of(model: Model) -> str:
    """The Markdown an Output widget holds (what the front end renders)."""
    return "".join(o.get("data", {}).get("text/markdown", "") for o in model.state.get("outputs", ()))


def python_for_kernel() -> str:
    return sys.executable
