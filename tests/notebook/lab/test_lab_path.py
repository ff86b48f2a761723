"""``orkas_nb.notebook.lab``, the old path of the lab views: its ``__all__`` is what it re-exports."""

from __future__ import annotations

import inspect

from orkas_nb.notebook import lab
from orkas_nb.notebook.approvals import lab as approvals_lab
from orkas_nb.notebook.views import lab as views_lab


def test_the_re_export_list_names_every_re_exported_object_and_nothing_else() -> None:
    bound = {name for name, value in vars(lab).items()
             if not name.startswith("_") and not inspect.ismodule(value)}
    assert sorted(lab.__all__) == sorted(bound)
    # the whole of the lab views, and the approver of the lab's inline prompts
    assert set(lab.__all__) == set(views_lab.__all__) | {"LabApprover"}
    for name in views_lab.__all__:
        assert getattr(lab, name) is getattr(views_lab, name), name
    assert lab.LabApprover is approvals_lab.LabApprover
