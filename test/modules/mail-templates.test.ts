import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { type TestContext, test } from 'node:test';
import { buildApp } from '../../src/app.js';
import { langOf } from '../../src/i18n/lang.js';
import {
  checkoutMail,
  deliveryMail,
  type RenderedMail,
  reminderMail,
  replacementMail,
  signInCodeMail,
  ticketAnsweredMail,
  ticketOpenedMail,
} from '../../src/modules/mail/index.js';
import { freshConfig, onEnd, owner } from '../helpers/build.js';
import { assertOk, createShop } from '../helpers/factories.js';

const PUBLIC_URL = 'https://shops.example.test';
const EVIL_TITLE = '<script>alert(1)</script>';
const SHOP_NAME = 'Tom & Jerry <Keys>';

/** The text a reader sees in the HTML: tags dropped, entities decoded. */
function visible(html: string): string {
  return html
    .replace(/<[^>]*>/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ');
}

/** Both renderings hold `expected`: the text as is, the HTML as a reader sees it. */
function assertInBoth(mail: { text: string; html: string | null }, ...expected: string[]): void {
  for (const e of expected) {
    assert.ok(mail.text.includes(e), `text part lacks ${JSON.stringify(e)}:\n${mail.text}`);
    assert.ok(visible(mail.html ?? '').includes(e.replace(/\s+/g, ' ')), `HTML part lacks ${JSON.stringify(e)}`);
  }
}

/** User text in the HTML is escaped: no tag of it survives, the shop name's `&` is an entity. */
function assertEscaped(html: string): void {
  assert.ok(!html.includes('<script'), 'a title became markup');
  assert.ok(!html.includes('Tom & Jerry'), 'a bare & in the HTML');
  assert.ok(html.includes('Tom &amp; Jerry &lt;Keys>'), 'the shop name, escaped, in the header');
}

const invoiceUrl = `${PUBLIC_URL}/s/tom/invoices/inv123`;
const en = langOf('en');

test('each template renders the same content as text and as escaped HTML, with its link', () => {
  const goods = [{ title: EVIL_TITLE, quantity: 2, deliverables: ['KEY-1', 'KEY-2'] }];
  const mails: [string, RenderedMail, string[]][] = [
    [
      'checkout',
      checkoutMail({
        lang: langOf('en', -330),
        shopName: SHOP_NAME,
        invoiceId: 'inv123',
        invoiceUrl,
        instructions: 'Send 19.98 USD to the tip jar "jar" with the note inv123.',
        items: [{ title: EVIL_TITLE, quantity: 2, total: '19.98 USD' }],
        total: '19.98 USD',
        expiresAt: Date.UTC(2030, 0, 2, 3, 4),
      }),
      [
        invoiceUrl,
        'Send 19.98 USD to the tip jar "jar" with the note inv123.',
        `${EVIL_TITLE} × 2`,
        '19.98 USD',
        '1 Jan 2030, 21:34 UTC-05:30',
      ],
    ],
    [
      'reminder',
      reminderMail({
        lang: langOf('en', 60),
        shopName: SHOP_NAME,
        invoiceId: 'inv123',
        invoiceUrl,
        instructions: 'Send 19.98 USD to the tip jar "jar" with the note inv123.',
        items: [{ title: EVIL_TITLE, quantity: 2, total: '19.98 USD' }],
        total: '19.98 USD',
        expiresAt: Date.UTC(2030, 0, 2, 3, 4),
      }),
      [
        invoiceUrl,
        'has not been paid yet',
        `${EVIL_TITLE} × 2`,
        '2 Jan 2030, 04:04 UTC+01:00',
        'this is the only reminder',
      ],
    ],
    [
      'delivery',
      deliveryMail({
        lang: en,
        shopName: SHOP_NAME,
        invoiceId: 'inv123',
        invoiceUrl,
        total: '19.98 USD',
        parts: goods,
      }),
      [invoiceUrl, `${EVIL_TITLE} × 2`, 'KEY-1', 'KEY-2', 'Total', '19.98 USD'],
    ],
    [
      'replacement',
      replacementMail({ lang: en, shopName: SHOP_NAME, invoiceId: 'inv123', invoiceUrl, parts: goods }),
      [invoiceUrl, 'replacement items for your order inv123', 'not a new order', 'KEY-1', 'KEY-2'],
    ],
    [
      'ticket opened',
      ticketOpenedMail({
        lang: en,
        shopName: SHOP_NAME,
        ticketId: 7,
        title: EVIL_TITLE,
        ticketUrl: `${PUBLIC_URL}/s/tom/tickets/7?key=k`,
      }),
      [`${PUBLIC_URL}/s/tom/tickets/7?key=k`, EVIL_TITLE],
    ],
    [
      'ticket answered',
      ticketAnsweredMail({
        lang: en,
        shopName: SHOP_NAME,
        ticketId: 7,
        title: 'Help',
        reply: `Try again ${EVIL_TITLE}`,
        ticketUrl: `${PUBLIC_URL}/s/tom/tickets/7?key=k`,
      }),
      [`${PUBLIC_URL}/s/tom/tickets/7?key=k`, `Try again ${EVIL_TITLE}`],
    ],
    [
      'sign-in code',
      signInCodeMail({ lang: en, shopName: SHOP_NAME, code: '482913', minutes: 15 }),
      ['482913', 'valid for 15 minutes', 'If you did not ask to sign in, ignore this e-mail'],
    ],
  ];
  for (const [name, mail, expected] of mails) {
    assert.ok(mail.html.startsWith('<!doctype html>'), name);
    assertInBoth(mail, SHOP_NAME, ...expected);
    assertEscaped(mail.html);
    assert.doesNotMatch(mail.subject, /[\r\n]/, name);
    for (const url of expected.filter((e) => e.startsWith('https://')))
      assert.ok(mail.html.includes(`href="${url}"`), `${name}: the link is a link`);
  }
});

test('the replacement mail says what it is and shows no total; the sign-in code stays out of the subject', () => {
  const mail = replacementMail({
    lang: en,
    shopName: 'Keys',
    invoiceId: 'inv123',
    invoiceUrl,
    parts: [{ title: 'Key', quantity: 1, deliverables: ['NEW-KEY'] }],
  });
  assert.equal(mail.subject, 'Replacement for your order inv123 from Keys');
  assert.ok(mail.text.startsWith('Keys sent you replacement items for your order inv123.\n'));
  for (const part of [mail.text, visible(mail.html)]) assert.doesNotMatch(part, /total/i);

  const code = signInCodeMail({ lang: en, shopName: 'Keys', code: '000123', minutes: 1 });
  assert.ok(!code.subject.includes('000123'), 'subjects are logged');
  assertInBoth(code, 'valid for 1 minute and');
});

test('shop time: the moment on the shop clock, with its offset, in the buyer language', () => {
  const at = Date.UTC(2025, 2, 4, 15, 5);
  assert.equal(langOf('en', 0).dayTime(at), '4 Mar 2025, 15:05 UTC');
  assert.equal(langOf('en', 120).dayTime(at), '4 Mar 2025, 17:05 UTC+02:00');
  assert.equal(langOf('en', -930).dayTime(at), '3 Mar 2025, 23:35 UTC-15:30');
  assert.equal(langOf('de', 120).dayTime(at), '4. März 2025, 17:05 UTC+02:00');
});

/** An app on a fresh database whose links use PUBLIC_URL; its log lines are kept. */
async function linkedApp(t: TestContext, env: Record<string, string> = {}) {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      callback();
    },
  });
  const config = await freshConfig(t, { PUBLIC_URL: `${PUBLIC_URL}/`, RATE_LIMIT_PUBLIC_MAX: '0', ...env });
  const app = await buildApp({ config, logger: { level: 'trace', stream } });
  onEnd(t, () => app.close());
  const api = await owner(app);
  const shop = await createShop(api, SHOP_NAME);
  const shopId = shop.id;
  assertOk(await api.put(`/self/${shopId}/settings/payments/tipjar`, { enabled: true, handle: 'jar' }));
  assertOk(await api.put(`/self/${shopId}/settings/payments/balance`, { enabled: true }));
  const product = assertOk(
    await api.post(`/self/${shopId}/v2/products`, {
      title: EVIL_TITLE,
      description: 'A key',
      variants: [
        {
          title: 'Key',
          priceDetails: { amount: 9.99 },
          productType: 'serials',
          asSerials: { serials: ['SER-0001', 'SER-0002', 'SER-0003', 'SER-0004'] },
          customerNote: 'Redeem it on the launcher.',
        },
      ],
    }),
  );
  const order = async (gateway: string, quantity = 2, headers: Record<string, string> = {}) => {
    const res = await app.inject({
      method: 'POST',
      url: `/v2/public/shops/${shopId}/invoices`,
      headers,
      payload: {
        customerEmail: 'buyer@example.com',
        gateway,
        parts: [{ productId: product.id, productVariantId: product.variants[0].id, quantity }],
      },
    });
    return { status: res.statusCode, body: res.json() };
  };
  const outbox = () => app.db.kysely.selectFrom('mail_outbox').selectAll().orderBy('id').execute();
  return { app, api, lines, shopId, subdomain: shop.subdomain, order, outbox };
}

test('checkout mails the invoice link, how to pay, the items, the total and the expiry; a balance order gets none', async (t) => {
  const { app, api, shopId, subdomain, order, outbox } = await linkedApp(t);
  const invoice = assertOk(await order('tipjar'));
  const [mail, ...more] = await outbox();
  assert.equal(more.length, 0);
  assert.equal(mail!.to_address, 'buyer@example.com');
  assert.equal(mail!.subject, `Your order ${invoice.payment.reference} from ${SHOP_NAME}: how to pay`);
  const expires = invoice.expiresAt as string;
  assertInBoth(
    { text: mail!.body_text, html: mail!.body_html },
    `${PUBLIC_URL}/s/${subdomain}/invoices/${invoice.id}`,
    // The gateway's sentence with the amount as the mail writes every amount.
    `Send $19.98 to the tip jar "jar" with the note ${invoice.payment.reference}.`,
    `${EVIL_TITLE} (Key) × 2`,
    'Total',
    '$19.98',
    langOf('en').dayTime(expires),
  );
  assertEscaped(mail!.body_html!);
  assert.ok(!mail!.body_text.includes('SER-000'), 'nothing is delivered before payment');

  // A balance order completes at once: its only mail is the delivery. Paying from the balance
  // takes a customer session, opened with the code the sign-in mail carries.
  const customer = assertOk(await api.get(`/self/${shopId}/customers`)).items[0];
  assertOk(await api.post(`/self/${shopId}/customers/${customer.id}/balance/add`, { amount: 20 }));
  const publicCall = async (url: string, payload: object) => {
    const res = await app.inject({ method: 'POST', url: `/v2/public/shops/${shopId}${url}`, payload });
    return { status: res.statusCode, body: res.json() };
  };
  assertOk(await publicCall('/customer/sign-in', { email: 'buyer@example.com' }));
  const codeMail = (await outbox()).at(-1)!;
  assert.equal(codeMail.subject, `Your sign-in code for ${SHOP_NAME}`);
  const code = /^\d{6}$/m.exec(codeMail.body_text)?.[0];
  assert.ok(code && codeMail.body_html?.includes(`>${code}</div>`), 'the code, on its own line and prominent');
  const { token } = assertOk(await publicCall('/customer/session', { email: 'buyer@example.com', code }));
  const paid = assertOk(await order('balance', 1, { authorization: `Bearer ${token}` }));
  assert.equal(paid.status, 'completed');
  const rows = (await outbox()).filter((m) => m.body_text.includes(paid.id));
  assert.deepEqual(
    rows.map((m) => m.subject),
    [`Your order ${paid.payment.reference} from ${SHOP_NAME}`],
  );
  assert.equal(await app.mailWorker.runOnce(), 3);
});

test("links use the shop's subdomain host under STOREFRONT_DOMAIN, and its custom domain once it has one", async (t) => {
  const { app, shopId, subdomain, order, outbox } = await linkedApp(t, { STOREFRONT_DOMAIN: 'shops.example.net' });
  const first = assertOk(await order('tipjar', 1));
  await app.db.kysely
    .updateTable('shops')
    .set({ custom_domain: 'keys.example.org' })
    .where('id', '=', shopId)
    .execute();
  const second = assertOk(await order('tipjar', 1));
  const [a, b] = await outbox();
  assertInBoth(
    { text: a!.body_text, html: a!.body_html },
    `https://${subdomain}.shops.example.net/invoices/${first.id}`,
  );
  assertInBoth({ text: b!.body_text, html: b!.body_html }, `https://keys.example.org/invoices/${second.id}`);
});

test('completion mails the goods, the total, the link and the seller note; a replacement says so, without a total', async (t) => {
  const { api, shopId, subdomain, order, outbox } = await linkedApp(t);
  const invoice = assertOk(await order('tipjar'));
  const done = assertOk(await api.post(`/self/${shopId}/invoices/${invoice.id}/process`));
  const link = `${PUBLIC_URL}/s/${subdomain}/invoices/${invoice.id}`;
  const [, delivery] = await outbox();
  assert.equal(delivery!.subject, `Your order ${invoice.payment.reference} from ${SHOP_NAME}`);
  const delivered = done.parts[0].deliverables as string[];
  assertInBoth({ text: delivery!.body_text, html: delivery!.body_html }, link, ...delivered, 'Total', '$19.98');
  for (const key of delivered) assert.ok(delivery!.body_text.split('\n').includes(key), 'one unindented key a line');
  assert.ok(delivery!.body_text.endsWith('A note from the seller:\nRedeem it on the launcher.\n'));
  assertEscaped(delivery!.body_html!);

  const replaced = assertOk(
    await api.post(`/self/${shopId}/invoices/${invoice.id}/replacement`, {
      partInvoiceId: done.parts[0].id,
      quantity: 1,
    }),
  );
  const fresh = replaced.replacements[0].deliverables as string[];
  const [, , replacement] = await outbox();
  assert.equal(replacement!.subject, `Replacement for your order ${invoice.payment.reference} from ${SHOP_NAME}`);
  assertInBoth(
    { text: replacement!.body_text, html: replacement!.body_html },
    link,
    `replacement items for your order ${invoice.payment.reference}`,
    `${EVIL_TITLE} (Key) × 1`,
    ...fresh,
  );
  for (const part of [replacement!.body_text, visible(replacement!.body_html!)]) {
    assert.doesNotMatch(part, /total|USD|\$/i, 'no total, no amount');
    for (const key of delivered) assert.ok(!part.includes(key), 'only the replacement goods');
  }
  assertEscaped(replacement!.body_html!);
});

test('ticket mails carry a link that opens the ticket; a ticket opened before keys were sealed is answered without one', async (t) => {
  const { app, api, lines, shopId, subdomain, outbox } = await linkedApp(t);
  const openTicket = async (title: string) =>
    (
      await app.inject({
        method: 'POST',
        url: `/v2/public/shops/${shopId}/tickets`,
        payload: { email: 'asker@example.com', title, message: 'It says already redeemed.' },
      })
    ).json().data as { id: number; accessKey: string };
  const viaLink = async (text: string) => {
    const match = new RegExp(`${PUBLIC_URL}/s/${subdomain}/tickets/\\d+\\?key=\\S+`).exec(text);
    assert.ok(match, `no ticket link in:\n${text}`);
    const url = new URL(match[0]);
    const ticketId = url.pathname.split('/').pop();
    return app.inject({
      method: 'GET',
      url: `/v2/public/tickets/${ticketId}?accessKey=${encodeURIComponent(url.searchParams.get('key')!)}`,
    });
  };

  const ticket = await openTicket(EVIL_TITLE);
  const [opened] = await outbox();
  assert.equal(opened!.to_address, 'asker@example.com');
  assertEscaped(opened!.body_html!);
  const first = await viaLink(opened!.body_text);
  assert.equal(first.statusCode, 200);
  assert.equal(first.json().data.title, EVIL_TITLE);

  assertOk(await api.post(`/self/${shopId}/tickets/${ticket.id}/message`, { content: 'We sent a new key:\nNEW-1' }));
  const [, answered] = await outbox();
  // The buyer-chosen title is never in a subject: the shop's sender must not carry someone else's headline.
  assert.equal(answered!.subject, `Reply to your support ticket ${ticket.id} at ${SHOP_NAME}`);
  assert.ok(!answered!.subject.includes(EVIL_TITLE));
  assertInBoth({ text: answered!.body_text, html: answered!.body_html }, 'We sent a new key:\nNEW-1');
  assert.ok(answered!.body_html!.includes(`/tickets/${ticket.id}?key=`), 'the HTML carries the link too');
  const page = await viaLink(answered!.body_text);
  assert.equal(page.statusCode, 200);
  assert.deepEqual(
    page.json().data.messages.map((m: { author: string }) => m.author),
    ['customer', 'shop'],
  );

  // Opened before migration 0018: only the hash was kept. The answer still goes out, without a link.
  const legacy = await openTicket('Old ticket');
  await app.db.kysely.updateTable('tickets').set({ access_key_sealed: null }).where('id', '=', legacy.id).execute();
  assertOk(await api.post(`/self/${shopId}/tickets/${legacy.id}/message`, { content: 'Answer' }));
  const old = (await outbox()).at(-1)!;
  assert.equal(old.subject, `Reply to your support ticket ${legacy.id} at ${SHOP_NAME}`);
  assertInBoth({ text: old.body_text, html: old.body_html }, 'Answer', 'the link from the first e-mail');
  assert.ok(!old.body_text.includes('/tickets/') && !old.body_html!.includes('/tickets/'), 'no link');

  // The worker logs what it sent by its metadata: no access key, no link.
  assert.equal(await app.mailWorker.runOnce(), 4);
  const log = lines.join('\n');
  for (const key of [ticket.accessKey, legacy.accessKey]) assert.ok(!log.includes(key), 'an access key is in the log');
  assert.ok(!log.includes('?key='), 'a ticket link is in the log');
  const mailLines = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.component === 'mail');
  assert.equal(mailLines.length, 4);
  for (const line of mailLines)
    assert.deepEqual(Object.keys(line).sort(), [
      'component',
      'file',
      'hostname',
      'level',
      'mailId',
      'msg',
      'pid',
      'shopId',
      'time',
      'to',
    ]);
});
