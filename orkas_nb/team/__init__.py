"""team (SPEC §2, §11): multi-agent orchestration. So far it holds the plan model and the agent
factory contract the composition root fulfils."""

from .factory import AgentFactory, MemberSpec, TeamMember  # noqa: F401
from .plan import FormField, Plan, PlanState, PlanStep, StepForm, StepStatus, check_action  # noqa: F401
