"""One real kernel per test module, driven through the comm channel as a browser would."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .kernel_harness import WidgetKernel

# What the magic of issue 6 does around a run, written out so these tests need only the engine:
# the live view, the run's controls and approver, and a kernel interrupt turned into Stop.
SETUP = r'''
import asyncio, time
from orkas_nb import Agent, tool
from orkas_nb.core.events import Done
from orkas_nb.harness.cancellation import AbortSignal
from orkas_nb.notebook.views.renderer import RunInfo
from orkas_nb.notebook.views.widgets.live import LiveRenderer, RunControls
from orkas_nb.notebook.approvals.widgets import WidgetApprover
from orkas_nb.testing import ScriptedModel, reply, call

def transcript(result):
    return ({"text/markdown": "**transcript** " + result.text, "text/plain": result.text}, {})

async def drive(agent, prompt, approver=None, **view_options):
    abort = AbortSignal()
    controls = RunControls(agent, abort, approver)
    view = LiveRenderer(controls, transcript=transcript, **view_options)
    if approver is not None:
        approver.host = view
    view.start(RunInfo(model=agent.model, agent=agent.name))

    async def consume():
        async for event in agent.run(prompt, abort=abort):
            view.render(event)
            if isinstance(event, Done):
                return event.result

    task = asyncio.ensure_future(consume())
    try:
        result = await asyncio.shield(task)
    except asyncio.CancelledError:  # the kernel's interrupt cancels the awaiting cell
        abort.abort("interrupted by the kernel")
        result = await task
    view.finish(result)
    return result, view
'''


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WidgetKernel]:
    cwd: Path = tmp_path_factory.mktemp("nb")
    with WidgetKernel(cwd) as k:
        k.run(SETUP)
        yield k
