"""The headless approval policy, as an approver of orkas_nb.harness.approval."""

from __future__ import annotations

from typing import Any

from orkas_nb.harness.approval import ApprovalGate, ApprovalRequest, Decision
from orkas_nb.notebook.approvals.policy import NotebookApprover


def _req(category: str = "network", kind: str = "command") -> ApprovalRequest:
    return ApprovalRequest(kind=kind, category=category, subject="curl http://x", reasons=["sends data"],
                           scope_key=f"{category}:x", scope_text="curl")


class Kernel:
    def __init__(self, allow_stdin: bool) -> None:
        self._allow_stdin = allow_stdin


class Shell:
    def __init__(self, allow_stdin: bool) -> None:
        self.kernel = Kernel(allow_stdin)


async def test_allow_listed_categories_pass_and_deny_mode_refuses_the_rest() -> None:
    a = NotebookApprover("deny", ["network"], shell=Shell(True))
    assert await a(_req("network")) is Decision.ONCE
    assert await a(_req("destructive")) is Decision.DENY
    assert a.asked == [("network", "once"), ("destructive", "deny")]


async def test_ask_uses_the_interactive_approver_first() -> None:
    seen: list[Any] = []

    async def buttons(request: ApprovalRequest) -> str:
        seen.append(request.category)
        return "run"

    a = NotebookApprover("ask", [], shell=Shell(True), interactive=buttons)
    gate = ApprovalGate(a)
    from orkas_nb.harness.cancellation import AbortSignal

    run = AbortSignal()  # what identifies a run to the gate
    assert await gate.ask(_req(), run=run) is Decision.RUN
    assert await gate.ask(_req(), run=run) is Decision.RUN  # remembered by the gate for the run
    assert seen == ["network"]


async def test_ask_prompts_for_text_only_when_someone_can_answer() -> None:
    questions: list[str] = []

    def prompt(q: str) -> str:
        questions.append(q)
        return "o"

    a = NotebookApprover("ask", shell=Shell(True), prompt=prompt)
    assert await a(_req()) is Decision.ONCE
    assert "curl http://x" in questions[0] and "[o]nce" in questions[0]
    # nbclient / nbconvert: the cell does not accept input
    assert await NotebookApprover("ask", shell=Shell(False), prompt=prompt)(_req()) is Decision.DENY
    # a background run: nobody is at the cell
    assert await NotebookApprover("ask", shell=Shell(True), background=True, prompt=prompt)(_req()) is Decision.DENY
    assert len(questions) == 1

    def no_stdin(q: str) -> str:
        raise RuntimeError("stdin not implemented")

    assert await NotebookApprover("ask", shell=Shell(True), prompt=no_stdin)(_req()) is Decision.DENY
    assert await NotebookApprover("ask", shell=Shell(True), prompt=lambda q: "maybe")(_req()) is Decision.DENY
    assert await NotebookApprover("ask", shell=Shell(True), prompt=lambda q: "r")(_req()) is Decision.RUN
