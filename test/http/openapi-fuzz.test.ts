import assert from 'node:assert/strict';
import { test } from 'node:test';
import { seededRandom } from '../../src/modules/seed/demo-data.js';
import { build, owner } from '../helpers/build.js';
import { assertOk, createShop } from '../helpers/factories.js';
import { multipartForm, pngImage } from '../helpers/multipart.js';
import {
  announcedByRules,
  documentValidator,
  type FuzzOperation,
  type FuzzRequest,
  type Generator,
  isValid,
  mutations,
  operationsOf,
  toInject,
  validRequest,
} from '../helpers/openapi-fuzz.js';
import { createFixture, productBody } from '../helpers/owner-operations.js';

/**
 * Issue 19 item 17: the OpenAPI document and the validation agree. For every operation of
 * /openapi.json, requests valid by the document are never a 400 (nor a 5xx), and requests made
 * invalid by it in one place are a 400 in the envelope. Seeded: FUZZ_SEED replays a run,
 * FUZZ_VALID and FUZZ_INVALID set how many requests of each kind an operation gets.
 */
const seed = Number(process.env.FUZZ_SEED ?? 1919);
const validPerOperation = Number(process.env.FUZZ_VALID ?? 3);
const invalidPerOperation = Number(process.env.FUZZ_INVALID ?? 7);

/** Writes that would stop later requests from being checked (deletions) run last. */
const destructive = (op: FuzzOperation) => op.method === 'DELETE' || op.path.endsWith('/bulk/delete');

test('requests valid by the OpenAPI document are accepted, requests invalid by it are a 400', {
  timeout: 1_200_000,
}, async (t) => {
  const app = await build(t, { RATE_LIMIT_OWNER_MAX: '0', RATE_LIMIT_PUBLIC_MAX: '0' });
  const api = await owner(app);
  const shop = await createShop(api, 'Fuzzed Shop');
  const fixture = await createFixture(api, shop.id);
  const product = assertOk(await api.get(`/self/${shop.id}/v2/products/${fixture.productId}`));
  const announcements = assertOk(await api.get(`/self/${shop.id}/announcements`));
  const pending = assertOk(await api.get(`/self/${shop.id}/invoices/${fixture.invoiceId}`));
  // Bought at checkout and named by no path: the requests that change or delete fixture.productId leave it as it is.
  const forSale = assertOk(await api.post(`/self/${shop.id}/v2/products`, productBody('For sale')));
  const pathValues: Record<string, unknown> = {
    ...fixture,
    listingPath: product.path,
    announcementPath: announcements.items[0].path,
  };
  const references: Generator['references'] = {
    product: [fixture.productId],
    variant: [fixture.variantId],
    publicProduct: [forSale.id],
    publicVariant: [forSale.variants[0].id],
    listing: [fixture.listingId as number],
    invoice: [fixture.completedInvoiceId as string],
    // A part of the invoice the paths name (pending at first, completed once a request processed it).
    invoicePart: [pending.parts[0].id],
    currency: ['USD'],
    file: [fixture.fileId as string],
    // A cursor is only ever one a list answered; the fixture's lists fit on one page.
    cursor: [],
  };

  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
  const operations = operationsOf(doc).sort((a, b) => Number(destructive(a)) - Number(destructive(b)));
  const random = seededRandom(seed);
  const gen: Generator = { random, valid: documentValidator(), references, currencyDigits: 2 };
  const failures: string[] = [];
  let sentValid = 0;
  let sentInvalid = 0;
  const answered = new Map<number, number>();

  const send = async (op: FuzzOperation, request: FuzzRequest) => {
    const { url, headers, payload } = toInject(op, request);
    const auth = { authorization: `Bearer ${api.key}` };
    if (op.multipart) {
      const form = multipartForm([{ name: 'file', data: await pngImage(), filename: 'image.png', type: 'image/png' }]);
      return app.inject({
        method: op.method as 'POST',
        url,
        headers: { ...auth, ...headers, ...form.headers },
        payload: form.payload,
      });
    }
    return app.inject({
      method: op.method as 'GET',
      url,
      headers: { ...auth, ...headers },
      ...(payload === undefined ? {} : { payload }),
    });
  };
  const show = (op: FuzzOperation, request: FuzzRequest) =>
    `${op.method} ${toInject(op, request).url} ${JSON.stringify(request.body ?? null).slice(0, 600)}`;

  for (const op of operations) {
    const made: FuzzRequest[] = [];
    for (let i = 0; i < validPerOperation; i++) {
      const request = validRequest(gen, op, pathValues);
      if (!request) {
        failures.push(`${op.method} ${op.path}: json-schema-faker found no request valid by the document`);
        break;
      }
      assert.ok(isValid(op, request, gen.valid));
      made.push(request);
      const res = await send(op, request);
      sentValid++;
      answered.set(res.statusCode, (answered.get(res.statusCode) ?? 0) + 1);
      if (process.env.FUZZ_TRACE)
        t.diagnostic(
          `${res.statusCode} ${op.method} ${op.path} ${res.statusCode === 200 ? '' : res.body.slice(0, 200)}`,
        );
      // A 400 is a disagreement unless it names only fields whose rule the document states in words (x-rule).
      const refused = res.statusCode === 400 && !announcedByRules(gen, op, request, res.json().errors ?? []);
      if (refused || res.statusCode >= 500)
        failures.push(`valid, got ${res.statusCode} ${res.body.slice(0, 400)} for ${show(op, request)}`);
      // A product update may have replaced the variants that later requests name.
      if (res.statusCode === 200 && op.path === '/self/{shopId}/v2/products/{productId}')
        references.variant = res.json().data.variants.map((v: { id: number }) => v.id);
    }
    if (made.length > 0) {
      for (const m of mutations(gen, op, made[0]!, invalidPerOperation)) {
        const res = await send(op, m.request);
        sentInvalid++;
        const body = res.headers['content-type']?.toString().includes('json') ? res.json() : {};
        if (res.statusCode !== 400 || body.code !== 'validation_error')
          failures.push(
            `invalid (${m.what}), got ${res.statusCode} ${res.body.slice(0, 300)} for ${show(op, m.request)}`,
          );
      }
    }
    // A request may have locked the shop, held it or changed its currency: restore what the next operations rely on.
    if (op.path.includes('/settings/')) {
      assertOk(await api.put(`/self/${shop.id}/settings/password`, { password: null }));
      assertOk(await api.put(`/self/${shop.id}/settings/status`, { onHold: false }));
      assertOk(await api.put(`/self/${shop.id}/settings/currency`, { currency: 'USD' }));
    }
  }
  for (const failure of failures.slice(0, 200)) t.diagnostic(failure);
  t.diagnostic(`seed ${seed}: ${operations.length} operations, ${sentValid} valid and ${sentInvalid} invalid requests`);
  t.diagnostic(
    `valid requests answered: ${[...answered]
      .sort(([a], [b]) => a - b)
      .map(([status, n]) => `${n}× ${status}`)
      .join(', ')}`,
  );
  assert.ok(operations.length >= 120, `only ${operations.length} operations in the document`);
  assert.ok(sentInvalid >= operations.length * 2, `only ${sentInvalid} invalid requests`);
  assert.deepEqual(
    failures,
    [],
    `seed ${seed}: ${failures.length} disagreements between the document and the validation`,
  );
});
