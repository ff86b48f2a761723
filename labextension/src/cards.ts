/**
 * The pieces a run is drawn with, shared by the live run view and the transcript renderer:
 * tool cards, notices, approval prompts.
 */
import { argsPreview, duration, el, TOOL_ICONS } from './format';
import { IApprovalItem } from './protocol';

export class ToolCard {
  readonly node: HTMLDetailsElement;
  private _icon: HTMLSpanElement;
  private _time: HTMLSpanElement;
  private _result: HTMLPreElement;
  private _startedAt = performance.now();

  constructor(name: string, args: Record<string, unknown> | string) {
    this.node = el('details', 'orkas-tool');
    this.node.dataset.status = 'running';
    this.node.dataset.tool = name;
    const summary = el('summary', 'orkas-tool-summary');
    this._icon = el('span', 'orkas-tool-icon');
    this._icon.setAttribute('role', 'img');
    const title = el('span', 'orkas-tool-name', name);
    const preview = el(
      'span',
      'orkas-tool-args',
      typeof args === 'string' ? args.slice(0, 90) : argsPreview(args)
    );
    this._time = el('span', 'orkas-tool-time');
    summary.append(this._icon, title, preview, this._time);
    const body = el('div', 'orkas-tool-body');
    const argsBlock = el('pre', 'orkas-tool-argsfull');
    argsBlock.textContent = typeof args === 'string' ? args : JSON.stringify(args, null, 2);
    this._result = el('pre', 'orkas-tool-result');
    body.append(
      el('div', 'orkas-tool-label', 'Arguments'),
      argsBlock,
      el('div', 'orkas-tool-label', 'Result'),
      this._result
    );
    this.node.append(summary, body);
    this.setStatus('running');
  }

  setStatus(status: string): void {
    this.node.dataset.status = status;
    this._icon.textContent = TOOL_ICONS[status] ?? '•';
    this._icon.setAttribute('aria-label', status);
    this._icon.title = status;
  }

  finish(status: string, result: string, truncated: boolean, seconds?: number | null): void {
    this.setStatus(status);
    const took = seconds ?? (performance.now() - this._startedAt) / 1000;
    this._time.textContent = duration(took);
    this._result.textContent = result + (truncated ? '\n…' : '');
    if (status !== 'ok') {
      this.node.open = true; // a failure is worth reading without a click
    }
  }
}

export function notice(level: string, kind: string, text: string): HTMLDivElement {
  const node = el('div', `orkas-notice orkas-notice-${level}`);
  node.dataset.kind = kind;
  node.setAttribute('role', level === 'info' ? 'status' : 'alert');
  node.textContent = text;
  return node;
}

const ANSWER_WORDS: Record<string, string> = {
  once: 'allowed this time',
  run: 'allowed for this run',
  always: 'always allowed',
  deny: 'denied'
};

export class ApprovalPrompt {
  readonly node: HTMLDivElement;
  private _buttons: HTMLButtonElement[] = [];
  private _outcome: HTMLDivElement;

  constructor(item: IApprovalItem, answer: (id: string, option: string) => void) {
    this.node = el('div', 'orkas-approval');
    this.node.dataset.id = item.id;
    this.node.setAttribute('role', 'group');
    this.node.setAttribute('aria-label', item.title);
    const head = el('div', 'orkas-approval-title', item.title);
    if (item.category) {
      head.append(' ', el('span', 'orkas-badge orkas-approval-category', item.category));
    }
    const detail = el('pre', 'orkas-approval-detail', item.detail);
    const row = el('div', 'orkas-approval-buttons');
    for (const option of item.options) {
      const b = el('button', `jp-Button orkas-button orkas-approve-${option.id}`, option.label);
      b.type = 'button';
      b.dataset.option = option.id;
      b.addEventListener('click', () => {
        this._buttons.forEach(x => (x.disabled = true));
        answer(item.id, option.id);
      });
      this._buttons.push(b);
      row.appendChild(b);
    }
    this._outcome = el('div', 'orkas-approval-outcome');
    this._outcome.setAttribute('aria-live', 'polite');
    this.node.append(head, detail, row, this._outcome);
  }

  focus(): void {
    this._buttons[0]?.focus({ preventScroll: true });
  }

  /** Re-enable the buttons (the kernel refused the answer). */
  reopen(): void {
    this._buttons.forEach(x => (x.disabled = false));
  }

  resolve(answer: string, by: string): void {
    this._buttons.forEach(x => (x.disabled = true));
    this.node.dataset.answer = answer;
    const words = ANSWER_WORDS[answer] ?? answer;
    this._outcome.textContent =
      by === 'timeout' ? `${words} (no answer in time)` : by === 'policy' ? `${words} (by policy)` : words;
  }
}
