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
from collections.abc import Callable
from typing import TYPE_CHECKING

from IPython.core.error import UsageError

from ...core.events import Done, Warning
from ..state import ActiveRun, NotebookState
from ..views.slots import new_slot
from .arguments import CELL_HELP, CellOptions, parse_cell_line
from .prepare import Prepared, RunFailed, RunInterrupted, loaded_state, prepare

if TYPE_CHECKING:
    from types import FrameType

    from ...core.events import RunResult
    from ...harness.cancellation import AbortSignal
    from ..views.renderer import Renderer

STOP_GRACE_S = 5.0


async def drive(p: Prepared) -> RunResult | None:
    """Run the turn through the renderer; returns the RunResult."""
    p.renderer.start(p.info)
    for note in p.notes:
        p.renderer.render(Warning(code="reference", message=note))
    result = None
    if p.team is None:
        events = p.agent.run(p.prompt, abort=p.abort)
        unsubscribe: Callable[[], None] = lambda: None  # noqa: E731 - the team's branch sets one
    else:  # the team's own routing (@name, the floor); a stop on the run's signal stops the group
        events = p.team.run(p.prompt)
        unsubscribe = p.abort.subscribe(lambda: _stop_team(p))
    try:
        if p.plan is not None:
            await p.plan.start(p.renderer.render, p.team)
        async for event in events:
            p.renderer.render(event)
            if isinstance(event, Done):
                result = event.result
        if p.plan is not None and not p.abort.aborted:
            await p.plan.run(p.renderer.render, p.team)  # an unfinished plan runs, live
    finally:
        unsubscribe()
        if p.plan is not None:
            p.plan.close()
    if p.team is not None:
        _show_floor(p)
    p.renderer.finish(result)
    await _drain(p.live)
    return result


def _stop_team(p: Prepared) -> None:
    """The group stop: the commander and members end; a plan's running steps fail "stopped"."""
    reason = p.abort.reason or "stopped by the user"
    p.team.stop(reason)
    if p.plan is not None:
        p.plan.stop(reason)


def _show_floor(p: Prepared) -> None:
    """When the run moved the floor, say so (every view shows a notice) and put the holder in
    the run's info, which the views' status line reads."""
    from ...team.bus import COMMANDER

    holder = p.team.state.ledger.floor.holder
    floor = None if holder == COMMANDER else holder
    if floor != p.info.floor:
        p.renderer.render(Warning(code="floor", message=(
            f"{floor} has the floor: your next %%agent cell goes to it (@commander takes it back)"
            if floor is not None else "the floor is back with the commander")))
    p.info.floor = floor


DRAIN_S = 5.0


async def _drain(view: Renderer) -> None:
    """Let a view that buffers (e.g. one still waiting for the front end's handshake) put its
    output in the cell before the cell ends: a renderer may define ``async drain()``; the
    handshake view's ``wait_chosen()`` plays that part. Bounded, so a stuck view cannot hang."""
    for name in ("drain", "wait_chosen"):
        hook = getattr(view, name, None)
        if callable(hook):
            try:
                await asyncio.wait_for(hook(), DRAIN_S)
            except Exception:  # noqa: BLE001, S110 - a view that cannot finish drawing must not fail the run
                pass
            return


INTERRUPTED = "interrupted by the user (kernel interrupt)"


def _on_sigint(abort: AbortSignal, flag: list[bool]) -> Callable[[], object]:
    """Route SIGINT to the run's abort signal while an awaited cell runs; returns a restorer.

    ipykernel 7.4 cannot interrupt a cell that awaits a coroutine (its SIGINT handler for
    awaited cells refers to a loop attribute that no longer exists; ipykernel issue #881), so
    the cell installs its own handler for the run's duration. A signal handler must not take
    locks the main thread may hold, so it only schedules the abort on the loop.
    """
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    loop = asyncio.get_running_loop()

    def handler(signum: int, frame: FrameType | None) -> None:
        flag.append(True)
        loop.call_soon_threadsafe(abort.abort, INTERRUPTED)

    try:
        previous = signal.signal(signal.SIGINT, handler)
    except ValueError:  # not the main interpreter
        return lambda: None
    return lambda: signal.signal(signal.SIGINT, previous)


async def _drive_foreground(p: Prepared) -> RunResult | None:
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


def _check(result: RunResult | None) -> None:
    if result is not None and result.stop_reason == "error" and result.error is not None:
        raise RunFailed(f"the run failed: {result.error.kind}: {result.error.message}")


def _start_task(state: NotebookState, p: Prepared) -> ActiveRun:
    run = ActiveRun(agent=p.steers, abort=p.abort, session=p.session, background=True)

    async def body() -> RunResult | None:
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
    state.background[p.session] = run
    state.last = run
    return run


def _prepare_cell(line: str, body: str, *, awaited: bool) -> tuple[NotebookState, CellOptions, Prepared | None]:
    state = loaded_state()
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
    state.active = state.last = ActiveRun(agent=p.steers, abort=p.abort, session=p.session,
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
    _, _, p = _prepare_cell(line, body, awaited=True)
    if p is not None:
        _check(asyncio.run(_drive_foreground(p)))


async def wait(timeout: float | None = None, session: str | None = None) -> RunResult | None:
    """Wait for the latest background run of this notebook (or the one in ``session``);
    returns its RunResult (None if none)."""
    state = loaded_state()
    run = state.last if session is None else state.background.get(session)
    if run is None or run.task is None:
        return run.result if run is not None else None
    done, _ = await asyncio.wait({run.task}, timeout=timeout)
    if not done:
        raise TimeoutError(f"the background run is still going after {timeout} s")
    return run.result

