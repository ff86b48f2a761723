"""The commander's three tools (seed 003 §3) and its system-prompt section.

Assignment is only ever one of these calls: a model that writes ``@researcher`` in its text
dispatches nothing. ``dispatch_to`` and ``run_worker`` may run alongside each other (several
independent tasks at once; ``concurrency_safe``); ``hand_off_to`` runs alone and ends the
commander's turn (``ToolOutput.end_turn``), so the agent answers the user with no synthesis.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, ClassVar

from ..core.errors import StateError
from ..harness.tool_protocol import Tool, ToolContext, ToolOutput
from .bus import MEMBER_NAME

if TYPE_CHECKING:
    from .definitions import AgentDefinition
    from .runtime import TaskOutcome, Team

__all__ = ["commander_prompt", "commander_tools"]


def _agent_field(team: Team, what: str) -> dict[str, Any]:
    return {"type": "string", "enum": team.names, "description": what}


def _output(outcome: TaskOutcome) -> ToolOutput:
    return ToolOutput(text=outcome.tool_text(), is_error=outcome.status != "done",
                      output_files=outcome.output_files)


_RETRY_OF = {"type": "string", "description": (
    "when this retries a task reported interrupted or failed: that task's id (a task is "
    "retried at most once)")}


class _TeamTool:
    read_only = False

    def __init__(self, team: Team) -> None:
        self.team = team


class DispatchTo(_TeamTool):
    name = "dispatch_to"
    concurrency_safe = True  # each dispatch writes only its own bus messages and task
    description = ("Send one of the team's agents a task: it works on it to the end and its final "
                   "report comes back to you. Call it several times in one answer to run "
                   "independent tasks in parallel. Give the whole task: the agent sees only "
                   "what you send it.")

    def __init__(self, team: Team) -> None:
        super().__init__(team)
        self.input_schema = {
            "type": "object", "additionalProperties": False, "required": ["agent", "task"],
            "properties": {"agent": _agent_field(team, "who does the task"),
                           "task": {"type": "string", "minLength": 1,
                                    "description": "the complete task, with what it needs"},
                           "retry_of": _RETRY_OF},
        }

    async def execute(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        try:
            outcome = await self.team.dispatch(arguments["agent"], arguments["task"],
                                               retry_of=arguments.get("retry_of"),
                                               call_id=ctx.call_id)
        except StateError as exc:
            return ToolOutput(text=f"Nothing was dispatched: {exc}", is_error=True)
        return _output(outcome)


class RunWorker(_TeamTool):
    name = "run_worker"
    concurrency_safe = True
    description = ("Run a sub-task you stay responsible for, on a fresh worker with your own "
                   "tools; its result comes back to you. Without a name the worker is your "
                   "hand, unseen by the user; with a name it shows as a visible specialist.")
    input_schema: ClassVar[dict[str, Any]] = {
        "type": "object", "additionalProperties": False, "required": ["task"],
        "properties": {
            "task": {"type": "string", "minLength": 1, "description": "the complete sub-task"},
            "name": {"type": "string", "pattern": f"^{MEMBER_NAME.pattern}$",
                     "description": "a display label for a visible specialist (optional)"},
            "retry_of": _RETRY_OF,
        },
    }

    async def execute(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        try:
            outcome = await self.team.worker(arguments["task"], arguments.get("name"),
                                             retry_of=arguments.get("retry_of"),
                                             call_id=ctx.call_id)
        except StateError as exc:
            return ToolOutput(text=f"Nothing was run: {exc}", is_error=True)
        return _output(outcome)


class HandOffTo(_TeamTool):
    name = "hand_off_to"
    concurrency_safe = False
    description = ("Give the conversation to an agent: it answers the user directly, and the "
                   "user's next messages go to it until it hands the floor back. Your turn ends "
                   "with this call; write nothing after it.")

    def __init__(self, team: Team) -> None:
        super().__init__(team)
        self.input_schema = {
            "type": "object", "additionalProperties": False, "required": ["agent"],
            "properties": {"agent": _agent_field(team, "who takes the floor"),
                           "message": {"type": "string",
                                       "description": "what the agent should know (a summary)"}},
        }

    async def execute(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolOutput:
        text = self.team.hand_off(arguments["agent"], arguments.get("message", ""))
        return ToolOutput(text=text, end_turn=True)


def commander_tools(team: Team) -> list[Tool]:
    """``dispatch_to``, ``run_worker`` and ``hand_off_to`` bound to ``team``."""
    return [DispatchTo(team), RunWorker(team), HandOffTo(team)]


def commander_prompt(definitions: Iterable[AgentDefinition]) -> str:
    """The section of the commander's system prompt that presents the team."""
    members = "\n".join(f"- {d.name}: {' '.join(d.description.split())}" for d in definitions)
    return f"""\
You are the commander of a team; the user talks to you, and you decide who works on what.
Agents of your team:
{members}
Assign work only by calling a tool: dispatch_to(agent, task) for a task an agent does to the
end (call it several times at once for independent tasks); run_worker(task, name?) for a
sub-task you keep; hand_off_to(agent) when the user should talk with an agent directly.
Writing "@name" in your text assigns nothing. Each agent sees only what you send it, so give
complete tasks; then answer the user from their reports. Work reported interrupted (a stop, a
kernel restart) never runs again by itself: decide whether to dispatch it again (dispatch_to
with retry_of) or to tell the user. When no agent or skill fits, you may solve the task yourself
with bash and a short script; once its output checks out, offer the user to keep it as a skill
(save_skill, which asks for their approval before writing anything)."""
