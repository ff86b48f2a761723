/**
 * The run view: a live agent run drawn from the kernel's RunWidget (run_view.py).
 *
 * The model keeps every item the kernel sent (so a second view of the same run, or one drawn
 * after a page reload, replays it) and asks the kernel for a replay when it sees a gap.
 */
import { DOMWidgetModel, DOMWidgetView, ISerializers } from '@jupyter-widgets/base';

import { ApprovalPrompt, notice, ToolCard } from './cards';
import { duration, el } from './format';
import { LaneBox } from './lanes';
import { StreamingMarkdown } from './markdown';
import { appMarkdown } from './rendermime';
import { IErrorMessage, IItemsMessage, MODULE_NAME, MODULE_VERSION, RunItem } from './protocol';

/** Where items are drawn: the run's own body, or one team member's lane. */
interface ISink {
  body: HTMLElement;
  text: StreamingMarkdown | null;
  thinking: HTMLElement | null;
}

export class RunModel extends DOMWidgetModel {
  items: RunItem[] = [];

  defaults(): any {
    return {
      ...super.defaults(),
      _model_name: 'RunModel',
      _model_module: MODULE_NAME,
      _model_module_version: MODULE_VERSION,
      _view_name: 'RunView',
      _view_module: MODULE_NAME,
      _view_module_version: MODULE_VERSION,
      agent: 'agent',
      model_name: '',
      session_name: '',
      prompt: '',
      status: 'starting',
      started: 0,
      elapsed: 0,
      tokens_in: 0,
      tokens_out: 0,
      cost: null,
      stop_reason: ''
    };
  }

  initialize(attributes: any, options: any): void {
    super.initialize(attributes, options);
    this.items = [];
    this.on('msg:custom', this._onCustom, this);
    // Items sent before this model existed (a reloaded page) come back as a replay.
    this.send({ type: 'replay', start: 0 }, {});
  }

  private _onCustom(content: IItemsMessage | IErrorMessage): void {
    if (content.type === 'error') {
      this.trigger('orkas:error', content.message);
      return;
    }
    if (content.type !== 'items') {
      return;
    }
    const have = this.items.length;
    if (content.start > have) {
      this.send({ type: 'replay', start: have }, {});
      return;
    }
    const fresh = content.items.slice(have - content.start);
    if (!fresh.length) {
      return;
    }
    this.items.push(...fresh);
    this.trigger('orkas:items', fresh);
  }

  static serializers: ISerializers = { ...DOMWidgetModel.serializers };
}

const STATUS_WORDS: Record<string, string> = {
  starting: 'Starting',
  running: 'Running',
  waiting: 'Waiting for you',
  stopping: 'Stopping…',
  done: 'Done',
  error: 'Failed',
  cancelled: 'Stopped'
};

export class RunView extends DOMWidgetView {
  private _body!: HTMLDivElement;
  private _status!: HTMLSpanElement;
  private _facts!: HTMLSpanElement;
  private _stop!: HTMLButtonElement;
  private _steer!: HTMLInputElement;
  private _steerButton!: HTMLButtonElement;
  private _errors!: HTMLDivElement;
  private _main: ISink = { body: document.createElement('div'), text: null, thinking: null };
  private _lanes = new Map<string, { box: LaneBox; sink: ISink }>();
  private _cards = new Map<string, ToolCard>();
  private _prompts = new Map<string, ApprovalPrompt>();
  private _clock: number | null = null;
  private _shownAt = Date.now();
  private _stopping = false;

  get runModel(): RunModel {
    return this.model as RunModel;
  }

  render(): void {
    this.el.classList.add('orkas-run');
    const bar = el('div', 'orkas-run-bar');
    this._status = el('span', 'orkas-run-status');
    this._status.setAttribute('role', 'status');
    this._facts = el('span', 'orkas-run-facts');
    this._stop = el('button', 'jp-Button orkas-button orkas-stop', '■ Stop');
    this._stop.type = 'button';
    this._stop.setAttribute('aria-label', 'Stop the run');
    this._stop.addEventListener('click', () => this._onStop());
    bar.append(this._status, this._facts, this._stop);

    this._body = el('div', 'orkas-run-body');
    this._main = { body: this._body, text: null, thinking: null };
    this._errors = el('div', 'orkas-run-errors');
    this._errors.setAttribute('aria-live', 'assertive');

    const steer = el('form', 'orkas-steer');
    this._steer = el('input', 'jp-mod-styled orkas-steer-input');
    this._steer.type = 'text';
    this._steer.placeholder = 'Steer the running agent…';
    this._steer.setAttribute('aria-label', 'Steer the running agent');
    this._steerButton = el('button', 'jp-Button orkas-button orkas-steer-send', 'Send');
    this._steerButton.type = 'submit';
    steer.append(this._steer, this._steerButton);
    steer.addEventListener('submit', ev => {
      ev.preventDefault();
      this._onSteer();
    });
    // Keys typed here belong to the box, not to the notebook's command mode.
    steer.addEventListener('keydown', ev => ev.stopPropagation());

    this.el.append(bar, this._body, this._errors, steer);

    this._apply(this.runModel.items);
    this.listenTo(this.model, 'orkas:items', (items: RunItem[]) => this._apply(items));
    this.listenTo(this.model, 'orkas:error', (m: string) => this._showError(m));
    this.listenTo(this.model, 'change', () => this._updateBar());
    this._updateBar();
    this._clock = window.setInterval(() => this._updateBar(), 1000);
    this.send({ type: 'ready' });
  }

  remove(): any {
    if (this._clock !== null) {
      window.clearInterval(this._clock);
      this._clock = null;
    }
    return super.remove();
  }

  /** The sink an item is drawn in: its lane's (a team member's run), else the run's body. */
  private _sink(item: RunItem): ISink {
    const lane = 'lane' in item && item.lane ? this._lanes.get(item.lane) : undefined;
    return lane ? lane.sink : this._main;
  }

  private _lane(item: Extract<RunItem, { k: 'lane' }>): void {
    let lane = this._lanes.get(item.lane);
    if (!lane) {
      const box = new LaneBox(item.member, item.kind);
      lane = { box, sink: { body: box.body, text: null, thinking: null } };
      this._lanes.set(item.lane, lane);
      this._body.appendChild(box.node);
      // what the commander says next is a new segment, below the lane
      this._main.text = null;
      this._main.thinking = null;
    }
    lane.box.update(item);
    this.el.dataset.lanesRunning = String(
      [...this._lanes.values()].filter(l => l.box.node.dataset.status === 'running').length
    );
  }

  private _apply(items: RunItem[]): void {
    for (const item of items) {
      if (item.k === 'lane') {
        this._lane(item);
        continue;
      }
      const sink = this._sink(item);
      switch (item.k) {
        case 'text':
          if (!sink.text) {
            sink.text = new StreamingMarkdown(appMarkdown());
            sink.body.appendChild(sink.text.node);
          }
          sink.text.append(item.text);
          sink.thinking = null;
          break;
        case 'thinking':
          if (!sink.thinking) {
            const box = el('details', 'orkas-thinking');
            box.append(el('summary', '', 'Thinking'));
            sink.thinking = el('div', 'orkas-thinking-text');
            box.appendChild(sink.thinking);
            sink.body.appendChild(box);
          }
          sink.thinking.append(item.text);
          break;
        case 'tool_start': {
          const card = new ToolCard(item.name, item.args);
          this._cards.set(item.id, card);
          sink.body.appendChild(card.node);
          sink.text = null;
          sink.thinking = null;
          break;
        }
        case 'tool_end': {
          let card = this._cards.get(item.id);
          if (!card) {
            card = new ToolCard(item.name, {});
            this._cards.set(item.id, card);
            sink.body.appendChild(card.node);
          }
          card.finish(item.status, item.result, item.truncated, item.duration_s);
          break;
        }
        case 'notice':
          sink.body.appendChild(notice(item.level, item.kind, item.text));
          sink.text = null;
          break;
        case 'approval': {
          const prompt = new ApprovalPrompt(item, (id, answer) =>
            this.send({ type: 'approval', id, answer })
          );
          this._prompts.set(item.id, prompt);
          this._body.appendChild(prompt.node);
          this._main.text = null;
          break;
        }
        case 'approval_done':
          this._prompts.get(item.id)?.resolve(item.answer, item.by);
          break;
        case 'done':
          if (item.error) {
            this._body.appendChild(notice('error', 'error', item.error));
          }
          this.el.dataset.finished = item.stop_reason;
          break;
      }
    }
  }

  private _updateBar(): void {
    const m = this.model;
    const status: string = this._stopping && m.get('status') === 'running' ? 'stopping' : m.get('status');
    this.el.dataset.status = status;
    this._status.textContent = STATUS_WORDS[status] ?? status;
    const finished = ['done', 'error', 'cancelled'].includes(status);
    const started: number = m.get('started');
    const sinceStart = Date.now() / 1000 - started;
    // The kernel's clock when it is plausibly this machine's, else the time since drawn.
    const running = started > 0 && sinceStart >= 0 && sinceStart < 86400 ? sinceStart : (Date.now() - this._shownAt) / 1000;
    const seconds = finished && m.get('elapsed') ? m.get('elapsed') : running;
    const facts = [m.get('agent'), m.get('model_name'), duration(seconds)].filter(Boolean);
    const tin = m.get('tokens_in');
    const tout = m.get('tokens_out');
    if (tin || tout) {
      facts.push(`${tin.toLocaleString()} in / ${tout.toLocaleString()} out tokens`);
    }
    const cost = m.get('cost');
    if (typeof cost === 'number') {
      facts.push(`$${cost.toFixed(cost < 0.01 ? 4 : 2)}`);
    }
    this._facts.textContent = facts.join(' · ');
    this._stop.disabled = finished || this._stopping;
    this._steer.disabled = finished;
    this._steerButton.disabled = finished;
    if (finished && this._clock !== null) {
      window.clearInterval(this._clock);
      this._clock = null;
    }
  }

  private _onStop(): void {
    this._stopping = true;
    this.send({ type: 'stop' });
    if (this._agentCodeHoldsTheKernel()) {
      // Code the agent runs in the kernel (run_python) holds its main thread, where the stop
      // message waits its turn: interrupt the kernel too, as the toolbar's ■ would. The kernel
      // side takes that interrupt for a Stop of the run.
      void this._interruptKernel();
    }
    this._updateBar();
  }

  private _agentCodeHoldsTheKernel(): boolean {
    for (const prompt of this._prompts.values()) {
      if (!prompt.node.dataset.answer) {
        return false; // still asking for consent: nothing runs, the stop message gets through
      }
    }
    for (const card of this._cards.values()) {
      if (card.node.dataset.tool === 'run_python' && card.node.dataset.status === 'running') {
        return true;
      }
    }
    return false;
  }

  private async _interruptKernel(): Promise<void> {
    // JupyterLab's widget managers carry the kernel; the base interface does not declare it.
    const manager = this.model.widget_manager as unknown as {
      kernel?: { interrupt(): Promise<void> } | null;
    };
    try {
      await manager.kernel?.interrupt();
    } catch (reason) {
      this._showError(`Could not interrupt the kernel: ${reason}`);
    }
  }

  private _onSteer(): void {
    const text = this._steer.value.trim();
    if (!text) {
      return;
    }
    this.send({ type: 'steer', text });
    this._steer.value = '';
  }

  private _showError(message: string): void {
    const line = el('div', 'orkas-run-error', message);
    this._errors.appendChild(line);
    for (const prompt of this._prompts.values()) {
      if (!prompt.node.dataset.answer) {
        prompt.reopen();
      }
    }
  }
}
