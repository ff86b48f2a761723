"""team (SPEC §2, §11): multi-agent orchestration — the plan model, and a conversation's
durable state (bus, ledger, member sessions) with its routing parsers.

Names are loaded on first use, so ``import orkas_nb`` stays light.
"""

from __future__ import annotations

import importlib
from typing import Any

from .plan import FormField, Plan, PlanState, PlanStep, StepForm, StepStatus, check_action  # noqa: F401

_LAZY = {
    "BusMessage": "bus", "MessageBus": "bus", "member_session_path": "bus", "team_folder": "bus",
    "check_agent_name": "bus", "RESERVED": "bus",
    "Floor": "ledger", "Task": "ledger", "TaskLedger": "ledger", "TaskStatus": "ledger",
    "Handback": "handback", "Addressed": "handback", "split_handback": "handback",
    "parse_address": "handback",
    "Route": "state", "TeamState": "state",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])
