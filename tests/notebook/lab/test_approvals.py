"""Inline approval prompts: the run view's buttons answer the waiting tool call."""

from __future__ import annotations

import asyncio
from typing import Any

from orkas_nb.harness.approval import ApprovalRequest, Decision
from orkas_nb.notebook.approvals.lab import LabApprover
from orkas_nb.notebook.views.lab.run_view import LabRenderer
from orkas_nb.notebook.views.renderer import RunInfo

REQUEST = ApprovalRequest(kind="command", category="destructive", subject="rm -rf build",
                          reasons=["deletes files"], scope_key="rm", scope_text="rm in this folder",
                          tool="bash", agent="agent")


def _renderer() -> tuple[LabRenderer, list[dict[str, Any]]]:
    r = LabRenderer(None, show=False)  # no Controls: the answer must go straight to the approver
    sent: list[dict[str, Any]] = []
    r.widget.send = lambda content, buffers=None: sent.append(content)  # type: ignore[method-assign]
    r.start(RunInfo())
    return r, sent


def _items(sent: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [i for m in sent if m["type"] == "items" for i in m["items"]]


async def test_a_click_answers_the_waiting_call() -> None:
    r, sent = _renderer()
    approver = LabApprover(r, timeout_s=10)
    waiting = asyncio.ensure_future(approver(REQUEST))
    await asyncio.sleep(0.01)
    prompt = next(i for i in _items(sent) if i["k"] == "approval")
    assert prompt["category"] == "destructive" and "rm -rf build" in prompt["detail"]
    assert [o["label"] for o in prompt["options"]] == ["This time", "For this run (rm in this folder)", "Deny"]
    assert approver.pending == [prompt["id"]] and r.widget.status == "waiting"
    r.widget._on_view_message(r.widget, {"type": "approval", "id": prompt["id"], "answer": "run"}, [])
    assert await asyncio.wait_for(waiting, 2) is Decision.RUN
    assert approver.pending == [] and r.widget.status == "running"
    done = [i for i in _items(sent) if i["k"] == "approval_done"]
    assert done == [{"k": "approval_done", "id": prompt["id"], "answer": "run", "by": "user"}]


async def test_no_answer_in_time_denies() -> None:
    r, sent = _renderer()
    approver = LabApprover(r, timeout_s=0.05)
    assert await approver(REQUEST) is Decision.DENY
    assert next(i for i in _items(sent) if i["k"] == "approval_done")["by"] == "timeout"
    r.widget._on_view_message(r.widget, {"type": "approval", "id": "approval-1", "answer": "once"}, [])
    assert sent[-1]["type"] == "error"  # a click after the timeout is refused, not applied


CONNECTOR = ApprovalRequest(kind="connector", category="mcp_call", subject="time.get_current_time({})",
                            reasons=["a call to the MCP server 'time' may act outside this workspace"],
                            scope_key="mcp:agent:time", scope_text="agent → time",
                            tool="mcp__time__get_current_time", agent="agent")


async def test_a_connector_prompt_offers_always_and_the_view_answer_reaches_the_gate() -> None:
    r, sent = _renderer()
    approver = LabApprover(r, timeout_s=10)
    waiting = asyncio.ensure_future(approver(CONNECTOR))
    await asyncio.sleep(0.01)
    prompt = next(i for i in _items(sent) if i["k"] == "approval")
    assert [(o["id"], o["label"]) for o in prompt["options"]] == [
        ("once", "This time"), ("run", "For this run (agent → time)"),
        ("always", "Always (agent → time)"), ("deny", "Deny")]
    r.widget._on_view_message(r.widget, {"type": "approval", "id": prompt["id"], "answer": "always"}, [])
    assert await asyncio.wait_for(waiting, 2) is Decision.ALWAYS
    done = [i for i in _items(sent) if i["k"] == "approval_done"]
    assert done == [{"k": "approval_done", "id": prompt["id"], "answer": "always", "by": "user"}]


async def test_always_sent_for_a_command_is_refused_and_the_prompt_keeps_waiting() -> None:
    r, sent = _renderer()
    approver = LabApprover(r, timeout_s=10)
    waiting = asyncio.ensure_future(approver(REQUEST))
    await asyncio.sleep(0.01)
    prompt = next(i for i in _items(sent) if i["k"] == "approval")
    assert "always" not in [o["id"] for o in prompt["options"]]
    r.widget._on_view_message(r.widget, {"type": "approval", "id": prompt["id"], "answer": "always"}, [])
    assert sent[-1]["type"] == "error" and "not an answer" in sent[-1]["message"]
    assert approver.pending == [prompt["id"]] and not waiting.done()
    r.widget._on_view_message(r.widget, {"type": "approval", "id": prompt["id"], "answer": "once"}, [])
    assert await asyncio.wait_for(waiting, 2) is Decision.ONCE
