/**
 * Team lanes: each visible member run drawn in its own collapsible box (SPEC §11), the same in
 * the live run view (from `lane` items, run_view.py) and in a saved transcript (its `lanes`).
 *
 * The header says who (the member), how the work came (dispatch, worker, floor), the status
 * (running, done, stopped, error), the tokens and the cost at the member's own price; the body
 * holds only that member's text, tool cards and notices.
 */
import { duration, el } from './format';

export const HANDED_BACK = 'handed the floor back';

const STATUS_WORDS: Record<string, string> = {
  running: 'running',
  done: 'done',
  stopped: 'stopped',
  error: 'failed'
};

export interface ILaneState {
  status?: string;
  requests?: number;
  tokens_in?: number;
  tokens_out?: number;
  cost?: number | null;
  handed_back?: boolean;
  error?: string;
  duration_s?: number;
}

export function costText(cost: number | null | undefined): string {
  return typeof cost === 'number' ? `$${cost.toFixed(cost < 0.01 ? 4 : 2)}` : '';
}

export class LaneBox {
  readonly node: HTMLDetailsElement;
  readonly body: HTMLDivElement;
  private _status: HTMLSpanElement;
  private _facts: HTMLSpanElement;
  private _mark: HTMLDivElement | null = null;
  private _error: HTMLDivElement | null = null;

  constructor(member: string, kind: string) {
    this.node = el('details', 'orkas-lane');
    this.node.open = true;
    this.node.dataset.member = member;
    this.node.dataset.kind = kind;
    const summary = el('summary', 'orkas-lane-summary');
    this._status = el('span', 'orkas-lane-status');
    this._status.setAttribute('role', 'status');
    this._facts = el('span', 'orkas-lane-facts');
    summary.append(
      el('span', 'orkas-lane-member', member),
      el('span', 'orkas-badge orkas-lane-kind', kind),
      this._status,
      this._facts
    );
    this.body = el('div', 'orkas-lane-body');
    this.node.append(summary, this.body);
    this.update({ status: 'running' });
  }

  update(state: ILaneState): void {
    const status = state.status ?? 'running';
    this.node.dataset.status = status;
    this._status.textContent = STATUS_WORDS[status] ?? status;
    const facts: string[] = [];
    if (state.requests) {
      facts.push(`${state.requests} model request${state.requests === 1 ? '' : 's'}`);
    }
    const tin = state.tokens_in ?? 0;
    const tout = state.tokens_out ?? 0;
    if (tin || tout) {
      facts.push(`${tin.toLocaleString()} in / ${tout.toLocaleString()} out tokens`);
    }
    const cost = costText(state.cost);
    if (cost) {
      facts.push(cost);
    }
    if (typeof state.duration_s === 'number' && state.duration_s > 0) {
      facts.push(duration(state.duration_s));
    }
    this._facts.textContent = facts.join(' · ');
    if (state.handed_back && !this._mark) {
      this._mark = el('div', 'orkas-lane-handback', `↩ ${HANDED_BACK}`);
      this.node.dataset.handedBack = 'true';
      this.node.appendChild(this._mark);
    }
    if (state.error && !this._error) {
      this._error = el('div', 'orkas-notice orkas-notice-error', state.error);
      this.node.appendChild(this._error);
    }
  }
}
