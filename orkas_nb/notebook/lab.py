"""``orkas_nb.notebook.lab``, the path the README has documented for the lab views, kept
importable: the views live in :mod:`orkas_nb.notebook.views.lab`, their inline approval
prompts in :mod:`orkas_nb.notebook.approvals.lab`."""

from .approvals.lab import LabApprover
from .views.lab import (
    LabRenderer,
    PlanAction,
    PlanControl,
    PlanWidget,
    RunWidget,
    choose_renderer,
    has_run_view,
    probe_frontend,
)

__all__ = [
    "LabApprover",
    "LabRenderer",
    "PlanAction",
    "PlanControl",
    "PlanWidget",
    "RunWidget",
    "choose_renderer",
    "has_run_view",
    "probe_frontend",
]
