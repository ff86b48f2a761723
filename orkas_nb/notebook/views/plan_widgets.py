"""The plan with the built-in ipywidgets, for front ends without the labextension.

The same picture the labextension draws, in plain widgets: the steps in index order (status
colour, assignee badge, what each waits for, its output or failure), and below them the
controls the plan needs now: each blocked step's form (or an Approve button), Retry and Skip on
a failed step, Resume on a paused plan, Stop on a running one. Every control goes through the
:class:`~.plan_control.PlanControl`, so what the user may do is the executor's to decide.
"""

from __future__ import annotations

import html
from typing import Any

import ipywidgets as w

from .plan_control import PlanControl
from .plan_picture import STATUS_WORDS, PlanPicture, StepPicture, plan_text

COLOURS = {"pending": "#9e9e9e", "in_progress": "#1976d2", "done": "#388e3c",
           "failed": "#d32f2f", "skipped": "#bdbdbd", "blocked": "#f57c00"}


def steps_html(p: PlanPicture) -> str:
    rows = []
    for s in sorted(p.steps, key=lambda s: s.index):
        waits = ", ".join(f"#{d}" for d in s.wait_for) or "—"
        extra = s.failure_reason or s.output_summary
        rows.append(
            f'<tr class="orkas-plan-row" data-step="{s.index}" data-status="{s.status}">'
            f'<td style="border-left:4px solid {COLOURS[s.status]};padding-left:6px">#{s.index}</td>'
            f"<td><b>{html.escape(s.title)}</b></td>"
            f'<td><span style="border:1px solid #ccc;border-radius:8px;padding:0 6px">'
            f"{html.escape(s.assignee)}</span></td>"
            f"<td>{STATUS_WORDS[s.status]}</td><td>after {waits}</td>"
            f"<td>{html.escape(extra[:200])}</td></tr>")
    head = html.escape(p.title or "Plan")
    return (f'<div class="orkas-plan-fallback" data-state="{p.state}"><b>{head}</b> '
            f"<i>({p.state})</i><table>{''.join(rows)}</table></div>")


class PlanBox(w.VBox):  # type: ignore[misc] # ipywidgets is untyped
    """The fallback plan view; redrawn on each picture the control hands it."""

    def __init__(self, control: PlanControl, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.control = control
        self.graph = w.HTML()
        self.controls = w.VBox()
        self.error = w.HTML()
        self.children = [self.graph, self.controls, self.error]
        self._key = ""
        control.add_view(self.draw)

    def draw(self, p: PlanPicture) -> None:
        self.graph.value = steps_html(p)
        key = p.model_dump_json()
        if key == self._key:
            return  # unchanged: keep what the user is typing
        self._key = key
        rows: list[Any] = []
        for s in sorted(p.steps, key=lambda s: s.index):
            rows += self._step_controls(s)
        if p.state == "paused":
            rows.append(self._button("Resume", "resume", None))
        elif p.state == "running":
            rows.append(self._button("Stop", "stop", None))
        self.controls.children = rows

    def _button(self, label: str, action: str, step: int | None,
                values: Any = None) -> w.Button:
        b = w.Button(description=label, tooltip=f"{label} step {step}" if step else label)
        b.add_class(f"orkas-plan-{action}")
        b.on_click(lambda _b: self._act(action, step, values() if values else {}))
        return b

    def _step_controls(self, s: StepPicture) -> list[Any]:
        out: list[Any] = []
        if s.status == "blocked" and s.form is not None and s.form.fields:
            inputs: dict[str, Any] = {}
            for f in s.form.fields:
                label = f.label or f.name
                if f.kind == "choice":
                    inputs[f.name] = w.Dropdown(options=["", *f.choices], description=label)
                elif f.kind == "bool":
                    inputs[f.name] = w.Checkbox(description=label)
                else:
                    inputs[f.name] = w.Text(description=label)
            send = self._button("Send answer", "answer", s.index,
                                lambda: {k: v.value for k, v in inputs.items()})
            out.append(w.VBox([w.HTML(f"<b>#{s.index}</b> {html.escape(s.form.prompt)}"),
                               *inputs.values(), send]))
        elif s.status == "blocked":  # a form with no fields: an approval
            prompt = s.form.prompt if s.form is not None else s.title
            out.append(w.HBox([w.HTML(f"#{s.index} {html.escape(prompt)}"),
                               self._button("Approve", "approve", s.index)]))
        if s.status == "failed":
            out.append(w.HBox([w.HTML(f"#{s.index} failed: {html.escape(s.failure_reason)}"),
                               self._button("Retry", "retry", s.index),
                               self._button("Skip", "skip", s.index)]))
        return out

    def _act(self, action: str, step: int | None, values: dict[str, Any]) -> None:
        self.error.value = ""
        self.control.act(action, step, values, on_error=self._show_error)

    def _show_error(self, message: str) -> None:
        self.error.value = f'<span style="color:#d32f2f">{html.escape(message)}</span>'

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        bundle = super()._repr_mimebundle_(**kwargs) or {}
        bundle["text/plain"] = plan_text(self.control.current)
        return bundle


__all__ = ["PlanBox", "steps_html"]
