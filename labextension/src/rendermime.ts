/**
 * Markdown through JupyterLab's own rendermime (its parser highlights code fences with the
 * editor's languages and follows the theme), shared by the views.
 */
import { IRenderMimeRegistry, renderMarkdown } from '@jupyterlab/rendermime';
import { IRenderMime } from '@jupyterlab/rendermime-interfaces';

import { MarkdownRender } from './markdown';

type Options = Pick<
  IRenderMime.IRendererOptions,
  'sanitizer' | 'resolver' | 'linkHandler' | 'latexTypesetter' | 'markdownParser'
>;

let registry: IRenderMimeRegistry | null = null;

export function setRenderMime(r: IRenderMimeRegistry): void {
  registry = r;
}

export function markdownWith(options: Options | null): MarkdownRender {
  return async (host: HTMLElement, source: string) => {
    if (!options) {
      host.textContent = source;
      return;
    }
    await renderMarkdown({
      host,
      source,
      trusted: false, // the model's text is never trusted: HTML is sanitised
      sanitizer: options.sanitizer,
      resolver: options.resolver ?? null,
      linkHandler: options.linkHandler ?? null,
      latexTypesetter: options.latexTypesetter ?? null,
      markdownParser: options.markdownParser ?? null,
      shouldTypeset: true
    });
  };
}

/** The app-wide renderer set up by the plugin (plain text until it is). */
export function appMarkdown(): MarkdownRender {
  return (host, source) => markdownWith(registry)(host, source);
}
