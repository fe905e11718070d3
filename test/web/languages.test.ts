import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { build, owner } from '../helpers/build.js';
import { assertError, assertOk, sellingShop } from '../helpers/factories.js';
import { getPage, openForm, postForm, type WebForm } from '../helpers/web-forms.js';

/**
 * The storefront in the buyer's language (issue 37, item 1): the switcher's cookie, else
 * `Accept-Language`, else the shop's default language; the page cache keeps each language's copy;
 * orders and tickets remember the language, and their mails are written in it.
 */

async function setup(t: TestContext) {
  const app = await build(t);
  const api = await owner(app);
  const shop = await sellingShop(api, { serials: ['SERIAL-ONE-1111', 'SERIAL-TWO-2222', 'SERIAL-THREE-3333'] });
  const { subdomain } = assertOk(await api.get(`/self/${shop.shopId}/settings`));
  const base = `/s/${subdomain}`;
  const page = (url: string, headers: Record<string, string> = {}) => app.inject({ method: 'GET', url, headers });
  const outbox = () => app.db.kysely.selectFrom('mail_outbox').selectAll().orderBy('id').execute();
  return { app, api, ...shop, base, page, outbox };
}

/** The buyer's form cookie with German chosen on the switcher. */
const inGerman = (form: WebForm): WebForm => ({ ...form, cookie: `${form.cookie}; shopd_lang=de` });

const lang = (html: string) => /<html lang="([a-z]+)"/.exec(html)?.[1];

test('a page speaks the browser language it has, else the shop default; the cache keeps both', async (t) => {
  const { app, api, shopId, base, page } = await setup(t);
  const english = await page(`${base}/`);
  assert.equal(english.statusCode, 200);
  assert.equal(lang(english.body), 'en');
  assert.match(english.body, /<h2 id="products-title">Products<\/h2>/);
  assert.ok(english.body.includes('From $5.00'));
  assert.match(String(english.headers.vary), /Accept-Language/);

  for (let round = 0; round < 2; round++) {
    // Alternating: a cached English copy is never served for German, nor the other way round.
    const german = await page(`${base}/`, { 'accept-language': 'de-DE,de;q=0.9,en;q=0.5' });
    assert.equal(lang(german.body), 'de');
    assert.match(german.body, /<h2 id="products-title">Produkte<\/h2>/);
    assert.ok(german.body.includes('Ab 5,00\u00a0$'), 'the price in the German way, still in dollars');
    const again = await page(`${base}/`, { 'accept-language': 'en-US' });
    assert.equal(lang(again.body), 'en');
    assert.notEqual(german.headers.etag, again.headers.etag);
  }
  // A language the storefront lacks falls back to the shop's.
  assert.equal(lang((await page(`${base}/`, { 'accept-language': 'fr-FR' })).body), 'en');

  assertError(await api.put(`/self/${shopId}/settings/language`, { language: 'fr' }), 400, 'validation_error');
  assertError(await (await owner(app)).put(`/self/${shopId}/settings/language`, { language: 'de' }), 404, 'not_found');
  assert.equal(assertOk(await api.get(`/self/${shopId}/settings`)).language, 'en', 'refused changes change nothing');

  // The shop's default: German for a browser that asks for nothing the storefront has, at once (cached pages dropped).
  assert.equal(assertOk(await api.put(`/self/${shopId}/settings/language`, { language: 'de' })).language, 'de');
  assert.equal(lang((await page(`${base}/`)).body), 'de');
  assert.equal(lang((await page(`${base}/`, { 'accept-language': 'fr-FR' })).body), 'de');
  assert.equal(lang((await page(`${base}/`, { 'accept-language': 'en-GB' })).body), 'en');
});

test('the switcher remembers the choice over the browser, and only ever leads back into the shop', async (t) => {
  const { base, page, productId } = await setup(t);
  const productPage = (await page(`${base}/`)).body.match(/href="([^"]*\/products\/[^"]+)"/)![1]!;
  const product = await page(productPage);
  // Each page links every language, leading back to itself.
  const link = product.body.match(/href="([^"]*\/language\?to=de[^"]*)"/)![1]!.replaceAll('&amp;', '&');
  assert.ok(link.includes(`next=${encodeURIComponent(productPage)}`), link);
  const switched = await page(link, { 'accept-language': 'en' });
  assert.equal(switched.statusCode, 303);
  assert.equal(switched.headers.location, productPage);
  const cookie = String(switched.headers['set-cookie']).split(';')[0]!;
  assert.equal(cookie, 'shopd_lang=de');
  const german = await page(productPage, { cookie, 'accept-language': 'en' });
  assert.equal(lang(german.body), 'de');
  assert.match(german.body, /Jetzt kaufen/);
  assert.match(german.body, /aria-current="true"[^>]*>Deutsch<|>Deutsch<\/a>/);

  // Elsewhere, a made-up language or a malformed address: never a redirect off the shop.
  for (const next of ['//evil.example/', 'https://evil.example/', '/s/other-shop/', '/\\evil.example']) {
    const res = await page(`${base}/language?to=en&next=${encodeURIComponent(next)}`);
    assert.equal(res.statusCode, 303, next);
    assert.equal(res.headers.location, `${base}/`, next);
  }
  const bad = await page(`${base}/language?to=xx`);
  assert.equal(bad.statusCode, 400);
  assert.equal(bad.headers['set-cookie'], undefined);
  void productId;
});

test('an order placed in German is mailed in German, with amounts and dates the German way', async (t) => {
  const { app, base, productId, keysVariant, outbox, api, shopId } = await setup(t);
  const query = new URLSearchParams({ product: String(productId), variant: String(keysVariant), quantity: '2' });
  const form = inGerman((await openForm(app, `${base}/checkout?${query}`)).form);
  const page = await getPage(app, `${base}/checkout?${query}`, form);
  assert.match(page.body, /<h1>Kasse<\/h1>/);
  assert.match(page.body, /Zahlungspflichtig bestellen/);
  // A problem the form finds is said in German too.
  const refused = await postForm(app, `${base}/checkout`, form, {
    product: String(productId),
    variant: String(keysVariant),
    quantity: '2',
    email: 'käufer@',
    gateway: 'tipjar',
  });
  assert.equal(refused.statusCode, 400);
  assert.match(refused.body, /Muss eine E-Mail-Adresse sein\./);

  const placed = await postForm(app, `${base}/checkout`, form, {
    product: String(productId),
    variant: String(keysVariant),
    quantity: '2',
    email: 'kaeufer@example.com',
    gateway: 'tipjar',
  });
  assert.equal(placed.statusCode, 303, placed.body);
  const [mail] = await outbox();
  assert.match(mail!.subject, /^Ihre Bestellung \S+ bei Selling Shop: so bezahlen Sie$/);
  assert.ok(mail!.body_text.includes('Gesamt: 19,98\u00a0$'), mail!.body_text);
  assert.match(mail!.body_text, /Bitte bezahlen Sie bis \d+\. \S+ \d{4}, \d\d:\d\d UTC\./);
  assert.match(mail!.body_html!, /<html lang="de">/);

  // The same shop, an API client without a language it has: the shop's default (English).
  const api2 = await app.inject({
    method: 'POST',
    url: `/v2/public/shops/${shopId}/invoices`,
    headers: { 'accept-language': 'fr' },
    payload: {
      customerEmail: 'api@example.com',
      gateway: 'tipjar',
      parts: [{ productId, productVariantId: keysVariant, quantity: 1 }],
    },
  });
  assert.equal(api2.statusCode, 200, api2.body);
  const apiMail = (await outbox()).at(-1)!;
  assert.match(apiMail.subject, /^Your order \S+ from Selling Shop: how to pay$/);
  void api;
});

test('a ticket opened in German gets its mails in German, the shop answer included', async (t) => {
  const { app, api, shopId, base, outbox } = await setup(t);
  const form = inGerman((await openForm(app, `${base}/support`)).form);
  const sent = await postForm(app, `${base}/support`, form, {
    email: 'frage@example.com',
    title: 'Schlüssel fehlt',
    message: 'Wo ist mein Schlüssel?',
  });
  assert.equal(sent.statusCode, 303, sent.body);
  const opened = (await outbox()).at(-1)!;
  assert.match(opened.subject, /^Ihr Support-Ticket \d+ bei Selling Shop$/);
  const ticketId = Number(/Ticket (\d+)/.exec(opened.subject)![1]);
  assertOk(await api.post(`/self/${shopId}/tickets/${ticketId}/message`, { content: 'Ist unterwegs.' }));
  const answered = (await outbox()).at(-1)!;
  assert.match(answered.subject, /^Antwort auf Ihr Support-Ticket \d+ bei Selling Shop$/);
  assert.ok(answered.body_text.includes('Ist unterwegs.'));
});
