/**
 * Streaming Markdown without flicker.
 *
 * Text arrives in small pieces. Re-rendering the whole answer on every piece would rebuild the
 * DOM each time (the page jumps, selections vanish, code is re-highlighted). Instead the text
 * is cut at *stable* boundaries — blank lines outside fenced code — into blocks: a finished
 * block is rendered once and never touched again; only the live tail (the unfinished block) is
 * re-rendered, off-screen, and swapped in once ready, so the old tail stays visible meanwhile.
 */

export type MarkdownRender = (host: HTMLElement, source: string) => Promise<void>;

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** The offset just past the last blank line outside a code fence, searching from `from`. */
export function stableCut(source: string, from: number): number {
  let cut = from;
  let fence: string | null = null;
  let pos = from;
  while (pos < source.length) {
    const nl = source.indexOf('\n', pos);
    if (nl < 0) {
      break; // an unfinished line never ends a block
    }
    const line = source.slice(pos, nl);
    const m = FENCE.exec(line);
    if (fence === null && m) {
      fence = m[1];
    } else if (fence !== null && m && m[1][0] === fence[0] && m[1].length >= fence.length) {
      fence = null;
    } else if (fence === null && line.trim() === '') {
      cut = nl + 1;
    }
    pos = nl + 1;
  }
  return cut;
}

export class StreamingMarkdown {
  readonly node: HTMLDivElement;
  private _source = '';
  private _committed = 0;
  private _tail: HTMLDivElement;
  private _frozen: Promise<void> = Promise.resolve();
  private _requested = 0;
  private _shown = 0;
  /** How many times a block or tail was rendered (the tests read it through the DOM). */
  renders = 0;

  constructor(private readonly _render: MarkdownRender) {
    this.node = document.createElement('div');
    this.node.className = 'orkas-md';
    this._tail = this._newBlock('orkas-md-tail');
    this.node.appendChild(this._tail);
  }

  get source(): string {
    return this._source;
  }

  append(text: string): void {
    if (!text) {
      return;
    }
    this._source += text;
    const cut = stableCut(this._source, this._committed);
    if (cut > this._committed) {
      const block = this._newBlock('orkas-md-block');
      const source = this._source.slice(this._committed, cut);
      this._committed = cut;
      this.node.insertBefore(block, this._tail);
      this.renders++;
      this._frozen = this._render(block, source).catch(() => {
        block.textContent = source;
      });
    }
    this._renderTail();
  }

  private _renderTail(): void {
    const seq = ++this._requested;
    const source = this._source.slice(this._committed);
    const next = this._newBlock('orkas-md-tail');
    const rendered = source.trim()
      ? this._render(next, source).catch(() => {
          next.textContent = source;
        })
      : Promise.resolve();
    this.renders++;
    // Swap only after the blocks frozen so far are drawn, so no text ever disappears.
    void Promise.all([rendered, this._frozen]).then(() => {
      if (seq <= this._shown) {
        return; // a newer tail is already on screen
      }
      this._shown = seq;
      this._tail.replaceWith(next);
      this._tail = next;
      this.node.dataset.chars = String(this._source.length);
    });
  }

  private _newBlock(className: string): HTMLDivElement {
    const div = document.createElement('div');
    div.className = className;
    return div;
  }
}
