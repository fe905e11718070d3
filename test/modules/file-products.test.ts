import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { build, type Client, owner } from '../helpers/build.js';
import { assertError, assertOk, createShop } from '../helpers/factories.js';

/**
 * File products and licensed variants from the catalog's side: what a variant accepts, what an
 * order of one delivers (downloads on the invoice, licence keys as its items), and what the owner
 * sees. The files, downloads and licences modules test their own routes in depth.
 */

async function shopWithFile(api: Client, bytes = Buffer.from('%PDF-1.4 a tiny e-book\n')) {
  const shop = await createShop(api, 'File Shop');
  assertOk(await api.put(`/self/${shop.id}/settings/payments/tipjar`, { enabled: true, handle: 'jar' }));
  const uploaded = await api.upload(`/self/${shop.id}/files`, bytes, 'book.pdf');
  assert.equal(uploaded.status, 201, JSON.stringify(uploaded.body));
  return { shopId: shop.id, file: uploaded.body.data as { id: string; sha256: string; size: number }, bytes };
}

const fileVariant = (fileIds: string[], extra: Record<string, unknown> = {}) => ({
  title: 'PDF',
  priceDetails: { amount: 5 },
  productType: 'file',
  asFile: { fileIds },
  ...extra,
});

async function buy(
  app: Awaited<ReturnType<typeof build>>,
  api: Client,
  shopId: number,
  productId: number,
  variantId: number,
  quantity = 1,
) {
  const placed = await app.inject({
    method: 'POST',
    url: `/v2/public/shops/${shopId}/invoices`,
    payload: {
      customerEmail: 'buyer@example.com',
      gateway: 'tipjar',
      parts: [{ productId, productVariantId: variantId, quantity }],
    },
  });
  assert.equal(placed.statusCode, 200, placed.body);
  const id = placed.json().data.id as string;
  assertOk(await api.post(`/self/${shopId}/invoices/${id}/process`));
  const view = await app.inject({ method: 'GET', url: `/v2/public/invoices/${id}` });
  assert.equal(view.statusCode, 200, view.body);
  return { id, invoice: view.json().data };
}

test('a file variant delivers its files as download links and shows them on the order', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const { shopId, file, bytes } = await shopWithFile(api);
  const product = assertOk(
    await api.post(`/self/${shopId}/v2/products`, {
      title: 'E-book',
      description: 'A book',
      variants: [fileVariant([file.id], { asFile: { fileIds: [file.id], downloadLimit: 2, linkHours: 6 } })],
    }),
  );
  const variant = product.variants[0];
  assert.equal(variant.productType, 'file');
  assert.deepEqual(variant.asFile.fileIds, [file.id]);
  assert.equal(variant.asFile.files[0].name, 'book.pdf');
  assert.equal(variant.asFile.downloadLimit, 2);
  assert.equal(variant.asFile.linkHours, 6);
  assert.equal(variant.license, null);

  const { id, invoice } = await buy(app, api, shopId, product.id, variant.id);
  assert.equal(invoice.status, 'completed');
  assert.deepEqual(invoice.parts[0].deliverables, [], 'a file part delivers links, not text');
  assert.equal(invoice.downloads.length, 1);
  const [download] = invoice.downloads;
  assert.equal(download.fileId, file.id);
  assert.equal(download.name, 'book.pdf');
  assert.equal(download.size, bytes.length);
  assert.equal(download.remaining, 2);
  const hours = (Date.parse(download.expiresAt) - Date.now()) / 3_600_000;
  assert.ok(hours > 5.9 && hours <= 6, `the link lasts linkHours (${hours})`);

  const got = await app.inject({ method: 'GET', url: new URL(download.url).pathname });
  assert.equal(got.statusCode, 200);
  assert.equal(createHash('sha256').update(got.rawPayload).digest('hex'), file.sha256);
  const again = (await app.inject({ method: 'GET', url: `/v2/public/invoices/${id}` })).json().data;
  assert.equal(again.downloads[0].remaining, 1, 'the download counted');

  // The delivery mail names the file and sends the buyer to the order page for a fresh link.
  const mail = await app.db.kysely
    .selectFrom('mail_outbox')
    .select(['body_text', 'body_html'])
    .where('shop_id', '=', shopId)
    // Mails name the order by its payment reference; the invoice id is in the link only.
    .where('subject', 'like', 'Your order %')
    .where('body_text', 'like', `%/invoices/${id}%`)
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow();
  assert.match(mail.body_text, /Download from your order page[^\n]*\n {2}book\.pdf \(\d+ bytes\)/);
  assert.match(mail.body_html ?? '', /book\.pdf/);
  assert.doesNotMatch(mail.body_text, /downloads\//, 'no expiring link in a mail');

  const ownerView = assertOk(await api.get(`/self/${shopId}/invoices/${id}`));
  assert.equal(ownerView.downloads.length, 1, 'the owner sees the download');
  assert.equal(ownerView.downloads[0].fileId, file.id);
  assert.equal(ownerView.downloads[0].bytes, bytes.length);
  assert.deepEqual(ownerView.licenses, []);

  // Attached: the file cannot be deleted; once the product is gone it can.
  assertError(await api.delete(`/self/${shopId}/files/${file.id}`), 409, 'conflict');
  assertOk(await api.delete(`/self/${shopId}/products/${product.id}`));
  const deleted = await api.delete(`/self/${shopId}/files/${file.id}`);
  assert.ok(deleted.status === 200 || deleted.status === 204, JSON.stringify(deleted.body));
});

test('a licensed variant issues a licence per unit: generated keys, or the serials sold', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const { shopId, file } = await shopWithFile(api);
  const product = assertOk(
    await api.post(`/self/${shopId}/v2/products`, {
      title: 'Program',
      description: 'Software',
      variants: [
        fileVariant([file.id], { license: { activationLimit: 2, validDays: 30, keyPattern: 'APP-XXXX-XXXX-XXXX' } }),
        {
          title: 'Key',
          priceDetails: { amount: 3 },
          productType: 'serials',
          asSerials: { serials: ['SER-1', 'SER-2'] },
          license: { activationLimit: null },
        },
      ],
    }),
  );
  const [program, serials] = product.variants;
  assert.deepEqual(program.license, {
    activationLimit: 2,
    validDays: 30,
    expiresAt: null,
    keyPattern: 'APP-XXXX-XXXX-XXXX',
  });

  const generated = await buy(app, api, shopId, product.id, program.id, 2);
  const keys = generated.invoice.parts[0].deliverables as string[];
  assert.equal(keys.length, 2);
  for (const key of keys) assert.match(key, /^APP-[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}$/);
  assert.equal(generated.invoice.downloads.length, 1, 'the program is downloadable too');
  const licences = assertOk(await api.get(`/self/${shopId}/invoices/${generated.id}`)).licenses;
  assert.deepEqual(licences.map((l: { licenseKey: string }) => l.licenseKey).sort(), [...keys].sort());
  for (const l of licences) {
    assert.equal(l.status, 'inactive');
    assert.equal(l.activationLimit, 2);
    const days = (Date.parse(l.expiresAt) - Date.now()) / 86_400_000;
    assert.ok(days > 29.9 && days <= 30, `validDays from the sale (${days})`);
  }

  const activated = await app.inject({
    method: 'POST',
    url: `/v2/public/shops/${shopId}/licenses/activate`,
    payload: { licenseKey: keys[0], instanceName: 'laptop' },
  });
  assert.equal(activated.statusCode, 200, activated.body);
  assert.equal(activated.json().data.license.productId, product.id);

  const sold = await buy(app, api, shopId, product.id, serials.id);
  assert.deepEqual(sold.invoice.parts[0].deliverables, ['SER-1']);
  const serialLicences = assertOk(await api.get(`/self/${shopId}/invoices/${sold.id}`)).licenses;
  assert.deepEqual(
    serialLicences.map((l: { licenseKey: string; activationLimit: number | null }) => [
      l.licenseKey,
      l.activationLimit,
    ]),
    [['SER-1', null]],
  );
});

test('file and licence options refuse what they would store and never use', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const { shopId, file } = await shopWithFile(api);
  const other = await shopWithFile(await owner(app));
  const post = (variant: Record<string, unknown>) =>
    api.post(`/self/${shopId}/v2/products`, { title: 'X', description: 'x', variants: [variant] });

  assertError(await post({ title: 'PDF', priceDetails: { amount: 1 }, productType: 'file' }), 400, 'validation_error');
  assertError(await post(fileVariant(['nosuchfile'])), 400, 'validation_error');
  assertError(await post(fileVariant([other.file.id])), 400, 'validation_error');
  assertError(await post(fileVariant([file.id, file.id])), 400, 'validation_error');
  assertError(
    await post(fileVariant([file.id], { license: { validDays: 3, expiresAt: '2030-01-01T00:00:00Z' } })),
    400,
    'validation_error',
  );
  assertError(await post(fileVariant([file.id], { license: { keyPattern: 'XXXX-XXX' } })), 400, 'validation_error');
  assertError(
    await post({
      title: 'Key',
      priceDetails: { amount: 1 },
      productType: 'serials',
      asSerials: { serials: ['a'] },
      license: { keyPattern: 'XXXX-XXXX-XXXX' },
    }),
    400,
    'validation_error',
  );
  assertError(
    await post({
      title: 'Avatar',
      priceDetails: { amount: 1 },
      productType: 'dynamic',
      asDynamic: { externalUrl: 'https://example.com/x' },
      license: {},
    }),
    400,
    'validation_error',
  );
  const products = assertOk(await api.get(`/self/${shopId}/v2/products`));
  assert.equal(products.totalCount, 0, 'nothing was created');
});
