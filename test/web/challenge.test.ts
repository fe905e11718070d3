import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { solveChallenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2';
import type { FastifyInstance } from 'fastify';
import { build, owner } from '../helpers/build.js';
import { assertOk, sellingShop } from '../helpers/factories.js';
import { getPage, openForm, postForm, textById } from '../helpers/web-forms.js';

/**
 * The proof-of-work challenge in the storefront's forms (issue 36, item 2): the checkout, support
 * and sign-in forms carry the ALTCHA widget when the shop asks this client for a challenge, and a
 * form sent without a solution is answered again with the buyer's answers kept and the puzzle
 * marked (428), nothing made. The widget's own solving runs in chromium (e2e/challenge.e2e.ts);
 * here the test solves as the widget does and puts the solution in the `altcha` field.
 */

async function setup(t: TestContext, protection: Record<string, unknown>) {
  const app = await build(t);
  const api = await owner(app);
  const shop = await sellingShop(api);
  assertOk(await api.put(`/self/${shop.shopId}/settings/protection`, protection));
  const { subdomain } = assertOk(await api.get(`/self/${shop.shopId}/settings`));
  const invoiceCount = async () => assertOk(await api.get(`/self/${shop.shopId}/invoices`)).totalCount as number;
  return { app, api, ...shop, base: `/s/${subdomain}`, invoiceCount };
}

/** A solution of a new challenge of the shop, as the widget puts it in the form's `altcha` field. */
async function solution(app: FastifyInstance, shopId: number): Promise<string> {
  const challenge = (await app.inject({ method: 'GET', url: `/v2/public/shops/${shopId}/challenge` })).json();
  const solved = await solveChallenge({ challenge, deriveKey });
  return Buffer.from(JSON.stringify({ challenge, solution: solved })).toString('base64');
}

function widgetOf(html: string): string | undefined {
  return /<altcha-widget[^>]*>/.exec(html)?.[0];
}

test('checkout: the form carries the widget from this origin; without a solution 428 and no order; with one the order is placed', async (t) => {
  const { app, shopId, productId, keysVariant, base, invoiceCount } = await setup(t, { challenge: 'always' });
  const query = new URLSearchParams({ product: String(productId), variant: String(keysVariant) });
  const { page, form } = await openForm(app, `${base}/checkout?${query}`);
  assert.equal(page.statusCode, 200);
  const widget = widgetOf(page.body);
  assert.ok(widget, 'the checkout form carries the widget');
  assert.match(widget, new RegExp(`challenge="/v2/public/shops/${shopId}/challenge"`));
  assert.match(widget, /name="altcha"/);
  assert.match(widget, /auto="onfocus"/);
  // Scripts, worker and styles from this origin, under hashed names: the page's CSP is unchanged.
  const worker = /data-worker="([^"]+)"/.exec(widget)?.[1];
  const scripts = [...page.body.matchAll(/<script type="module" src="([^"]+)"/g)].map((m) => m[1]!);
  const css = /<link rel="stylesheet" href="(\/assets\/storefront\/altcha\.[^"]+\.css)"/.exec(page.body)?.[1];
  assert.ok(worker && css);
  assert.equal(scripts.length, 2);
  for (const url of [worker, css, ...scripts]) {
    assert.match(url, /^\/assets\/storefront\/[a-z0-9-]+\.[A-Za-z0-9_-]{12}\.(js|css)$/);
    const asset = await app.inject({ method: 'GET', url });
    assert.equal(asset.statusCode, 200, url);
    assert.match(String(asset.headers['content-type']), url.endsWith('.css') ? /^text\/css/ : /^text\/javascript/);
    assert.equal(asset.headers['cache-control'], 'public, max-age=31536000, immutable');
  }
  assert.match(String(page.headers['content-security-policy']), /script-src 'self';/);
  assert.match(page.body, /<noscript>.*needs JavaScript/s);

  const fields = {
    product: String(productId),
    variant: String(keysVariant),
    quantity: '1',
    email: 'buyer@example.com',
    gateway: 'tipjar',
  };
  const refused = await postForm(app, `${base}/checkout`, form, fields);
  assert.equal(refused.statusCode, 428);
  assert.match(textById(refused.body, 'altcha-error') ?? '', /Wait until the puzzle is solved/);
  assert.match(refused.body, /value="buyer@example.com"/, "the buyer's answers are kept");
  assert.ok(widgetOf(refused.body), 'the widget is shown again');
  assert.equal(await invoiceCount(), 0);

  const spent = await solution(app, shopId);
  const placed = await postForm(app, `${base}/checkout`, form, { ...fields, altcha: spent });
  assert.equal(placed.statusCode, 303, placed.body);
  assert.match(String(placed.headers.location), new RegExp(`^${base}/invoices/`));
  assert.equal(await invoiceCount(), 1);

  const again = await postForm(app, `${base}/checkout`, form, { ...fields, altcha: spent });
  assert.equal(again.statusCode, 428);
  assert.match(textById(again.body, 'altcha-error') ?? '', /not accepted/);
  assert.equal(await invoiceCount(), 1);
});

test("'off': no widget, no script of it; 'suspicious': the support form shows it once the client is past the threshold", async (t) => {
  const { app, api, shopId, productId, keysVariant, base } = await setup(t, { challenge: 'off' });
  const query = new URLSearchParams({ product: String(productId), variant: String(keysVariant) });
  const plain = await getPage(app, `${base}/checkout?${query}`);
  assert.equal(widgetOf(plain.body), undefined);
  assert.doesNotMatch(plain.body, /altcha/);

  assertOk(await api.put(`/self/${shopId}/settings/protection`, { challenge: 'suspicious', challengeThreshold: 1 }));
  const ticket = { email: 'buyer@example.com', title: 'Hello', message: 'A question' };
  const { page, form } = await openForm(app, `${base}/support`);
  assert.equal(widgetOf(page.body), undefined, 'a first ticket needs no challenge');
  assert.equal((await postForm(app, `${base}/support`, form, ticket)).statusCode, 303);

  const second = await getPage(app, `${base}/support`, form);
  assert.ok(widgetOf(second.body), 'past the threshold the form carries the widget');
  const refused = await postForm(app, `${base}/support`, form, ticket);
  assert.equal(refused.statusCode, 428);
  assert.match(refused.body, /value="Hello"/);
  assert.equal(assertOk(await api.get(`/self/${shopId}/tickets`)).totalCount, 1);
  const opened = await postForm(app, `${base}/support`, form, { ...ticket, altcha: await solution(app, shopId) });
  assert.equal(opened.statusCode, 303, opened.body);
  assert.equal(assertOk(await api.get(`/self/${shopId}/tickets`)).totalCount, 2);
});

test('sign-in: the code is mailed only with a solution when the shop asks for one', async (t) => {
  const { app, shopId, base } = await setup(t, { challenge: 'always' });
  const { page, form } = await openForm(app, `${base}/account`);
  assert.ok(widgetOf(page.body));
  const outbox = async () =>
    (await app.ctx.db.selectFrom('mail_outbox').select('id').where('shop_id', '=', shopId).execute()).length;
  const before = await outbox();
  const refused = await postForm(app, `${base}/account/sign-in`, form, { email: 'buyer@example.com' });
  assert.equal(refused.statusCode, 428);
  assert.equal(await outbox(), before, 'no code was mailed');
  const sent = await postForm(app, `${base}/account/sign-in`, form, {
    email: 'buyer@example.com',
    altcha: await solution(app, shopId),
  });
  assert.equal(sent.statusCode, 303, sent.body);
  assert.equal(await outbox(), before + 1);
});
