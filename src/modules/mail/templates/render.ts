import type { VNode } from 'preact';
import { renderToStaticMarkup } from 'preact-render-to-string';

/** A mail ready for the outbox: the subject, and the same content as plain text and as HTML. */
export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

/** The HTML part: a whole document, rendered by JSX, which escapes every text and attribute. */
export function renderHtml(document: VNode): string {
  return `<!doctype html>\n${renderToStaticMarkup(document)}\n`;
}

/** The text part: lines joined, ending with a newline. */
export function textOf(lines: string[]): string {
  return `${lines.join('\n')}\n`;
}

/** Header-safe: a title or name never breaks the subject or a heading line. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** A text the buyer may copy (a key, a note, a reply): its own line breaks, in one style. */
export function normaliseNewlines(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}

/** A message's parts (`Lang.rich`, its markup given as plain words) as one line of the text part. */
export function plainText(parts: readonly unknown[]): string {
  return parts.join('');
}
