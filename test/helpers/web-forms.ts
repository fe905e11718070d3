import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';

/**
 * A browser's way through the storefront's forms with app.inject: GET a page with a form, keep
 * its CSRF token (`_csrf`) and the `shopd_csrf` cookie, POST the form urlencoded with both.
 */
export interface WebForm {
  token: string;
  cookie: string;
}

interface Page {
  statusCode: number;
  body: string;
  headers: Record<string, unknown>;
  cookies: { name: string; value: string; httpOnly?: boolean }[];
}

/** The CSRF token in a page's form and the CSRF cookie (the one already held when the page set none). */
export function formOf(res: Page, held?: WebForm): WebForm {
  const token = /name="_csrf" value="([^"]+)"/.exec(res.body)?.[1];
  assert.ok(token, `the page carries a form with a CSRF token (status ${res.statusCode})`);
  const cookie = res.cookies.find((c) => c.name === 'shopd_csrf');
  if (cookie) return { token, cookie: `shopd_csrf=${cookie.value}` };
  assert.ok(held, 'the CSRF secret cookie is set');
  return { token, cookie: held.cookie };
}

/** GETs a page as a buyer holding `form`'s cookie (or none). */
export async function getPage(app: FastifyInstance, url: string, form?: WebForm): Promise<Page> {
  const res = await app.inject({ method: 'GET', url, headers: form ? { cookie: form.cookie } : {} });
  return res as unknown as Page;
}

/** GETs a page and answers it with its form's token and cookie. */
export async function openForm(
  app: FastifyInstance,
  url: string,
  held?: WebForm,
): Promise<{ page: Page; form: WebForm }> {
  const page = await getPage(app, url, held);
  return { page, form: formOf(page, held) };
}

/** POSTs urlencoded fields with the form's token and cookie (`_csrf: null` leaves the token out). */
export async function postForm(
  app: FastifyInstance,
  url: string,
  form: WebForm,
  fields: Record<string, string | string[]>,
  options: { csrf?: boolean } = {},
): Promise<Page> {
  const params = new URLSearchParams();
  if (options.csrf !== false) params.append('_csrf', form.token);
  for (const [name, value] of Object.entries(fields)) for (const v of [value].flat()) params.append(name, v);
  const res = await app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: form.cookie },
    payload: params.toString(),
  });
  return res as unknown as Page;
}

/** The text of the element with this id (tags dropped, entities of `<`, `>`, `&`, `"` decoded). */
export function textById(html: string, id: string): string | undefined {
  const match = new RegExp(`<([a-z0-9]+)[^>]*\\sid="${id}"[^>]*>([\\s\\S]*?)</\\1>`).exec(html);
  if (!match) return undefined;
  return match[2]!
    .replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');
}

/** The opening tag of the element with this id (to check its attributes). */
export function tagById(html: string, id: string): string | undefined {
  return new RegExp(`<[a-z0-9]+[^>]*\\sid="${id}"[^>]*>`).exec(html)?.[0];
}
