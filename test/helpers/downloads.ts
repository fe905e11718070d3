import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { newStorageKey } from '../../src/modules/files/file-store.js';
import { attachFiles, grantDownloads } from '../../src/modules/files/index.js';
import { insertFile } from '../../src/modules/files/repository.js';
import { newFileId } from '../../src/modules/files/service.js';
import type { Client } from './build.js';
import { assertOk, createShop } from './factories.js';

/** A download of an order, as the public invoice view shows it. */
export interface Download {
  fileId: string;
  name: string;
  size: number;
  url: string;
  expiresAt: string;
  remaining: number | null;
}

export interface StoredFile {
  id: string;
  name: string;
  size: number;
  sha256: string;
  contentType: string;
}

/**
 * A file of the shop put straight into the app's store (disk or S3) and its row written, as an
 * upload would leave them: for bytes a test generates as a stream (a 1 GiB file is never a Buffer).
 */
export async function storeFile(
  app: FastifyInstance,
  shopId: number,
  name: string,
  body: Buffer | Readable,
  contentType = 'application/pdf',
): Promise<StoredFile> {
  const key = newStorageKey();
  const stream = Buffer.isBuffer(body) ? Readable.from([body]) : body;
  const stored = await app.files.put(key, stream, { maxBytes: Number.MAX_SAFE_INTEGER, contentType });
  const row = await insertFile(app.db.kysely, {
    id: newFileId(),
    shop_id: shopId,
    name,
    size: stored.size,
    sha256: stored.sha256,
    content_type: contentType,
    storage: app.files.kind,
    storage_key: key,
    created_at: app.ctx.clock.now(),
  });
  return { id: row.id, name, size: stored.size, sha256: stored.sha256, contentType };
}

export interface FileShop {
  shopId: number;
  subdomain: string;
  productId: number;
  variantId: number;
  /** Places and completes (tip jar, processed by the owner) an order of the product; answers its id and downloads. */
  buy(): Promise<{ id: string; downloads: Download[] }>;
}

/**
 * A shop selling `fileIds` (stored with `storeFile` in `shop`) with the terms given. The order
 * is of a service variant the files are attached to, and the downloads are granted once it
 * completed, through the files module's door as fulfilment grants them: the files module is
 * tested here on its own, whatever the catalog's `file` variants do (test/modules/file-products.test.ts
 * buys those).
 */
export async function sellFiles(
  app: FastifyInstance,
  api: Client,
  shop: { id: number; subdomain: string },
  fileIds: string[],
  terms: { downloadLimit?: number; linkHours?: number } = {},
): Promise<FileShop> {
  assertOk(await api.put(`/self/${shop.id}/settings/payments/tipjar`, { enabled: true, handle: 'jar' }));
  const product = assertOk(
    await api.post(`/self/${shop.id}/v2/products`, {
      title: 'E-book',
      description: 'A book',
      variants: [
        {
          title: 'PDF',
          priceDetails: { amount: 5 },
          productType: 'service',
          asService: { text: 'Thanks', stock: null },
        },
      ],
    }),
  );
  const variantId = product.variants[0].id as number;
  await attachFiles(app.db.kysely, shop.id, variantId, fileIds);
  const grantTerms = { downloadLimit: terms.downloadLimit ?? 5, linkHours: terms.linkHours ?? 24 };
  return {
    shopId: shop.id,
    subdomain: shop.subdomain,
    productId: product.id,
    variantId,
    async buy() {
      const placed = await app.inject({
        method: 'POST',
        url: `/v2/public/shops/${shop.id}/invoices`,
        payload: {
          customerEmail: 'buyer@example.com',
          gateway: 'tipjar',
          parts: [{ productId: product.id, productVariantId: variantId, quantity: 1 }],
        },
      });
      assert.equal(placed.statusCode, 200, placed.body);
      const id = placed.json().data.id as string;
      assertOk(await api.post(`/self/${shop.id}/invoices/${id}/process`));
      await app.db.kysely
        .transaction()
        .execute((trx) => grantDownloads(trx, shop.id, id, variantId, grantTerms, app.ctx.clock.now()));
      return { id, downloads: await downloadsOf(app, id) };
    },
  };
}

/** A new shop of `api`'s account with one stored file, sold as a file product. */
export async function fileShop(
  app: FastifyInstance,
  api: Client,
  file: { name?: string; body: Buffer | Readable; contentType?: string },
  terms: { downloadLimit?: number; linkHours?: number } = {},
): Promise<FileShop & { file: StoredFile }> {
  const shop = await createShop(api, 'Download Shop');
  const stored = await storeFile(app, shop.id, file.name ?? 'book.pdf', file.body, file.contentType);
  return { ...(await sellFiles(app, api, shop, [stored.id], terms)), file: stored };
}

/** The downloads of a completed order, with fresh links. */
export async function downloadsOf(app: FastifyInstance, invoiceId: string): Promise<Download[]> {
  const view = await app.inject({ method: 'GET', url: `/v2/public/invoices/${invoiceId}` });
  assert.equal(view.statusCode, 200, view.body);
  assert.equal(view.json().data.status, 'completed');
  return view.json().data.downloads;
}

/** The path of a link (what `app.inject` and a server on another port are asked for). */
export const pathOf = (url: string) => new URL(url).pathname;
