/**
 * The plan view: a plan (SPEC §11) drawn as a dependency graph, updated live, with the
 * controls a paused plan needs. The kernel validates every action (plan_view.py); this view
 * only offers the ones that make sense for a step's status.
 */
import { DOMWidgetModel, DOMWidgetView, ISerializers } from '@jupyter-widgets/base';

import { el } from './format';
import { dependencies, layoutPlan, NODE_H, NODE_W } from './layout';
import { IErrorMessage, IPlan, IPlanStep, MODULE_NAME, MODULE_VERSION } from './protocol';

const SVG_NS = 'http://www.w3.org/2000/svg';

export class PlanModel extends DOMWidgetModel {
  defaults(): any {
    return {
      ...super.defaults(),
      _model_name: 'PlanModel',
      _model_module: MODULE_NAME,
      _model_module_version: MODULE_VERSION,
      _view_name: 'PlanView',
      _view_module: MODULE_NAME,
      _view_module_version: MODULE_VERSION,
      plan: { id: 'plan', title: '', state: 'running', steps: [] }
    };
  }

  initialize(attributes: any, options: any): void {
    super.initialize(attributes, options);
    this.on('msg:custom', (content: IErrorMessage) => {
      if (content.type === 'error') {
        this.trigger('orkas:error', content.message);
      }
    });
  }

  static serializers: ISerializers = { ...DOMWidgetModel.serializers };
}

const STATUS_WORDS: Record<string, string> = {
  pending: 'pending',
  in_progress: 'in progress',
  done: 'done',
  failed: 'failed',
  skipped: 'skipped',
  blocked: 'needs you'
};

/** A step's box: index, assignee badge, title, status (coloured by CSS from data-status). */
export function stepNode(step: IPlanStep): HTMLDivElement {
  const node = el('div', 'orkas-step');
  node.dataset.step = String(step.index);
  node.dataset.status = step.status;
  node.setAttribute('role', 'listitem');
  node.setAttribute('aria-label', `Step ${step.index}: ${step.title}, ${STATUS_WORDS[step.status] ?? step.status}`);
  const top = el('div', 'orkas-step-top');
  const kind = step.assignee === 'user' || step.assignee === 'commander' ? step.assignee : 'agent';
  top.append(
    el('span', 'orkas-step-index', `#${step.index}`),
    el('span', `orkas-badge orkas-assignee orkas-assignee-${kind}`, step.assignee)
  );
  node.append(
    top,
    el('div', 'orkas-step-title', step.title),
    el('div', 'orkas-step-status', STATUS_WORDS[step.status] ?? step.status)
  );
  node.title = step.output_summary || step.failure_reason || step.title;
  return node;
}

/** The graph: step boxes placed by layoutPlan, wait_for edges drawn as SVG curves. */
export function planGraph(
  plan: IPlan,
  uid: string,
  makeNode: (step: IPlanStep) => HTMLElement = stepNode
): HTMLDivElement {
  const layout = layoutPlan(plan.steps);
  const graph = el('div', 'orkas-plan-graph');
  graph.setAttribute('role', 'list');
  graph.setAttribute('aria-label', 'Plan steps');
  graph.style.width = `${layout.width}px`;
  graph.style.height = `${layout.height}px`;
  const svg = document.createElementNS(SVG_NS, 'svg');
  svg.classList.add('orkas-plan-edges');
  svg.setAttribute('width', String(layout.width));
  svg.setAttribute('height', String(layout.height));
  svg.setAttribute('aria-hidden', 'true');
  const defs = document.createElementNS(SVG_NS, 'defs');
  const marker = document.createElementNS(SVG_NS, 'marker');
  marker.setAttribute('id', `orkas-arrow-${uid}`);
  marker.setAttribute('viewBox', '0 0 10 10');
  marker.setAttribute('refX', '9');
  marker.setAttribute('refY', '5');
  marker.setAttribute('markerWidth', '7');
  marker.setAttribute('markerHeight', '7');
  marker.setAttribute('orient', 'auto-start-reverse');
  const tip = document.createElementNS(SVG_NS, 'path');
  tip.setAttribute('d', 'M 0 0 L 10 5 L 0 10 z');
  tip.classList.add('orkas-plan-arrow');
  marker.appendChild(tip);
  defs.appendChild(marker);
  svg.appendChild(defs);
  const byIndex = new Map(plan.steps.map(s => [s.index, s]));
  const waits = dependencies(plan.steps);
  for (const step of plan.steps) {
    const to = layout.nodes.get(step.index)!;
    for (const dep of waits.get(step.index) ?? []) {
      const from = layout.nodes.get(dep);
      if (!from) {
        continue;
      }
      const x1 = from.x + NODE_W;
      const y1 = from.y + NODE_H / 2;
      const x2 = to.x - 2;
      const y2 = to.y + NODE_H / 2;
      const mid = (x1 + x2) / 2;
      const path = document.createElementNS(SVG_NS, 'path');
      path.setAttribute('d', `M ${x1} ${y1} C ${mid} ${y1}, ${mid} ${y2}, ${x2} ${y2}`);
      path.classList.add('orkas-plan-edge');
      path.dataset.from = String(dep);
      path.dataset.to = String(step.index);
      path.dataset.status = byIndex.get(dep)?.status ?? 'pending';
      path.setAttribute('marker-end', `url(#orkas-arrow-${uid})`);
      svg.appendChild(path);
    }
  }
  graph.appendChild(svg);
  for (const step of plan.steps) {
    const box = layout.nodes.get(step.index)!;
    const node = makeNode(step);
    node.style.left = `${box.x}px`;
    node.style.top = `${box.y}px`;
    graph.appendChild(node);
  }
  return graph;
}

export class PlanView extends DOMWidgetView {
  private _header!: HTMLDivElement;
  private _graph!: HTMLDivElement;
  private _detail!: HTMLDivElement;
  private _errors!: HTMLDivElement;
  private _selected: number | null = null;
  private _chosen = false; // the user selected a step (else the view follows what needs them)
  private _detailKey = '';
  private _drafts = new Map<number, Record<string, unknown>>();

  render(): void {
    this.el.classList.add('orkas-plan');
    this._header = el('div', 'orkas-plan-header');
    this._graph = el('div', 'orkas-plan-graph');
    this._detail = el('div', 'orkas-plan-detail');
    this._errors = el('div', 'orkas-plan-errors');
    this._errors.setAttribute('aria-live', 'assertive');
    this.el.append(this._header, this._graph, this._detail, this._errors);
    this.listenTo(this.model, 'change:plan', () => this._draw());
    this.listenTo(this.model, 'orkas:error', (m: string) => {
      this._errors.replaceChildren(el('div', 'orkas-run-error', m));
    });
    this._draw();
  }

  private get _plan(): IPlan {
    return this.model.get('plan') as IPlan;
  }

  private _draw(): void {
    const plan = this._plan;
    this.el.dataset.state = plan.state;
    const counts = plan.steps.reduce<Record<string, number>>((acc, s) => {
      acc[s.status] = (acc[s.status] ?? 0) + 1;
      return acc;
    }, {});
    const summary = Object.entries(counts)
      .map(([k, v]) => `${v} ${STATUS_WORDS[k] ?? k}`)
      .join(' · ');
    this._header.replaceChildren(
      el('span', 'orkas-plan-title', plan.title || 'Plan'),
      el('span', `orkas-badge orkas-plan-state orkas-plan-state-${plan.state}`, plan.state),
      el('span', 'orkas-plan-summary', summary)
    );
    // The plan's own controls: what the executor offers for the plan as a whole.
    if (plan.state === 'paused') {
      this._header.append(this._planButton('Resume', 'resume'));
    } else if (plan.state === 'running') {
      this._header.append(this._planButton('Stop', 'stop'));
    }
    this._drawGraph(plan);
    if (!plan.steps.length) {
      this._graph.replaceChildren(el('div', 'orkas-plan-empty', 'No plan yet: the commander has not written one.'));
    }
    if (!this._chosen || !plan.steps.some(s => s.index === this._selected)) {
      // Until the user picks a step, show the one that needs them: a form first, then a failure.
      const waiting = plan.steps.find(s => s.status === 'blocked') ?? plan.steps.find(s => s.status === 'failed');
      this._selected = waiting ? waiting.index : null;
      this._chosen = false;
    }
    this._drawDetail(plan);
  }

  private _drawGraph(plan: IPlan): void {
    const focused = (document.activeElement as HTMLElement | null)?.dataset?.step;
    const graph = planGraph(plan, `v${this.cid}`, step => this._stepNode(step));
    this._graph.replaceWith(graph);
    this._graph = graph;
    if (focused !== undefined) {
      (graph.querySelector(`[data-step="${focused}"]`) as HTMLElement | null)?.focus({ preventScroll: true });
    }
  }

  private _stepNode(step: IPlanStep): HTMLDivElement {
    const node = stepNode(step);
    node.tabIndex = 0;
    if (step.index === this._selected) {
      node.classList.add('orkas-step-selected');
    }
    const select = (): void => {
      this._selected = step.index;
      this._chosen = true;
      this._draw();
    };
    node.addEventListener('click', select);
    node.addEventListener('keydown', ev => {
      if (ev.key === 'Enter' || ev.key === ' ') {
        ev.preventDefault();
        ev.stopPropagation();
        select();
      }
    });
    return node;
  }

  private _drawDetail(plan: IPlan): void {
    const step = plan.steps.find(s => s.index === this._selected);
    const key = step ? JSON.stringify(step) + plan.state : '';
    if (key === this._detailKey) {
      return; // unchanged: keep what the user is typing, and the focus
    }
    this._detailKey = key;
    this._detail.replaceChildren();
    if (!step) {
      return;
    }
    this._detail.dataset.step = String(step.index);
    const head = el('div', 'orkas-plan-detail-head', `#${step.index} ${step.title}`);
    this._detail.appendChild(head);
    const waits = dependencies(plan.steps).get(step.index) ?? [];
    const facts: [string, string][] = [
      ['Status', STATUS_WORDS[step.status] ?? step.status],
      ['Assignee', step.assignee],
      ['Waits for', waits.length ? waits.map(i => `#${i}`).join(', ') : '—']
    ];
    if (step.attempts && step.attempts > 1) {
      facts.push(['Attempts', String(step.attempts)]);
    }
    if (step.output_summary) {
      facts.push(['Output', step.output_summary]);
    }
    if (step.failure_reason) {
      facts.push(['Failure', step.failure_reason]);
    }
    const dl = el('dl', 'orkas-plan-facts');
    for (const [k, v] of facts) {
      dl.append(el('dt', '', k), el('dd', '', v));
    }
    this._detail.appendChild(dl);
    const controls = el('div', 'orkas-plan-controls');
    if (step.status === 'blocked' && step.form && step.form.fields.length) {
      controls.appendChild(this._form(step));
    } else if (step.status === 'blocked') {
      // a form with no fields asks for an approval
      if (step.form?.prompt) {
        controls.appendChild(el('div', 'orkas-plan-prompt', step.form.prompt));
      }
      controls.appendChild(this._button('Approve', 'approve', step));
    }
    if (step.status === 'failed') {
      controls.appendChild(this._button('Retry', 'retry', step));
    }
    if (['pending', 'blocked', 'failed'].includes(step.status)) {
      controls.appendChild(this._button('Skip', 'skip', step));
    }
    this._detail.appendChild(controls);
  }

  private _button(label: string, action: string, step: IPlanStep, values?: () => Record<string, unknown>): HTMLButtonElement {
    const b = el('button', `jp-Button orkas-button orkas-plan-${action}`, label);
    b.type = action === 'answer' ? 'submit' : 'button';
    if (action !== 'answer') {
      b.addEventListener('click', () => this._act(action, step.index, values ? values() : {}));
    }
    return b;
  }

  private _form(step: IPlanStep): HTMLFormElement {
    const form = el('form', 'orkas-plan-form');
    form.append(el('div', 'orkas-plan-prompt', step.form!.prompt));
    const draft = this._drafts.get(step.index) ?? {};
    this._drafts.set(step.index, draft);
    for (const field of step.form!.fields) {
      const id = `orkas-${this.cid}-${step.index}-${field.name}`;
      const label = el('label', 'orkas-plan-label', field.label || field.name);
      label.htmlFor = id;
      let input: HTMLInputElement | HTMLSelectElement;
      if (field.kind === 'choice') {
        const select = el('select', 'jp-mod-styled orkas-plan-input');
        select.append(el('option', '', '—'));
        select.options[0].value = '';
        for (const c of field.choices) {
          const o = el('option', '', c);
          o.value = c;
          select.append(o);
        }
        input = select;
        select.value = String(draft[field.name] ?? '');
        select.addEventListener('change', () => (draft[field.name] = select.value));
      } else if (field.kind === 'bool') {
        const box = el('input', 'orkas-plan-input');
        box.type = 'checkbox';
        box.checked = Boolean(draft[field.name]);
        box.addEventListener('change', () => (draft[field.name] = box.checked));
        input = box;
      } else {
        const text = el('input', 'jp-mod-styled orkas-plan-input');
        text.type = 'text';
        text.value = String(draft[field.name] ?? '');
        text.addEventListener('input', () => (draft[field.name] = text.value));
        input = text;
      }
      input.id = id;
      input.name = field.name;
      input.required = field.required && field.kind !== 'bool';
      form.append(label, input);
    }
    form.append(this._button('Send answer', 'answer', step));
    form.addEventListener('keydown', ev => ev.stopPropagation());
    form.addEventListener('submit', ev => {
      ev.preventDefault();
      this._act('answer', step.index, { ...draft });
    });
    return form;
  }

  private _planButton(label: string, action: string): HTMLButtonElement {
    const b = el('button', `jp-Button orkas-button orkas-plan-${action}`, label);
    b.type = 'button';
    b.addEventListener('click', () => this._act(action, null, {}));
    return b;
  }

  private _act(action: string, step: number | null, values: Record<string, unknown>): void {
    this._errors.replaceChildren();
    this.send({ type: 'plan_action', action, step, values });
  }
}
