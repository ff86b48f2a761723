/**
 * The wire contract with the kernel; mirrors orkas_nb/notebook/views/lab/protocol.py.
 */

export const MODULE_NAME = 'orkas-nb';
export const MODULE_VERSION = '0.1.0';
export const HANDSHAKE_TARGET = 'orkas_nb.lab';
export const PROBE_PREFIX = 'orkas-nb-probe-';
export const TRANSCRIPT_MIME = 'application/vnd.orkas.transcript+json';

/** Set on an item of a team member's run: the task id of the lane it is drawn in. */
export interface ILaneTagged {
  lane?: string;
}
export interface ITextItem extends ILaneTagged {
  k: 'text' | 'thinking';
  text: string;
}
export interface IToolStartItem extends ILaneTagged {
  k: 'tool_start';
  id: string;
  name: string;
  args: Record<string, unknown>;
}
export interface IToolEndItem extends ILaneTagged {
  k: 'tool_end';
  id: string;
  name: string;
  status: string;
  result: string;
  truncated: boolean;
  duration_s: number;
}
export interface INoticeItem extends ILaneTagged {
  k: 'notice';
  level: 'info' | 'warn' | 'error';
  kind: string;
  text: string;
}
export interface IApprovalOption {
  id: string;
  label: string;
}
export interface IApprovalItem {
  k: 'approval';
  id: string;
  title: string;
  detail: string;
  category: string;
  options: IApprovalOption[];
}
export interface IApprovalDoneItem {
  k: 'approval_done';
  id: string;
  answer: string;
  by: 'user' | 'timeout' | 'policy';
}
export interface IDoneItem {
  k: 'done';
  stop_reason: string;
  error: string;
}

/** A team member's lane as it is now (opened by the first, redrawn by each later one). */
export interface ILaneItem {
  k: 'lane';
  lane: string;
  member: string;
  kind: 'dispatch' | 'worker' | 'floor';
  status: 'running' | 'done' | 'stopped' | 'error';
  requests: number;
  tokens_in: number;
  tokens_out: number;
  cost: number | null;
  handed_back: boolean;
  error: string;
}

export type RunItem =
  | ILaneItem
  | ITextItem
  | IToolStartItem
  | IToolEndItem
  | INoticeItem
  | IApprovalItem
  | IApprovalDoneItem
  | IDoneItem;

export interface IItemsMessage {
  type: 'items';
  start: number;
  items: RunItem[];
}
export interface IErrorMessage {
  type: 'error';
  message: string;
}

/* Plan (SPEC §11 PlanStep). */
export interface IFormField {
  name: string;
  label: string;
  kind: 'text' | 'choice' | 'bool';
  choices: string[];
  required: boolean;
}
export interface IPlanStep {
  index: number; // 1-based, stable
  title: string;
  assignee: string;
  input: string;
  // The kernel sends it resolved; absent or null (a plan written by hand) means the previous
  // step in index order, [] means none (seed 001).
  wait_for?: number[] | null;
  on_failure: string;
  status: 'pending' | 'in_progress' | 'done' | 'failed' | 'skipped' | 'blocked';
  output_summary: string;
  output_files: string[];
  failure_reason: string;
  attempts?: number;
  form: { prompt: string; fields: IFormField[] } | null;
}
export const PLAN_MIME = 'application/vnd.orkas.plan+json';
export interface IPlan {
  schema_version?: number;
  id: string;
  title: string;
  state: string;
  steps: IPlanStep[];
}
