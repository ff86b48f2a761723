"""The four kernel tools bound to a shell, with ``run_python``'s consent (category
``kernel_python``) asked through the run's approver before anything runs."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from IPython import get_ipython

from ...harness.approval import ApprovalGate, ApprovalRequest, ApproverLike, Decision
from ...harness.tool_protocol import FunctionTool, Tool, ToolContext, ToolOutput
from .execute import execute_in_kernel
from .namespace import PREVIEW_CHARS, list_variables_text, preview, resolve

if TYPE_CHECKING:
    from IPython.core.interactiveshell import InteractiveShell

KERNEL_PYTHON = "kernel_python"


def _shell() -> InteractiveShell:
    shell = get_ipython()
    if shell is None:
        raise RuntimeError("kernel tools need an IPython kernel (get_ipython() is None)")
    return shell


PROPOSE_CAVEAT = (
    "The cell is put below the current one only when the whole %%agent cell has finished, and "
    "only the last proposal of a run is kept; the user reviews and runs it. Propose once, at "
    "the end, with everything in one cell."
)


def kernel_tools(
    shell: InteractiveShell | None = None,
    *,
    approver: ApproverLike | None = None,
    gate: ApprovalGate | None = None,
) -> list[Tool]:
    """The four kernel tools bound to ``shell`` (default: the running IPython)."""
    gate = gate or ApprovalGate(approver)

    def get_shell() -> InteractiveShell:
        return shell if shell is not None else _shell()

    def list_variables(include_private: bool = False) -> str:
        """List the variables of the user's kernel: name, type, shape and size.

        Args:
            include_private: also list names that start with an underscore.
        """
        return list_variables_text(get_shell(), include_private)

    def inspect_variable(name: str, max_chars: int = PREVIEW_CHARS) -> str:
        """Preview one variable of the user's kernel (DataFrame head and dtypes, array, dict…).

        Args:
            name: a variable name, or a dotted attribute path such as `df.columns`.
            max_chars: the longest preview to return.
        """
        return preview(resolve(get_shell(), name), max(200, min(max_chars, 20_000)))

    async def run_python(code: str, ctx: ToolContext) -> ToolOutput:
        """Run Python code in the user's kernel, in their namespace (after the user consents).

        Displays and plots appear in the user's cell; you get stdout, errors and the text form
        of what was displayed. Variables you set stay in the user's namespace.

        Args:
            code: the code to run, as in a notebook cell (the last expression is displayed).
        """
        request = ApprovalRequest(
            kind="command", category=KERNEL_PYTHON, subject=code,
            reasons=["runs Python in your kernel: it can read and change your variables and files"],
            scope_key=f"{KERNEL_PYTHON}:{ctx.agent}", scope_text="all Python this agent runs",
            tool="run_python", agent=ctx.agent, call_id=ctx.call_id,
        )
        who = approver or ctx.services.get("approver")
        decision = await gate.ask(request, run=ctx.abort, approver=who)
        if decision is Decision.DENY:
            return ToolOutput(text="Denied: the user did not consent, so nothing was run. "
                                   "Ask them, or propose the code with propose_cell instead.",
                              is_error=True, denied=True)
        # Let the views draw this call before code that may hold the loop for a long time.
        for _ in range(3):
            await asyncio.sleep(0)
        return await execute_in_kernel(get_shell(), code, ctx.abort)

    def propose_cell(code: str) -> str:
        """Put code into a new cell below, for the user to review and run.

        Args:
            code: the complete code of the cell.
        """
        get_shell().set_next_input(code, replace=False)
        return "Proposed. " + PROPOSE_CAVEAT

    return [
        FunctionTool(list_variables, read_only=True, thread=False),
        FunctionTool(inspect_variable, read_only=True, thread=False),
        FunctionTool(run_python, thread=False),
        FunctionTool(propose_cell, thread=False,
                     description="Put code into a new cell below for the user to review and run. "
                                 + PROPOSE_CAVEAT),
    ]


__all__ = ["KERNEL_PYTHON", "PROPOSE_CAVEAT", "kernel_tools"]
