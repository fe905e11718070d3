import type { FastifyReply } from 'fastify';
import { h, type VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { type Lang, LangContext, requestLang } from './i18n.js';

/**
 * Headers of every storefront page. Invoice and ticket URLs are secrets, so no page sends a
 * Referer anywhere; scripts come only from this origin (the storefront's one small script), and
 * no other site may frame a page (clickjacking a "cancel" or "pay" button). This origin may: the
 * admin's design screen previews the storefront in a frame at `/s/{subdomain}/`.
 */
export const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline' https:; img-src 'self' https: data:; " +
    "font-src 'self' https: data:; connect-src 'self'; form-action 'self'; frame-ancestors 'self'; base-uri 'none'; object-src 'none'",
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'SAMEORIGIN',
  // A page is in the buyer's language: the switcher's cookie, else the browser's languages (i18n.ts).
  vary: 'Accept-Language, Cookie',
} as const;

/**
 * The headers of an embed page (`/embed/…`): any website may frame it (the buy button of
 * assets/embed.js); otherwise as strict as every page.
 */
export const EMBED_PAGE_HEADERS = {
  ...Object.fromEntries(Object.entries(PAGE_HEADERS).filter(([name]) => name !== 'x-frame-options')),
  'content-security-policy': PAGE_HEADERS['content-security-policy'].replace(
    "frame-ancestors 'self'",
    'frame-ancestors *',
  ),
} as Record<string, string>;

/** A page's headers: an embed page's may be framed by any site. */
export function pageHeaders(site: { embed: boolean } | null | undefined): Record<string, string> {
  return site?.embed ? EMBED_PAGE_HEADERS : PAGE_HEADERS;
}

/** A page as HTML text in `lang`: the doctype and the rendered tree (JSX escapes every text and attribute). */
export function renderPage(page: VNode, lang: Lang): string {
  return `<!doctype html>${renderToString(h(LangContext.Provider, { value: lang }, page))}`;
}

/** Sends a rendered page; pages that belong to one buyer pass `private`, which also keeps them out of shared caches. */
export function sendPage(reply: FastifyReply, page: VNode, options: { status?: number; private?: boolean } = {}) {
  void reply
    .code(options.status ?? 200)
    .headers(pageHeaders(reply.request.site))
    .type('text/html; charset=utf-8');
  if (options.private) void reply.header('cache-control', 'private, no-store');
  const request = reply.request;
  return reply.send(renderPage(page, request.lang ?? requestLang(request, request.site?.shop)));
}
