"""Running one ``%%agent`` cell: prepare the turn, drive it, and keep the session valid.

Three ways to drive a turn, chosen by the front end (SPEC §14.1):

- **awaited** (the default in a kernel): the input transformer turns the cell into
  ``await run_cell(line, body)``, so the cell stays busy, the kernel's interrupt cancels it, and
  widget messages still reach the kernel while it runs;
- **task** (``--background``, and the fallback for front ends without top-level await): the
  turn runs as a task on the kernel's loop and the cell returns at once; the view keeps
  updating the cell through its display id;
- **blocking** (a terminal IPython with no running loop): ``asyncio.run``.

A kernel interrupt or Stop raises the run's abort signal; the turn closes its open tool calls
with "interrupted" results before it ends, so the session file is always valid.
"""

from __future__ import annotations

import asyncio
import signal
import threading
from dataclasses import dataclass
from typing import Any

from IPython.core.error import UsageError

from .arguments import CELL_HELP, CellOptions, parse_cell_line
from .output import new_slot
from .render import RunInfo, fan_out

STOP_GRACE_S = 5.0


class NotebookError(Exception):
    """An error the magic explains in one line (no traceback): bad setup, a failed run."""

    def _render_traceback_(self) -> list[str]:
        return [f"orkas: {self}"]


class RunFailed(NotebookError):
    pass


class RunInterrupted(KeyboardInterrupt):
    """The kernel's interrupt ended the run (the cell fails, so "Run all" stops here)."""

    def _render_traceback_(self) -> list[str]:
        return [f"RunInterrupted: {self}"]


def _state() -> Any:
    from . import current_state

    state = current_state()
    if state is None:
        raise UsageError("orkas_nb is not loaded: run %load_ext orkas_nb")
    return state


def resolve_model(text: str, user_ns: dict[str, Any]) -> Any:
    """A model string, or ``$name`` of a model string or provider object in the notebook."""
    text = text.strip()
    if not text.startswith("$"):
        return text
    name = text[1:]
    if name not in user_ns:
        raise UsageError(f"-m {text}: the notebook has no variable {name!r}")
    value = user_ns[name]
    if isinstance(value, str) or callable(getattr(value, "stream", None)):
        return value
    raise UsageError(f"-m {text}: {name!r} is a {type(value).__name__}, not a model string "
                     "or a provider object")


class _Controls:
    def __init__(self, agent: Any, abort: Any, approver: Any = None) -> None:
        self.agent, self.abort, self.approver = agent, abort, approver

    def stop(self, reason: str = "stopped by the user") -> None:
        self.abort.abort(reason)

    def steer(self, text: str) -> None:
        self.agent.steer(text)

    def answer_approval(self, request_id: str, answer: str) -> None:
        answer_fn = getattr(self.approver, "answer", None)
        if answer_fn is None:
            raise LookupError("this run has no approver to answer")
        answer_fn(request_id, answer)


@dataclass
class Prepared:
    agent: Any
    prompt: str
    info: RunInfo
    renderer: Any
    abort: Any
    notes: list[str]
    live: Any
    session: str
    background: bool


def _namespace_tools(user_ns: dict[str, Any]) -> list[Any]:
    from ..harness.tools import FunctionTool

    found: dict[str, Any] = {}
    for key, value in list(user_ns.items()):
        if not key.startswith("_") and isinstance(value, FunctionTool):
            found.setdefault(value.name, value)
    return list(found.values())


def _session_name(state: Any, opts: CellOptions) -> str:
    if opts.session:
        return opts.session
    if opts.new:
        state.use(state.new_session_name())
        state.forget_providers()
    return state.current


def prepare(state: Any, opts: CellOptions, body: str, *, background: bool) -> Prepared:
    from ..agent import Agent
    from ..core.errors import OrkasError
    from ..harness.cancellation import AbortSignal
    from ..harness.runner import RunConfig
    from . import plugins
    from .approval_policy import NotebookApprover
    from .interpolate import interpolate
    from .transcript import Provenance, TranscriptBuilder

    shell, config = state.shell, state.config
    model_text = opts.model or config.model
    if not model_text:
        raise UsageError('no model: pass -m MODEL, or %config Agent.model = "provider/model", '
                         "or set ORKAS_MODEL")
    model = resolve_model(model_text, shell.user_ns)
    if not body.strip():
        raise UsageError("the cell has no prompt: write it below the %%agent line")
    hist = getattr(shell, "history_manager", None)
    filled = interpolate(body.strip("\n"), shell.user_ns, getattr(hist, "input_hist_raw", None),
                         max_chars=config.interpolation_max_chars)
    name = _session_name(state, opts)
    busy = state.busy(name)
    if busy is not None:
        raise UsageError(f"a background run is still going in session {name!r}: "
                         "%agent stop, or `await orkas_nb.notebook.wait()`")
    abort = AbortSignal()
    approver = NotebookApprover(config.approval, config.allow, shell=shell, background=background)
    services: dict[str, Any] = {"approver": approver, "allowed_paths": state.all_allowed_paths(),
                                "shell": shell}
    tools: list[Any] = []
    if not opts.no_tools:
        if config.namespace_tools:
            tools += _namespace_tools(shell.user_ns)
        tools += plugins.extra_tools(shell, services)
    try:
        session = state.open_session(name)
        model_name = None
        if isinstance(model, str):
            model, model_name = state.provider(model)
        agent = Agent(
            model, model_name=model_name, workspace=state.workspace, session=session, tools=tools,
            default_tools=config.workspace_tools and not opts.no_tools, system_prompt=config.system_prompt,
            config=RunConfig(max_steps=config.max_steps, temperature=config.temperature),
            services=services,
        )
    except OrkasError as exc:
        raise NotebookError(str(exc)) from None
    before = {m.id for m in session.messages}
    provider = agent.provider
    label = model_text if not model_text.startswith("$") else f"{getattr(provider, 'id', 'model')}"
    replay = getattr(provider, "path", None) if type(provider).__name__ == "ReplayProvider" else None
    parent = shell.get_parent() if hasattr(shell, "get_parent") else {}
    cell_id = (parent or {}).get("metadata", {}).get("cellId")
    info = RunInfo(agent=agent.name, model=label, session=name,
                   workspace=str(state.workspace), prompt=filled.text)
    builder = TranscriptBuilder(
        lambda: [m for m in session.messages if m.id not in before],
        provenance=Provenance(
            provider=getattr(provider, "id", None), model=label, session=name,
            session_file=str(state.session_file(name).relative_to(state.workspace)),
            first_message=len(before), workspace=state.workspace.name,
            replay=_relative(replay, state.workspace), cell_id=cell_id,
        ),
    )

    def transcript(result: Any) -> tuple[dict[str, Any], dict[str, Any]] | None:
        if not config.transcript:
            return None
        return builder.build(result).bundle(), {}

    controls = _Controls(agent, abort, approver)
    _, factory = plugins.choose_renderer(config.renderer, shell)
    ctx = plugins.RenderContext(shell=shell, info=info, slot=new_slot(shell), controls=controls,
                                transcript=transcript, background=background,
                                refresh_interval=config.refresh_interval)
    live = factory(ctx)
    approver.interactive = plugins.interactive_approver(ctx, live)
    controls.approver = approver.interactive or approver
    return Prepared(agent=agent, prompt=filled.text, info=info,
                    renderer=fan_out([builder, live]), abort=abort, notes=filled.notes, live=live,
                    session=name, background=background)


def _relative(path: Any, root: Any) -> str | None:
    if path is None:
        return None
    from pathlib import Path

    p = Path(path).resolve()
    try:
        return str(p.relative_to(root))
    except ValueError:
        return p.name


async def drive(p: Prepared) -> Any:
    """Run the turn through the renderer; returns the RunResult."""
    from ..core.events import Done, Warning

    p.renderer.start(p.info)
    for note in p.notes:
        p.renderer.render(Warning(code="reference", message=note))
    result = None
    async for event in p.agent.run(p.prompt, abort=p.abort):
        p.renderer.render(event)
        if isinstance(event, Done):
            result = event.result
    p.renderer.finish(result)
    await _drain(p.live)
    return result


DRAIN_S = 5.0


async def _drain(view: Any) -> None:
    """Let a view that buffers (e.g. one still waiting for the front end's handshake) put its
    output in the cell before the cell ends: a renderer may define ``async drain()``; the
    handshake view's ``wait_chosen()`` plays that part. Bounded, so a stuck view cannot hang."""
    for name in ("drain", "wait_chosen"):
        hook = getattr(view, name, None)
        if callable(hook):
            try:
                await asyncio.wait_for(hook(), DRAIN_S)
            except Exception:  # a view that cannot finish drawing must not fail the run
                pass
            return


INTERRUPTED = "interrupted by the user (kernel interrupt)"


def _on_sigint(abort: Any, flag: list[bool]) -> Any:
    """Route SIGINT to the run's abort signal while an awaited cell runs; returns a restorer.

    ipykernel 7.4 cannot interrupt a cell that awaits a coroutine (its SIGINT handler for
    awaited cells refers to a loop attribute that no longer exists; ipykernel issue #881), so
    the cell installs its own handler for the run's duration. A signal handler must not take
    locks the main thread may hold, so it only schedules the abort on the loop.
    """
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    loop = asyncio.get_running_loop()

    def handler(signum: int, frame: Any) -> None:
        flag.append(True)
        loop.call_soon_threadsafe(abort.abort, INTERRUPTED)

    try:
        previous = signal.signal(signal.SIGINT, handler)
    except ValueError:  # not the main interpreter
        return lambda: None
    return lambda: signal.signal(signal.SIGINT, previous)


async def _drive_foreground(p: Prepared) -> Any:
    """Drive in the cell; an interrupt (SIGINT or a cancelled cell) stops the run cleanly first."""
    interrupted: list[bool] = []
    restore = _on_sigint(p.abort, interrupted)
    consumer = asyncio.ensure_future(drive(p))
    try:
        result = await asyncio.shield(consumer)
    except asyncio.CancelledError:
        p.abort.abort(INTERRUPTED)
        await asyncio.wait({consumer}, timeout=STOP_GRACE_S)
        interrupted.append(True)
        result = None
    finally:
        restore()
    if interrupted:
        raise RunInterrupted("the run was interrupted; the session is saved")
    return result


def _check(result: Any) -> None:
    if result is not None and result.stop_reason == "error" and result.error is not None:
        raise RunFailed(f"the run failed: {result.error.kind}: {result.error.message}")


def _start_task(state: Any, p: Prepared) -> Any:
    from .state import ActiveRun

    run = ActiveRun(agent=p.agent, abort=p.abort, session=p.session, background=True)

    async def body() -> Any:
        try:
            run.result = await drive(p)
            return run.result
        except BaseException as exc:  # nobody awaits this task: show what happened in the cell
            slot = new_slot(state.shell)
            slot.update({"text/plain": f"orkas: the background run ended with {type(exc).__name__}: {exc}"})
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            return None

    run.task = asyncio.get_running_loop().create_task(body())
    state.active = run
    state.last = run
    return run


def _prepare_cell(line: str, body: str, *, awaited: bool) -> tuple[Any, CellOptions, Prepared | None]:
    state = _state()
    opts = parse_cell_line(line)
    if opts.help:
        print(CELL_HELP)
        return state, opts, None
    background = opts.background or not awaited
    return state, opts, prepare(state, opts, body, background=background)


async def run_cell(line: str, body: str) -> None:
    """The awaited entry: what a ``%%agent`` cell becomes (see ``transform.py``)."""
    state, opts, p = _prepare_cell(line, body, awaited=True)
    if p is None:
        return
    if opts.background:
        _start_task(state, p)
        return
    from .state import ActiveRun

    state.active = state.last = ActiveRun(agent=p.agent, abort=p.abort, session=p.session,
                                          background=False)
    try:
        result = await _drive_foreground(p)
        state.last.result = result
    finally:
        state.active = None
    _check(result)


def run_cell_sync(line: str, body: str) -> None:
    """The ``%%agent`` cell magic when the cell was not turned into an awaited call."""
    try:
        asyncio.get_running_loop()
        loop_running = True
    except RuntimeError:
        loop_running = False
    if loop_running:  # a kernel without top-level await: a task on its loop (SPEC §14.1)
        state, _, p = _prepare_cell(line, body, awaited=False)
        if p is not None:
            _start_task(state, p)
        return
    if parse_cell_line(line).background:
        raise UsageError("--background needs a running event loop (a Jupyter kernel)")
    state, opts, p = _prepare_cell(line, body, awaited=True)
    if p is not None:
        _check(asyncio.run(_drive_foreground(p)))


async def wait(timeout: float | None = None) -> Any:
    """Wait for the background run of this notebook; returns its RunResult (None if none)."""
    state = _state()
    run = state.last
    if run is None or run.task is None:
        return run.result if run is not None else None
    done, _ = await asyncio.wait({run.task}, timeout=timeout)
    if not done:
        raise TimeoutError(f"the background run is still going after {timeout} s")
    return run.result

