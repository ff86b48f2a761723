"""What the plan executor needs of the world: a :class:`StepRunner`, and how runs end.

The executor (:mod:`.plan_executor`) decides; a runner carries steps to their assignees. The
team's runner (:mod:`.plan_team`) does it over the conversation's bus, exactly as
``dispatch_to``; a test may hand in its own.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol

from pydantic import BaseModel, Field

from .plan import PlanStep, StepForm

__all__ = ["PlanActionError", "PlanRejected", "StepOutcome", "StepRunner"]


class PlanRejected(ValueError):
    """A proposed plan or revision that cannot run; ``problems`` says why. Nothing changed."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("the plan was not accepted:\n" + "\n".join(f"- {p}" for p in problems))
        self.problems = problems


class PlanActionError(ValueError):
    """An action (answer, retry, skip, resume...) not allowed now; nothing changed."""


class StepOutcome(BaseModel):
    """How one run of a step ended, as the runner reports it."""

    status: Literal["done", "failed"]
    summary: str = ""  # the assignee's final text (the executor caps it)
    output_files: list[str] = Field(default_factory=list)
    reason: str = ""
    transient: bool = False  # a connection, rate limit or 5xx error, after the agent's own retries
    stopped: bool = False  # the group stop ended it: the plan pauses, on_failure does not apply


class StepRunner(Protocol):
    """How steps reach their assignees; see :class:`~.plan_team.TeamStepRunner`."""

    async def run_agent(self, step: PlanStep, text: str) -> StepOutcome:
        """Dispatch ``text`` to ``step.assignee`` (one bus message) and run it to its end."""

    async def resume_agent(self, step: PlanStep, answer: dict[str, Any]) -> StepOutcome:
        """Resume a blocked agent from the user's ``answer``, saved as its ``ask_user`` call's
        result (idempotent: called again after a restart, it never gives the answer twice)."""

    def withdraw(self, step: PlanStep, reason: str) -> None:
        """A blocked agent step's question will not be answered (skipped, aborted): close it.
        Optional: the executor calls it when the runner has it."""

    async def run_commander(self, step: PlanStep | None, text: str) -> StepOutcome:
        """A private wake-up of the commander: a ``commander`` step, or (``step`` None) a
        decision about a failed step; its plan tools act on this executor meanwhile."""

    def post_form(self, step: PlanStep, form: StepForm) -> None:
        """Show the user a step's form (on the bus); the answer comes to :meth:`answer`."""

    def stop(self, reason: str) -> None:
        """Abort every run in flight."""

    def clear_stop(self) -> None:
        """Let runs start again after a stop (on resume)."""
