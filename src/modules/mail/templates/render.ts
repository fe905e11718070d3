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

/** `2025-03-04 17:05 UTC+02:00`: a moment as the shop's clock shows it (its UTC offset). */
export function shopTime(ms: number, utcOffsetMinutes: number): string {
  const local = new Date(ms + utcOffsetMinutes * 60_000).toISOString();
  const sign = utcOffsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(utcOffsetMinutes);
  const zone =
    abs === 0
      ? 'UTC'
      : `UTC${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
  return `${local.slice(0, 10)} ${local.slice(11, 16)} ${zone}`;
}
