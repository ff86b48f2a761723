/**
 * Small shared formatting: durations, status glyphs, argument previews.
 */

export const TOOL_ICONS: Record<string, string> = {
  running: '', // drawn by CSS (a spinner): emoji fonts are not everywhere
  ok: '✓',
  error: '✗',
  rejected: '⊘',
  interrupted: '■',
  denied: '⊘'
};

export function duration(seconds: number): string {
  if (seconds < 1) {
    return `${Math.round(seconds * 1000)} ms`;
  }
  if (seconds < 90) {
    return `${seconds.toFixed(1)} s`;
  }
  const m = Math.floor(seconds / 60);
  return `${m} min ${Math.round(seconds - m * 60)} s`;
}

export function argsPreview(args: Record<string, unknown>, limit = 90): string {
  const parts = Object.entries(args).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  const line = parts.join(', ');
  return line.length > limit ? line.slice(0, limit - 1) + '…' : line;
}

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className?: string,
  text?: string
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) {
    node.className = className;
  }
  if (text !== undefined) {
    node.textContent = text;
  }
  return node;
}
