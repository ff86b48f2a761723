"""The composition root: ``Agent`` wires a provider, tools and a session around the harness."""

from .agent import Agent, DEFAULT_SYSTEM_PROMPT  # noqa: F401
