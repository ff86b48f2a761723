"""The plan's tools (seed 001): the model writes intent, the executor owns the truth.

The commander gets ``write_plan`` and ``revise_plan`` (steps not started only), and, to decide
after a failed step, ``retry_step``, ``skip_step`` and ``abort_plan``. A plan that cannot run
(a cycle, an unknown assignee, a ``wait_for`` on a later or missing step, a template naming a
step it does not wait for) comes back as a rejection observation listing every problem, and
nothing changes. Members get ``ask_user``: the step blocks, the plan pauses, the member's run
ends with the call left open (``ToolOutput.awaiting``), and the user's answer becomes that
call's own result when the run resumes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import ValidationError

from ..harness.tool_protocol import Tool, ToolContext, ToolOutput
from .plan import StepForm
from .plan_runner import PlanActionError, PlanRejected

if TYPE_CHECKING:
    from .plan_executor import PlanExecutor

__all__ = ["PLAN_PROMPT", "AskUser", "commander_plan_tools"]

_FORM_FIELDS: dict[str, Any] = {
    "type": "array", "items": {
        "type": "object", "required": ["name"], "additionalProperties": False,
        "properties": {"name": {"type": "string", "pattern": "^[A-Za-z_][A-Za-z0-9_]*$"},
                       "label": {"type": "string"},
                       "kind": {"type": "string", "enum": ["text", "choice", "bool"]},
                       "choices": {"type": "array", "items": {"type": "string"}},
                       "required": {"type": "boolean"}}}}
_FORM: dict[str, Any] = {"type": "object", "required": ["prompt"], "additionalProperties": False,
                         "properties": {"prompt": {"type": "string"}, "fields": _FORM_FIELDS}}
_STEP: dict[str, Any] = {
    "type": "object", "additionalProperties": False, "required": ["title", "assignee"],
    "properties": {
        "index": {"type": "integer", "minimum": 1,
                  "description": "1, 2, ... (optional: its place in the list)"},
        "title": {"type": "string", "minLength": 1},
        "assignee": {"type": "string", "description": "user, commander, or an agent's name"},
        "input": {"type": "string", "description": "what the assignee gets; may name "
                  "{{step_N.output_summary}} of a step it waits for"},
        "wait_for": {"type": "array", "items": {"type": "integer"},
                     "description": "earlier steps it waits for (absent: the previous one; "
                     "[]: none)"},
        "on_failure": {"type": "string", "enum": ["abort_plan", "continue", "ask_commander"]},
        "form": {**_FORM, "description": "for a user step: what to ask"},
    },
}
PLAN_PROMPT = """\
For work of several steps, write a plan with write_plan: each step has a title, an assignee
(user, commander or an agent), an input (it may name {{step_N.output_summary}} of a step it
waits for), wait_for (absent: the previous step; [] for none) and on_failure. The plan runs
when your turn ends: the orchestrator dispatches each step when its dependencies are done and
records how it went; you never mark steps done. When a step fails and you are asked to decide,
use retry_step, skip_step, abort_plan or revise_plan."""


def _error(exc: Exception) -> ToolOutput:
    return ToolOutput(text=str(exc), is_error=True)


class _PlanTool:
    read_only = False
    concurrency_safe = False  # each changes the one plan of the conversation

    def __init__(self, executor: PlanExecutor) -> None:
        self.executor = executor


class WritePlan(_PlanTool):
    name = "write_plan"
    description = ("Write the plan of a multi-step piece of work (a DAG of steps). It runs when "
                   "your turn ends; invalid plans are refused with the reasons.")
    input_schema: ClassVar[dict[str, Any]] = {
        "type": "object", "additionalProperties": False, "required": ["steps"],
        "properties": {"title": {"type": "string"},
                       "steps": {"type": "array", "minItems": 1, "items": _STEP}}}

    def __init__(self, executor: PlanExecutor, request: Any = None) -> None:
        super().__init__(executor)
        self.request = request  # () -> (the user's request, attachments)

    async def execute(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        request, attachments = self.request() if self.request is not None else ("", [])
        try:
            plan = self.executor.write(arguments["steps"], title=arguments.get("title", ""),
                                       request=request, attachments=attachments)
        except (PlanRejected, ValidationError) as exc:
            return _error(exc)
        lines = [f"{s.index}. {s.title} -> {s.assignee} (waits for {s.deps or 'nothing'})"
                 for s in plan.steps]
        return ToolOutput(text=f"Plan {plan.id} saved ({len(plan.steps)} steps); it runs when "
                          f"your turn ends:\n" + "\n".join(lines))


class RevisePlan(_PlanTool):
    name = "revise_plan"
    description = ("Change the plan's steps that have not started: a step with an existing "
                   "index replaces it, a step with the next index is added; remove skips "
                   "pending steps. Indexes never change.")
    input_schema: ClassVar[dict[str, Any]] = {
        "type": "object", "additionalProperties": False,
        "properties": {"steps": {"type": "array", "items": _STEP},
                       "remove": {"type": "array", "items": {"type": "integer"}}}}

    async def execute(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        try:
            plan = self.executor.revise(arguments.get("steps", []),
                                        remove=arguments.get("remove", []))
        except (PlanRejected, PlanActionError, ValidationError) as exc:
            return _error(exc)
        return ToolOutput(text=f"Plan revised: {len(plan.steps)} steps "
                          f"({', '.join(f'{s.index} {s.status}' for s in plan.steps)})")


class _StepTool(_PlanTool):
    verb = ""

    def __init__(self, executor: PlanExecutor) -> None:
        super().__init__(executor)
        self.input_schema = {
            "type": "object", "additionalProperties": False, "required": ["index"],
            "properties": {"index": {"type": "integer", "minimum": 1},
                           "reason": {"type": "string"}}}

    async def execute(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        try:
            self.act(int(arguments["index"]), arguments.get("reason", ""))
        except PlanActionError as exc:
            return _error(exc)
        return ToolOutput(text=f"Step {arguments['index']} {self.verb}.")

    def act(self, index: int, reason: str) -> None:
        raise NotImplementedError


class RetryStep(_StepTool):
    name, verb = "retry_step", "will run again"
    description = "Run a failed plan step again (nothing else is re-run)."

    def act(self, index: int, reason: str) -> None:
        self.executor.retry(index)


class SkipStep(_StepTool):
    name, verb = "skip_step", "skipped; its dependents go on"
    description = "Skip a failed or pending plan step; steps waiting for it go on without it."

    def act(self, index: int, reason: str) -> None:
        self.executor.skip(index, reason or "skipped by the commander")


class AbortPlan(_PlanTool):
    name = "abort_plan"
    description = "End the plan: every step not finished is skipped."
    input_schema: ClassVar[dict[str, Any]] = {
        "type": "object", "additionalProperties": False,
        "properties": {"reason": {"type": "string"}}}

    async def execute(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        try:
            self.executor.abort(arguments.get("reason") or "aborted by the commander")
        except PlanActionError as exc:
            return _error(exc)
        return ToolOutput(text="The plan is aborted.")


class AskUser(_PlanTool):
    """A member's question to the user during a plan step: the step blocks, the run ends."""

    name = "ask_user"
    description = ("Ask the user for something only they can give (a choice, a value, an "
                   "approval). Your run ends with this call; the user's answer comes back to "
                   "you as its result, and you continue the step from there.")
    input_schema: ClassVar[dict[str, Any]] = _FORM

    def __init__(self, executor: PlanExecutor, member: str | None = None,
                 locate: Callable[[str], int | None] | None = None) -> None:
        super().__init__(executor)
        self.member = member
        self.locate = locate  # member -> the plan step its current run works on

    async def execute(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        member = self.member or ctx.agent
        try:
            form = StepForm.model_validate(arguments)
            step = self.executor.ask(member, form, ctx.call_id,
                                     index=self.locate(member) if self.locate else None)
        except (ValueError, PlanActionError) as exc:
            return _error(exc)
        # The call stays open (a placeholder no model request carries): the user's answer
        # takes its place and the member's run goes on from it (plan_team.TeamStepRunner).
        return ToolOutput(text=f"(plan step {step.index}: waiting for the user's answer)",
                          awaiting="user")


def commander_plan_tools(executor: PlanExecutor, request: Any = None) -> list[Tool]:
    """The commander's plan tools bound to ``executor`` (``request``: () -> (text, files))."""
    return [WritePlan(executor, request), RevisePlan(executor), RetryStep(executor),
            SkipStep(executor), AbortPlan(executor)]
