"""team (SPEC §2, §11): multi-agent orchestration. So far it holds the plan model."""

from .plan import FormField, Plan, PlanState, PlanStep, StepForm, StepStatus, check_action  # noqa: F401
