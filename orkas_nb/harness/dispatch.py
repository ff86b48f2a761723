"""Validate the calls of one assistant message, then run them in batches.

Validation (SPEC §3.5): an unknown tool, a missing or repeated id, unparseable arguments, or
arguments that fail the schema become a *rejection* observation; nothing runs. Execution
(SPEC §4): adjacent calls whose tools may run alongside others (read-only ones, and any that
declares ``concurrency_safe``: :func:`~.tool_protocol.runs_alongside`) run concurrently; any
other call is a barrier that runs alone. Results are handed back strictly in declared order, each as soon as it and every call
before it are finished, so a crash loses as little as possible.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any, AsyncIterator

from ..core.errors import ToolDenied, ToolError
from ..core.messages import (
    AssistantMessage,
    TextBlock,
    ToolCallBlock,
    ToolResultMessage,
    ToolStatus,
    new_id,
)
from .loop_guard import REMINDER, STOPPED, LoopGuard
from .tool_protocol import (
    ArgumentsInvalid,
    Tool,
    ToolContext,
    ToolOutput,
    ToolRegistry,
    runs_alongside,
    validate_arguments,
)


@dataclass
class PlannedCall:
    call: ToolCallBlock
    tool: Tool | None = None
    arguments: dict[str, Any] = field(default_factory=dict)
    rejection: str | None = None
    reminder: str | None = None

    @property
    def read_only(self) -> bool:
        return self.tool is not None and self.rejection is None and bool(self.tool.read_only)

    @property
    def concurrent(self) -> bool:
        """May share a batch: a rejection (runs nothing) or a tool that may run alongside."""
        if self.rejection is not None:
            return True
        return self.tool is not None and runs_alongside(self.tool)


@dataclass
class CallOutcome:
    planned: PlannedCall
    result: ToolResultMessage
    duration_s: float
    output_files: list[str]
    started_at: float
    untrusted: bool = False  # the tool ran and its output carries untrusted content
    end_turn: bool = False  # the tool asked the turn to end after its batch (ToolOutput.end_turn)


def normalise_call_ids(message: AssistantMessage) -> tuple[AssistantMessage, dict[int, str]]:
    """Give every call a unique id before the message is saved (the orchestrator owns state).

    Returns the message to save and, by position, why an id had to be replaced.
    """
    seen: set[str] = set()
    problems: dict[int, str] = {}
    blocks = []
    changed = False
    position = 0
    for block in message.content:
        if isinstance(block, ToolCallBlock):
            if not block.id:
                problems[position] = "the call had no id"
            elif block.id in seen:
                problems[position] = f"the call repeated id {block.id!r}"
            if position in problems:
                block = block.model_copy(update={"id": new_id("call")})
                changed = True
            seen.add(block.id)
            position += 1
        blocks.append(block)
    if changed:
        message = message.model_copy(update={"content": blocks})
    return message, problems


def plan_calls(
    message: AssistantMessage,
    registry: ToolRegistry,
    guard: LoopGuard,
    id_problems: dict[int, str],
) -> tuple[list[PlannedCall], bool]:
    """Validate each call; returns the plan and whether the loop guard stopped the run."""
    planned: list[PlannedCall] = []
    stopped = False
    for position, call in enumerate(message.tool_calls):
        p = PlannedCall(call=call)
        planned.append(p)
        if stopped:
            p.rejection = "not run: the loop guard stopped the run at an earlier call"
            continue
        if position in id_problems:
            p.rejection = id_problems[position]
            continue
        tool = registry.get(call.name)
        if tool is None:
            available = ", ".join(registry.names()) or "none"
            p.rejection = f"unknown tool {call.name!r} (available: {available})"
            continue
        if call.raw_arguments is not None:
            p.rejection = f"the arguments are not valid JSON: {call.raw_arguments[:200]!r}"
            continue
        try:
            p.arguments = validate_arguments(tool, call.arguments)
        except ArgumentsInvalid as exc:
            p.rejection = f"invalid arguments for {call.name}: {exc}"
            continue
        p.tool = tool
        verdict, n = guard.check(call.name, call.arguments)
        if verdict == "stop":
            p.tool = None
            p.rejection = STOPPED.format(name=call.name, n=n)
            stopped = True
        elif verdict == "remind":
            p.reminder = REMINDER.format(name=call.name, n=n)
    return planned, stopped


def batches(planned: list[PlannedCall]) -> list[list[PlannedCall]]:
    """Adjacent concurrent calls (see ``PlannedCall.concurrent``) share a batch; others go alone."""
    out: list[list[PlannedCall]] = []
    for p in planned:
        if p.concurrent and out and all(q.concurrent for q in out[-1]):
            out[-1].append(p)
        else:
            out.append([p])
    return out


async def _execute(p: PlannedCall, ctx: ToolContext) -> CallOutcome:
    started = time.perf_counter()
    wall = time.time()
    files: list[str] = []
    if p.rejection is not None:
        result = _result(p.call, f"Rejected, nothing was run: {p.rejection}", "rejected")
        return CallOutcome(p, result, 0.0, files, wall)
    assert p.tool is not None
    try:
        output = await p.tool.execute(p.arguments, ctx)
        status: ToolStatus = "denied" if output.denied else "error" if output.is_error else "ok"
    except ToolDenied as exc:
        output, status = ToolOutput(text=str(exc)), "denied"
    except ToolError as exc:
        output, status = ToolOutput(text=f"Error: {exc}"), "error"
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # a failing tool is an observation, not a failed turn
        output, status = ToolOutput(text=f"Error: {type(exc).__name__}: {exc}"), "error"
    text = output.text
    if p.reminder:
        text = f"{text}\n\n{p.reminder}" if text else p.reminder
    files = list(output.output_files)
    result = ToolResultMessage(
        tool_call_id=p.call.id,
        name=p.call.name,
        content=[TextBlock(text=text), *output.images],
        status=status,
        awaiting=output.awaiting if status == "ok" else None,
    )
    untrusted = output.untrusted or bool(getattr(p.tool, "untrusted_output", False))
    return CallOutcome(p, result, time.perf_counter() - started, files, wall, untrusted,
                       output.end_turn or result.awaiting is not None)


def _result(call: ToolCallBlock, text: str, status: ToolStatus) -> ToolResultMessage:
    return ToolResultMessage(
        tool_call_id=call.id, name=call.name, content=[TextBlock(text=text)], status=status
    )


async def run_batch(
    batch: list[PlannedCall], make_ctx: "callable[[ToolCallBlock], ToolContext]"  # type: ignore[valid-type]
) -> AsyncIterator[CallOutcome]:
    """Run one batch; yield outcomes in declared order as soon as each is ready."""
    if len(batch) == 1:
        yield await _execute(batch[0], make_ctx(batch[0].call))
        return
    tasks = [asyncio.ensure_future(_execute(p, make_ctx(p.call))) for p in batch]
    try:
        for task in tasks:
            yield await task
    finally:
        for task in tasks:
            if not task.done():
                task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
