"""The approval policy of notebook runs, as an approver of :mod:`orkas_nb.harness.approval`.

Decides what happens when a tool asks for consent (a dangerous command, a path outside the
workspace, running Python in the kernel):

1. a category the user allow-listed (``Agent.allow``, ``ORKAS_ALLOW``) is granted once;
2. with ``Agent.approval = "deny"`` everything else is refused;
3. with ``"ask"``: an interactive approver registered by a live view (buttons) answers; without
   one, a text prompt asks when the running cell accepts input (a foreground cell in a front
   end that answers ``input()``); when nobody can answer (nbclient, nbconvert, a background
   run) the call is refused; ``%config Agent.allow = [...]`` grants a category up front.

A refusal is an observation for the model (the run goes on); nothing of the refused action runs.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from ...harness.approval import (
    ApprovalRequest,
    ApproverLike,
    Decision,
    _coerce,
    prompt_answer,
    prompt_text,
)

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell


def _can_prompt(shell: InteractiveShell | None, background: bool) -> bool:
    if background or shell is None:
        return False
    kernel = getattr(shell, "kernel", None)
    if kernel is None:
        return True  # a terminal IPython: input() reaches the user
    return bool(getattr(kernel, "_allow_stdin", False))


class NotebookApprover:
    """Callable approver (``request -> Decision``); see the module docstring."""

    def __init__(
        self,
        mode: str = "ask",
        allow: Iterable[str] = (),
        *,
        shell: InteractiveShell | None = None,
        background: bool = False,
        interactive: ApproverLike | None = None,
        prompt: Callable[[str], str] | None = None,
    ) -> None:
        self.mode = mode
        self.allow = {a.strip() for a in allow if a.strip()}
        self.shell = shell
        self.background = background
        self.interactive = interactive
        self._prompt = prompt if prompt is not None else input
        self.asked: list[tuple[str, str]] = []  # (category, decision): what the policy did

    async def __call__(self, request: ApprovalRequest) -> Decision:

        decision = await self._decide(request)
        self.asked.append((request.category, decision.value))
        return decision

    async def _decide(self, request: ApprovalRequest) -> Decision:
        if request.category in self.allow or request.kind in self.allow:
            return Decision.ONCE
        if self.mode != "ask":
            return Decision.DENY
        if self.interactive is not None:
            answer = self.interactive(request)
            if inspect.isawaitable(answer):
                answer = await answer
            return _coerce(answer)
        if _can_prompt(self.shell, self.background):
            try:
                raw = self._prompt(prompt_text(request))
            except Exception:  # noqa: BLE001 - StdinNotImplementedError and friends: nobody to ask
                return Decision.DENY
            return prompt_answer(raw)
        return Decision.DENY
