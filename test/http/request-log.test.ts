import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { type TestContext, test } from 'node:test';
import { buildApp } from '../../src/app.js';
import { redactUrl } from '../../src/http/request-log.js';
import { freshConfig, onEnd, owner } from '../helpers/build.js';
import { assertOk, createShop } from '../helpers/factories.js';

/** The app with its real logger (every level) writing into `lines`. */
async function loggedApp(t: TestContext) {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      callback();
    },
  });
  const app = await buildApp({
    config: await freshConfig(t, { RATE_LIMIT_PUBLIC_MAX: '0' }),
    logger: { level: 'trace', stream },
  });
  onEnd(t, () => app.close());
  return { app, lines };
}

test('secret query parameters are redacted from every request log line', async (t) => {
  const { app, lines } = await loggedApp(t);
  const api = await owner(app);
  const shop = await createShop(api);
  const ticket = assertOk(
    await app
      .inject({
        method: 'POST',
        url: `/v2/public/shops/${shop.id}/tickets`,
        payload: { email: 'b@example.com', title: 'Help', message: 'Please.' },
      })
      .then((r) => ({ status: r.statusCode, body: r.json() })),
  );
  assertOk(await api.put(`/self/${shop.id}/settings/password`, { password: 'storefront-pass-4711' }));

  const requests = [
    `/v2/public/tickets/${ticket.id}?accessKey=${ticket.accessKey}`,
    `/v2/public/tickets/${ticket.id}?%61ccessKey=${ticket.accessKey}&x=1`,
    `/v2/public/tickets/${ticket.id}?ACCESSKEY=${ticket.accessKey}`,
    `/v2/public/shops/${shop.id}/main?key=storefront-pass-4711`,
    `/v2/public/shops/${shop.id}/main?pageSize=1&key=storefront-pass-4711#frag`,
    `/v2/public/shops/${shop.id}/faqs?key=storefront-pass-4711&key=storefront-pass-4711`,
    // Refused requests are logged too (validation at debug level, unknown routes).
    `/v2/public/tickets/${ticket.id}?accessKey=${ticket.accessKey}${'x'.repeat(200)}`,
    `/v2/public/nowhere?token=tok-secret-0042&password=pw-secret-0043`,
    `/v2/public/tickets/%zz?accessKey=${ticket.accessKey}`,
    `/v2/public/tickets/${'9'.repeat(300)}?accessKey=${ticket.accessKey}`,
  ];
  for (const url of requests) await app.inject({ method: 'GET', url });
  const message = await app.inject({
    method: 'POST',
    url: `/v2/public/tickets/${ticket.id}/message?accessKey=${ticket.accessKey}`,
    payload: { content: 'more' },
  });
  assert.equal(message.statusCode, 200);

  const log = lines.join('\n');
  for (const secret of [ticket.accessKey, 'storefront-pass-4711', 'tok-secret-0042', 'pw-secret-0043']) {
    assert.ok(
      !log.includes(secret),
      `${secret} appears in the log:\n${lines.filter((l) => l.includes(secret)).join('\n')}`,
    );
  }
  const urls = lines.map((l) => JSON.parse(l) as { req?: { url: string } }).flatMap((l) => (l.req ? [l.req.url] : []));
  assert.ok(urls.includes(`/v2/public/tickets/${ticket.id}?accessKey=[REDACTED]`), urls.join('\n'));
  assert.ok(
    urls.includes(`/v2/public/shops/${shop.id}/main?pageSize=1&key=[REDACTED]`),
    'other parameters stay readable',
  );
});

test('redactUrl replaces only the values of secret parameters', () => {
  assert.equal(redactUrl('/a/b'), '/a/b');
  assert.equal(redactUrl('/a?pageSize=5&searchString=key'), '/a?pageSize=5&searchString=key');
  assert.equal(redactUrl('/a?key=s3cret&pageNumber=2'), '/a?key=[REDACTED]&pageNumber=2');
  assert.equal(
    redactUrl('/a?Key=x&API_KEY=y&secret=z&access_token=w'),
    '/a?Key=[REDACTED]&API_KEY=[REDACTED]&secret=[REDACTED]&access_token=[REDACTED]',
  );
  assert.equal(redactUrl('/a?%6Bey=x'), '/a?%6Bey=[REDACTED]');
  assert.equal(redactUrl('/a?key'), '/a?key', 'a name without a value has nothing to hide');
  assert.equal(
    redactUrl('/a?%E0%A4%A=1&token=t'),
    '/a?%E0%A4%A=1&token=[REDACTED]',
    'a malformed escape does not stop the rest',
  );
});

test('redactUrl hides invoice ids in public and storefront paths, and buyer addresses and invoice ids in queries', () => {
  assert.equal(redactUrl('/v2/public/invoices/abcDEF123456789012345678'), '/v2/public/invoices/[REDACTED]');
  assert.equal(
    redactUrl('/v2/public/invoices/abcDEF123456789012345678/feedback'),
    '/v2/public/invoices/[REDACTED]/feedback',
  );
  assert.equal(redactUrl('/s/demo/invoices/abcDEF123456789012345678/status'), '/s/demo/invoices/[REDACTED]/status');
  assert.equal(redactUrl('/s/demo/support?invoice=abcDEF123'), '/s/demo/support?invoice=[REDACTED]');
  assert.equal(redactUrl('/s/demo/account/verify?email=a%40b.c'), '/s/demo/account/verify?email=[REDACTED]');
});

test('redactUrl hides invoice ids in owner and admin paths too (issue 36, L4)', () => {
  assert.equal(redactUrl('/self/1/invoices/abcDEF123456789012345678'), '/self/1/invoices/[REDACTED]');
  for (const action of ['process', 'cancel', 'replacement', 'resend', 'refund'])
    assert.equal(
      redactUrl(`/self/1/invoices/abcDEF123456789012345678/${action}`),
      `/self/1/invoices/[REDACTED]/${action}`,
    );
  assert.equal(redactUrl('/self/1/invoices?pageSize=5'), '/self/1/invoices?pageSize=5', 'the list has no id');
  assert.equal(redactUrl('/self/1/settings/invoices'), '/self/1/settings/invoices');
  assert.equal(redactUrl('/admin/1/orders/abcDEF123456789012345678'), '/admin/1/orders/[REDACTED]');
  assert.equal(redactUrl('/admin/1/orders'), '/admin/1/orders');
});

test('an owner reading an invoice leaves no invoice id in the request log (issue 36, L4)', async (t) => {
  const { app, lines } = await loggedApp(t);
  const api = await owner(app);
  const shop = await createShop(api);
  const id = 'abcDEF1234567890LOGGED99';
  await api.get(`/self/${shop.id}/invoices/${id}`);
  await api.post(`/self/${shop.id}/invoices/${id}/resend`, {});
  await app.inject({ method: 'GET', url: `/admin/${shop.id}/orders/${id}` });
  const log = lines.join('\n');
  assert.ok(!log.includes(id), lines.filter((l) => l.includes(id)).join('\n'));
  assert.ok(log.includes(`/self/${shop.id}/invoices/[REDACTED]`));
});
