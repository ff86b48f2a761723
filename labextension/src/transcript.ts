/**
 * The MIME renderer for application/vnd.orkas.transcript+json: a finished run, drawn with the
 * same cards as the live view, from the notebook file alone (no kernel, no widget state).
 *
 * Schema: orkas_nb/notebook/views/transcript.py (schema_version 1). Fields are only added within a
 * version and unknown fields are ignored, so this reader is tolerant: anything missing is
 * simply not drawn, and a transcript of an unknown version is drawn as far as it is understood.
 */
import { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Widget } from '@lumino/widgets';

import { notice, ToolCard } from './cards';
import { duration, el } from './format';
import { LaneBox } from './lanes';
import { MarkdownRender } from './markdown';
import { markdownWith } from './rendermime';
import { planGraph } from './plan';
import { IPlan, PLAN_MIME, TRANSCRIPT_MIME } from './protocol';

interface IToolCall {
  id: string;
  name: string;
  arguments?: Record<string, unknown>;
  raw_arguments?: string | null;
}

interface IMessage {
  role: 'user' | 'assistant' | 'tool';
  text?: string;
  origin?: string;
  thinking?: string;
  tool_calls?: IToolCall[];
  tool_call_id?: string;
  name?: string;
  status?: string;
  truncated?: boolean;
  duration_s?: number | null;
  model?: string | null;
}

/** A team member's run (transcript_lanes.py TLane), drawn after `after` of the messages. */
interface ILane {
  task_id?: string;
  member?: string;
  kind?: string;
  status?: string;
  after?: number;
  usage?: { input_tokens?: number; output_tokens?: number };
  cost_usd?: number | null;
  model_requests?: number;
  handed_back?: boolean;
  error?: string;
  messages?: IMessage[];
}

export interface ITranscript {
  schema_version?: number;
  agent?: string;
  prompt?: string;
  status?: string;
  messages?: IMessage[];
  usage?: { input_tokens?: number; output_tokens?: number };
  cost_usd?: number | null; // USD at list prices; absent or null: unknown
  stats?: { model_requests?: number; tool_calls?: number };
  duration_s?: number;
  notices?: { kind: string; text: string }[];
  error?: { kind: string; message: string } | null;
  output_files?: string[];
  provenance?: { model?: string; session?: string; replay?: string | null };
  plan?: IPlan | null;
  lanes?: ILane[];
}

const STATUS_WORDS: Record<string, string> = {
  end_turn: 'Done',
  cancelled: 'Stopped',
  error: 'Failed',
  loop_guard: 'Stopped by the loop guard',
  max_steps: 'Stopped at the step limit'
};

function drawLane(
  lane: ILane,
  cards: Map<string, ToolCard>,
  pending: Promise<void>[],
  md: MarkdownRender
): HTMLElement {
  const box = new LaneBox(lane.member ?? 'agent', lane.kind ?? 'dispatch');
  box.update({
    status: lane.status === 'running' ? 'stopped' : lane.status,
    requests: lane.model_requests,
    tokens_in: lane.usage?.input_tokens,
    tokens_out: lane.usage?.output_tokens,
    cost: lane.cost_usd,
    handed_back: lane.handed_back,
    error: lane.error
  });
  for (const m of lane.messages ?? []) {
    drawMessage(box.body, m, cards, pending, md);
  }
  return box.node;
}

function drawMessage(
  body: HTMLElement,
  m: IMessage,
  cards: Map<string, ToolCard>,
  pending: Promise<void>[],
  md: MarkdownRender
): void {
  if (m.role === 'user') {
    if (m.origin === 'tool_images' || m.origin === 'summary') {
      return;
    }
    const who = m.origin === 'steer' ? 'steer' : 'you';
    const q = el('div', `orkas-user orkas-user-${who}`);
    q.append(el('span', 'orkas-user-who', who), el('span', 'orkas-user-text', m.text ?? ''));
    body.appendChild(q);
  } else if (m.role === 'assistant') {
    if (m.thinking) {
      const box = el('details', 'orkas-thinking');
      box.append(el('summary', '', 'Thinking'), el('div', 'orkas-thinking-text', m.thinking));
      body.appendChild(box);
    }
    if (m.text) {
      const block = el('div', 'orkas-md');
      body.appendChild(block);
      pending.push(md(block, m.text).catch(() => void (block.textContent = m.text ?? '')));
    }
    for (const call of m.tool_calls ?? []) {
      const card = new ToolCard(call.name, call.raw_arguments ?? call.arguments ?? {});
      cards.set(call.id, card);
      body.appendChild(card.node);
    }
  } else if (m.role === 'tool') {
    let card = cards.get(m.tool_call_id ?? '');
    if (!card) {
      card = new ToolCard(m.name ?? 'tool', {});
      body.appendChild(card.node);
    }
    card.finish(m.status ?? 'ok', m.text ?? '', Boolean(m.truncated), m.duration_s ?? 0);
  }
}

export async function drawTranscript(host: HTMLElement, t: ITranscript, md: MarkdownRender): Promise<void> {
  host.replaceChildren();
  host.classList.add('orkas-run', 'orkas-transcript');
  host.dataset.status = t.status === 'end_turn' ? 'done' : t.status ?? 'done';
  const bar = el('div', 'orkas-run-bar');
  const facts = [t.agent ?? 'agent', t.provenance?.model, t.provenance?.session && `session ${t.provenance.session}`];
  if (t.stats) {
    facts.push(`${t.stats.model_requests ?? 0} requests`, `${t.stats.tool_calls ?? 0} tool calls`);
  }
  if (t.usage && (t.usage.input_tokens || t.usage.output_tokens)) {
    facts.push(`${(t.usage.input_tokens ?? 0).toLocaleString()} in / ${(t.usage.output_tokens ?? 0).toLocaleString()} out tokens`);
  }
  if (typeof t.cost_usd === 'number') {
    facts.push(`$${t.cost_usd.toFixed(t.cost_usd < 0.01 ? 4 : 2)}`);
  }
  if (typeof t.duration_s === 'number') {
    facts.push(duration(t.duration_s));
  }
  if (t.provenance?.replay) {
    facts.push(`replayed from ${t.provenance.replay}`);
  }
  bar.append(
    el('span', 'orkas-run-status', STATUS_WORDS[t.status ?? 'end_turn'] ?? t.status ?? ''),
    el('span', 'orkas-run-facts', facts.filter(Boolean).join(' · '))
  );
  const body = el('div', 'orkas-run-body');
  host.append(bar, body);

  const cards = new Map<string, ToolCard>();
  const pending: Promise<void>[] = [];
  const lanes = Array.isArray(t.lanes) ? [...t.lanes] : [];
  const messages = t.messages ?? [];
  for (let n = 0; n <= messages.length; n++) {
    while (lanes.length && (lanes[0].after ?? 0) <= n) {
      body.appendChild(drawLane(lanes.shift() as ILane, cards, pending, md));
    }
    if (n < messages.length) {
      drawMessage(body, messages[n], cards, pending, md);
    }
  }
  for (const card of cards.values()) {
    if (card.node.dataset.status === 'running') {
      card.setStatus('interrupted'); // a call with no saved result did not finish
    }
  }
  for (const n of t.notices ?? []) {
    body.appendChild(notice('info', n.kind, `${n.kind}: ${n.text}`));
  }
  if (t.error) {
    body.appendChild(notice('error', t.error.kind, `${t.error.kind}: ${t.error.message}`));
  }
  if (t.output_files?.length) {
    body.appendChild(el('div', 'orkas-files', `Files written: ${t.output_files.join(', ')}`));
  }
  if (t.plan && Array.isArray(t.plan.steps)) {
    body.appendChild(planSnapshot(t.plan));
  }
  await Promise.all(pending);
}

/** A plan as it ended (application/vnd.orkas.plan+json, or a transcript's plan): the same
 * graph as the live view, without controls. */
export function planSnapshot(plan: IPlan): HTMLDivElement {
  const wrap = el('div', 'orkas-plan orkas-plan-snapshot');
  wrap.dataset.state = plan.state;
  const header = el('div', 'orkas-plan-header');
  header.append(
    el('span', 'orkas-plan-title', plan.title || 'Plan'),
    el('span', `orkas-badge orkas-plan-state orkas-plan-state-${plan.state}`, plan.state)
  );
  wrap.append(header, planGraph(plan, 'snapshot'));
  return wrap;
}

export class TranscriptRenderer extends Widget implements IRenderMime.IRenderer {
  constructor(private readonly _options: IRenderMime.IRendererOptions) {
    super();
    this.addClass('orkas-transcript-output');
  }

  async renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    const data = model.data[this._options.mimeType] as unknown;
    if (!data || typeof data !== 'object') {
      this.node.textContent = 'orkas: this transcript is empty or unreadable.';
      return;
    }
    if (this._options.mimeType === PLAN_MIME) {
      const plan = data as IPlan;
      if (!Array.isArray(plan.steps)) {
        this.node.textContent = 'orkas: this plan is unreadable.';
        return;
      }
      this.node.replaceChildren(planSnapshot(plan));
      return;
    }
    await drawTranscript(this.node, data as ITranscript, markdownWith(this._options));
  }
}

const extension: IRenderMime.IExtension = {
  id: 'orkas-nb:transcript',
  description: 'Renders saved orkas_nb run transcripts and plans.',
  rendererFactory: {
    safe: true,
    mimeTypes: [TRANSCRIPT_MIME, PLAN_MIME],
    defaultRank: 50,
    createRenderer: options => new TranscriptRenderer(options)
  },
  rank: 50,
  dataType: 'json'
};

export default extension;
