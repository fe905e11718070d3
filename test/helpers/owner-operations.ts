import type { FastifyInstance } from 'fastify';
import type { Client } from './build.js';
import { assertOk } from './factories.js';
import { pngImage } from './multipart.js';

/**
 * Every owner operation on a shop, read from the app's own OpenAPI document, with a valid
 * request for each. Tests walk this list (isolation, scopes, authentication), so a route
 * without a sample here fails the suite until one is added.
 *
 * A `Fixture` holds one object of each kind in the shop; path parameters are filled from it by
 * name (`{productId}` ← fixture.productId).
 */
export interface Fixture {
  shopId: number;
  productId: number;
  variantId: number;
  [param: string]: number | string;
}

export interface Operation {
  method: string;
  path: string;
  sample: Sample;
}

interface Sample {
  body?: (f: Fixture) => unknown;
  /** Path parameters other than the fixture's defaults (e.g. a completed invoice instead of a pending one). */
  params?: (f: Fixture) => Record<string, number | string>;
  /** A query string, e.g. a fixed date range so that reads do not depend on the clock. */
  query?: string;
  /** A multipart image upload instead of a JSON body. */
  upload?: true;
  /** Raw bytes with these headers instead of a JSON body (a chunk of a resumable file upload). */
  raw?: { body: Buffer; headers: Record<string, string> };
  /**
   * What the owning account gets when not 200: the walks cannot make the object (a dispute is
   * only made by Stripe's callback about a card payment, and they run without a Stripe double),
   * so the route answers its 404 for the owner as for anyone else (test/modules/disputes.test.ts
   * walks it with a real dispute).
   */
  status?: number;
}

const json = (body: unknown): Sample => ({ body: () => body });
const FIXTURE_UPLOAD = Buffer.from('fixture upload bytes');
const upload: Sample = { upload: true };

const samples: Record<string, Sample> = {
  'PUT /self/{shopId}/settings/name': json({ newName: 'Intruder' }),
  'PUT /self/{shopId}/settings/subdomain': json({ newSubDomain: 'intruder-shop' }),
  'PUT /self/{shopId}/settings/currency': json({ currency: 'EUR' }),
  'PUT /self/{shopId}/settings/password': json({ password: 'intruder' }),
  'PUT /self/{shopId}/settings/timezone': json({ utcTimezoneOffset: 60 }),
  'PUT /self/{shopId}/settings/status': json({ onHold: true }),
  'PUT /self/{shopId}/settings/popup': json({ message: 'pwned' }),
  'PUT /self/{shopId}/settings/terms': json({ terms: 'pwned' }),
  'PUT /self/{shopId}/settings/affiliate': json({ percentage: 50 }),
  'PUT /self/{shopId}/settings/invoices': json({ lifetimeMinutes: 10 }),
  'PUT /self/{shopId}/settings/language': json({ language: 'de' }),
  'PUT /self/{shopId}/settings/protection': json({ disputeAutoSubmit: true, mailPerShopDay: 5000 }),
  // A domain is unique across all shops: each shop's fixture names its own.
  'PUT /self/{shopId}/settings/domain': { body: (f) => ({ domain: `shop-${f.shopId}.intruder.example` }) },
  // After the PUT above (document order): its DNS record cannot exist (the test resolver answers
  // nothing), so the check is a 422 and nothing changes.
  'POST /self/{shopId}/settings/domain/verify': { status: 422 },
  'PUT /self/{shopId}/settings/payments/cryptocommerce': json({
    enabled: true,
    apiKey: 'k'.repeat(12),
    webhookSecret: 's'.repeat(12),
  }),
  // No adapter yet: configured, never enabled (enabling is a 422).
  'PUT /self/{shopId}/settings/payments/virtual-payments': json({
    enabled: false,
    privateKey: 'p'.repeat(12),
    publicKey: 'pub',
    receiveCurrency: 'BTC',
  }),
  'PUT /self/{shopId}/settings/payments/tipjar': json({ enabled: true, handle: 'intruder' }),
  'PUT /self/{shopId}/settings/payments/balance': json({ enabled: true }),
  'PUT /self/{shopId}/settings/payments/cardconnect': json({
    enabled: true,
    // Checked with Stripe when stored: the walk that expects a 200 runs against the provider double.
    secretKey: `sk_test_${'k'.repeat(12)}`,
    webhookSecret: 's'.repeat(12),
  }),
  'PUT /self/{shopId}/settings/payments/walletemail': json({ enabled: true, email: 'x@example.com' }),
  'PUT /self/{shopId}/settings/payments/mobilecash': json({ enabled: true, cashtag: '$intruder' }),
  'PUT /self/{shopId}/settings/payments/wallet-ff': json({ enabled: true, email: 'x@example.com' }),
  'PUT /self/{shopId}/settings/payments/cardreader': json({ enabled: false, terminalId: 'T1', apiKey: 'k'.repeat(12) }),

  'PUT /self/{shopId}/settings/design': json({ primaryColor: '#ff0000', darkMode: false }),
  'PUT /self/{shopId}/customization/design': json({ backgroundColor: '#000000', disableSnow: true }),
  'PUT /self/{shopId}/customization/widgets': json({ crispKey: 'intruder-crisp' }),
  'PUT /self/{shopId}/settings/design/storefront': json({ title: 'pwned', disableButton: true }),
  'PUT /self/{shopId}/customization/storefront': json({ description: 'pwned' }),
  'PUT /self/{shopId}/customization/seo': json({ metaTitle: 'pwned' }),
  'PUT /self/{shopId}/settings/design/links': json({
    socialLinks: [{ platform: 'website', link: 'https://intruder.example' }],
  }),
  'PUT /self/{shopId}/customization/links': json({
    socialLinks: [{ platform: 'email', link: 'intruder@example.com' }],
  }),
  'POST /self/{shopId}/customization/logo': upload,
  'POST /self/{shopId}/settings/design/logo': upload,
  'POST /self/{shopId}/customization/storefront/background': upload,
  'POST /self/{shopId}/settings/design/storefront/logo': upload,
  'POST /self/{shopId}/customization/seo/image': upload,
  'POST /self/{shopId}/customization/seo/favicon': upload,

  'POST /self/{shopId}/v2/products': json(productBody('Intruder product')),
  'PUT /self/{shopId}/v2/products/{productId}': {
    body: (f) => ({ ...productBody('Renamed'), variants: [{ ...productBody('x').variants[0], id: f.variantId }] }),
  },
  'POST /self/{shopId}/v2/products/{productId}/variants/{variantId}/serials': json({
    serials: ['RESTOCK-1', 'RESTOCK-2'],
  }),
  'POST /self/{shopId}/v2/products/{productId}/thumbnail': upload,
  'POST /self/{shopId}/v2/products/{productId}/seo/image': upload,
  'POST /self/{shopId}/v2/products/{productId}/images': upload,
  'PUT /self/{shopId}/v2/products/{productId}/images': { body: (f) => ({ images: [{ id: f.imageId, alt: 'Pwned' }] }) },
  'DELETE /self/{shopId}/v2/products/{productId}/images/{imageId}': {},
  'PUT /self/{shopId}/v2/products/bulk/update/payment-methods': {
    body: (f) => ({ productIds: [f.productId], gatewaysList: { balance: false } }),
  },
  'DELETE /self/{shopId}/products/{productId}': {},
  'PUT /self/{shopId}/products/bulk/update/custom-fields': {
    body: (f) => ({ productIds: [f.productId], customFields: [{ name: 'Nick', type: 'text' }] }),
  },
  'PUT /self/{shopId}/products/bulk/update/customer-note': {
    body: (f) => ({ productIds: [f.productId], note: 'pwned' }),
  },
  'PUT /self/{shopId}/products/bulk/update/visibility': { body: (f) => ({ productIds: [f.productId], private: true }) },
  'PUT /self/{shopId}/products/bulk/update/chat-integration': {
    body: (f) => ({ productIds: [f.productId], chatIntegration: { enabled: true } }),
  },
  'POST /self/{shopId}/products/bulk/delete': { body: (f) => ({ productIds: [f.productId] }) },

  'POST /self/{shopId}/groups': { body: (f) => ({ title: 'Intruder group', productIds: [f.productId] }) },
  'PUT /self/{shopId}/groups/{groupId}': {
    body: (f) => ({ title: 'Renamed group', productIds: [f.productId], type: 'dropdown' }),
  },
  'POST /self/{shopId}/groups/{groupId}/thumbnail': upload,
  'DELETE /self/{shopId}/groups/{groupId}': {},
  'PUT /self/{shopId}/listings/position': { body: (f) => ({ listings: [{ listingId: f.listingId, position: 7 }] }) },
  'POST /self/{shopId}/categories': { body: (f) => ({ name: 'Intruder category', listingIds: [f.listingId] }) },
  'PUT /self/{shopId}/categories/{categoryId}': {
    body: (f) => ({ name: 'Renamed category', listingIds: [f.listingId] }),
  },
  'DELETE /self/{shopId}/categories/{categoryId}': {},

  'POST /self/{shopId}/coupons': {
    body: (f) => ({ name: 'INTRUDER', discount: 50, isFixed: false, restrictToProducts: [f.productId] }),
  },
  'PUT /self/{shopId}/coupons/{couponId}': {
    body: (f) => ({ name: 'RENAMED', discount: 5, isFixed: true, restrictToProducts: [f.productId], maxUses: 1 }),
  },
  'DELETE /self/{shopId}/coupons/{couponId}': {},
  'POST /self/{shopId}/blacklist': json({ type: 'email', data: 'intruder@example.com' }),
  'PUT /self/{shopId}/blacklist/{blockedItemId}': json({ type: 'ip', data: '10.0.0.0/8', note: 'pwned' }),
  'DELETE /self/{shopId}/blacklist/{blockedItemId}': {},
};

const fixedRange = 'fromDate=2020-01-01&toDate=2100-12-31';
const fixedDashboardRange = 'fromDate=2020-01-01&toDate=2020-12-31';

Object.assign(samples, {
  'POST /self/{shopId}/invoices/{invoiceId}/process': {},
  // A pending invoice of its own: `process` completes the fixture's.
  'POST /self/{shopId}/invoices/{invoiceId}/cancel': { params: (f) => ({ invoiceId: f.cancellableInvoiceId! }) },
  'POST /self/{shopId}/invoices/{invoiceId}/replacement': {
    params: (f) => ({ invoiceId: f.completedInvoiceId! }),
    body: (f) => ({ partInvoiceId: f.partInvoiceId, quantity: 1 }),
  },
  'POST /self/{shopId}/invoices/{invoiceId}/resend': {
    params: (f) => ({ invoiceId: f.completedInvoiceId! }),
    body: () => ({ email: 'again@example.com' }),
  },
  // A part of the completed invoice: the other operations on it still apply.
  'POST /self/{shopId}/invoices/{invoiceId}/refund': {
    params: (f) => ({ invoiceId: f.completedInvoiceId! }),
    body: () => ({ amount: 0.01, reason: 'sample refund' }),
  },
  'POST /self/{shopId}/customers/{customerId}/balance/add': json({ amount: 2.5, note: 'goodwill' }),
  'POST /self/{shopId}/customers/{customerId}/balance/remove': json({ amount: 1 }),
  'POST /self/{shopId}/affiliates/{customerId}/referral/disable': {},
  'GET /self/{shopId}/customers/stats': { query: fixedRange },
  'POST /self/{shopId}/webhooks': json({ url: 'http://127.0.0.1:9/intruder', events: ['invoice.completed'] }),
  'PUT /self/{shopId}/webhooks/{webhookId}': json({
    url: 'http://127.0.0.1:9/renamed',
    events: ['ticket.created'],
    enabled: false,
  }),
  'DELETE /self/{shopId}/webhooks/{webhookId}': {},
  'POST /self/{shopId}/webhooks/{webhookId}/test': {},
  // An endpoint of its own: the PUT sample above turns the fixture's endpoint off.
  'POST /self/{shopId}/webhooks/{webhookId}/deliveries/{deliveryId}/resend': {
    params: (f) => ({ webhookId: f.deliveryWebhookId! }),
  },
  'GET /self/{shopId}/affiliates/stats': { query: fixedRange },
  // Dashboards cover at most 366 days; real-time figures are read as of a fixed instant.
  'GET /self/{shopId}/dashboard/general': { query: fixedDashboardRange },
  'GET /self/{shopId}/dashboard/advanced': { query: fixedDashboardRange },
  'GET /self/{shopId}/analytics/visits/real-time': { query: 'at=2020-01-01T12:00:00.000Z' },
} satisfies Record<string, Sample>);

Object.assign(samples, {
  'POST /self/{shopId}/faqs': json({ question: 'Intruder question?', answer: 'pwned', position: 2 }),
  'PUT /self/{shopId}/faqs/{faqId}': json({ question: 'Renamed question?', answer: 'pwned', position: 5 }),
  'DELETE /self/{shopId}/faqs/{faqId}': {},
  'POST /self/{shopId}/announcements': json({ title: 'Intruder announcement', description: 'pwned' }),
  'PUT /self/{shopId}/announcements/{announcementId}': json({
    title: 'Renamed announcement',
    description: 'pwned',
    private: true,
    buttonText: 'Go',
    buttonLink: 'https://example.com/',
  }),
  'DELETE /self/{shopId}/announcements/{announcementId}': {},
  'POST /self/{shopId}/feedbacks/{feedbackId}/answer': json({ answer: 'pwned' }),
  'POST /self/{shopId}/feedbacks/{feedbackId}/appeal': json({ reason: 'spam', description: 'pwned' }),
  // Registered before close, so the ticket is still open when the message is sent.
  'POST /self/{shopId}/tickets/{ticketId}/message': json({ content: 'pwned' }),
  'POST /self/{shopId}/tickets/{ticketId}/close': {},
  // In the document's order: disabled, enabled again, extended, reset, then revoked for good.
  'POST /self/{shopId}/licenses/{licenseId}/disable': {},
  'POST /self/{shopId}/licenses/{licenseId}/enable': {},
  'POST /self/{shopId}/licenses/{licenseId}/extend': json({ expiresAt: '2100-01-01T00:00:00.000Z' }),
  'POST /self/{shopId}/licenses/{licenseId}/reset': {},
  'POST /self/{shopId}/licenses/{licenseId}/revoke': {},
  'POST /self/{shopId}/licenses/signing-keys/rotate': {},
  'POST /self/{shopId}/files': upload,
  'DELETE /self/{shopId}/files/{fileId}': {},
  'POST /self/{shopId}/files/uploads': json({ name: 'intruder.bin', size: FIXTURE_UPLOAD.length }),
  // The whole (small) file in one chunk: the upload completes into a file.
  'PUT /self/{shopId}/files/uploads/{uploadId}': {
    raw: { body: FIXTURE_UPLOAD, headers: { 'content-type': 'application/octet-stream', 'upload-offset': '0' } },
  },
  'DELETE /self/{shopId}/files/uploads/{uploadId}': {},
  'GET /self/{shopId}/disputes/{disputeId}': { status: 404 },
  'POST /self/{shopId}/disputes/{disputeId}/submit': { status: 404 },
} satisfies Record<string, Sample>);

export function productBody(title: string, overrides: Record<string, unknown> = {}) {
  return {
    title,
    description: `${title} description`,
    variants: [
      {
        title: 'Standard',
        priceDetails: { amount: 9.99 },
        productType: 'serials',
        asSerials: { serials: ['KEY-1', 'KEY-2', 'KEY-3'] },
      },
    ],
    ...overrides,
  };
}

/** One object of each kind in the shop, made through the API. */
export async function createFixture(api: Client, shopId: number): Promise<Fixture> {
  // A second, service variant sells the invoice to cancel, so the serials stay for process and replacement.
  const base = productBody('Fixture product');
  const product = assertOk(
    await api.post(`/self/${shopId}/v2/products`, {
      ...base,
      variants: [
        ...base.variants,
        {
          title: 'Service',
          priceDetails: { amount: 2 },
          productType: 'service',
          asService: { text: 'Fixture service' },
        },
      ],
    }),
  );
  // One image in its gallery.
  const image = assertOk(
    await api.upload(`/self/${shopId}/v2/products/${product.id}/images`, await pngImage(), 'g.png'),
  );
  // An empty group: the product keeps its own listing, and the group gets one.
  const group = assertOk(await api.post(`/self/${shopId}/groups`, { title: 'Fixture group' }));
  const listings = assertOk(await api.get(`/self/${shopId}/listings?pageSize=100`));
  const listingId: number = listings.items.find((l: { group: { id: number } | null }) => l.group?.id === group.id).id;
  const category = assertOk(
    await api.post(`/self/${shopId}/categories`, { name: 'Fixture category', listingIds: [listingId] }),
  );
  // Codes and blocked data are unique per shop, and a fixture may be made again in the same shop.
  const unique = `${product.id}`;
  const coupon = assertOk(
    await api.post(`/self/${shopId}/coupons`, { name: `FIXTURE-${unique}`, discount: 10, isFixed: false }),
  );
  const blocked = assertOk(
    await api.post(`/self/${shopId}/blacklist`, { type: 'email', data: `fixture-${unique}@example.com` }),
  );
  const webhook = assertOk(
    await api.post(`/self/${shopId}/webhooks`, {
      url: 'http://127.0.0.1:9/fixture',
      events: ['invoice.created', 'invoice.completed'],
    }),
  );
  // A delivery to resend: a test ping (to a closed port) logs one.
  const pinged = assertOk(
    await api.post(`/self/${shopId}/webhooks`, {
      url: 'http://127.0.0.1:9/fixture-pinged',
      events: ['ticket.created'],
    }),
  );
  assertOk(await api.post(`/self/${shopId}/webhooks/${pinged.id}/test`));
  const delivery = assertOk(await api.get(`/self/${shopId}/webhooks/${pinged.id}/deliveries`)).items[0];
  // Orders: one pending invoice (to process) and one completed (to replace and resend), from a customer with a balance.
  // The shop must be able to sell (an earlier operation may have locked or held it).
  assertOk(await api.put(`/self/${shopId}/settings/password`, { password: null }));
  assertOk(await api.put(`/self/${shopId}/settings/status`, { onHold: false }));
  assertOk(await api.put(`/self/${shopId}/settings/payments/tipjar`, { enabled: true, handle: 'fixture-jar' }));
  const order = {
    customerEmail: `buyer-${unique}@example.com`,
    gateway: 'tipjar',
    parts: [{ productId: product.id, productVariantId: product.variants[0].id, quantity: 1 }],
  };
  const pending = assertOk(await api.post(`/v2/public/shops/${shopId}/invoices`, order));
  const completed = assertOk(await api.post(`/v2/public/shops/${shopId}/invoices`, order));
  const done = assertOk(await api.post(`/self/${shopId}/invoices/${completed.id}/process`));
  const cancellable = assertOk(
    await api.post(`/v2/public/shops/${shopId}/invoices`, {
      ...order,
      parts: [{ productId: product.id, productVariantId: product.variants[1].id, quantity: 1 }],
    }),
  );
  assertOk(await api.post(`/self/${shopId}/customers/${done.customerId}/balance/add`, { amount: 10 }));
  // Support and content. The completed invoice above is new on every call, so its feedback is its first;
  // customer-side objects go through the public routes (the shop has no password at this point).
  const faq = assertOk(
    await api.post(`/self/${shopId}/faqs`, { question: `Fixture question ${unique}?`, answer: 'Fixture answer' }),
  );
  const announcement = assertOk(
    await api.post(`/self/${shopId}/announcements`, {
      title: `Fixture announcement ${unique}`,
      description: 'Fixture news',
    }),
  );
  const feedback = assertOk(
    await api.post(`/v2/public/invoices/${completed.id}/feedback`, { rating: 4, comment: 'Fixture feedback' }),
  );
  const ticket = assertOk(
    await api.post(`/v2/public/shops/${shopId}/tickets`, {
      email: `buyer-${unique}@example.com`,
      title: 'Fixture ticket',
      message: 'Help',
      invoiceId: completed.id,
    }),
  );
  // A licensed service and a completed order of it: one licence, issued at delivery.
  const licensed = assertOk(
    await api.post(`/self/${shopId}/v2/products`, {
      title: `Fixture license ${unique}`,
      description: 'A licensed program',
      variants: [
        {
          title: 'Seat',
          priceDetails: { amount: 3 },
          productType: 'service',
          asService: { text: 'Thanks' },
          license: { activationLimit: 2 },
        },
      ],
    }),
  );
  const licenseOrder = assertOk(
    await api.post(`/v2/public/shops/${shopId}/invoices`, {
      ...order,
      parts: [{ productId: licensed.id, productVariantId: licensed.variants[0].id, quantity: 1 }],
    }),
  );
  assertOk(await api.post(`/self/${shopId}/invoices/${licenseOrder.id}/process`));
  const license = assertOk(await api.get(`/self/${shopId}/licenses?productId=${licensed.id}`)).items[0];
  // A file (attached to nothing, so it can be deleted) and a resumable upload in progress.
  const file = await api.upload(`/self/${shopId}/files`, Buffer.from(`fixture file ${unique}`), 'fixture.txt');
  if (file.status !== 201) throw new Error(`fixture file: ${file.status} ${JSON.stringify(file.body)}`);
  const pendingUpload = assertOk(
    await api.post(`/self/${shopId}/files/uploads`, { name: 'fixture.bin', size: FIXTURE_UPLOAD.length }),
  );
  return {
    shopId,
    productId: product.id,
    variantId: product.variants[0].id,
    groupId: group.id,
    imageId: image.id,
    listingId,
    categoryId: category.id,
    couponId: coupon.id,
    blockedItemId: blocked.id,
    invoiceId: pending.id,
    completedInvoiceId: completed.id,
    cancellableInvoiceId: cancellable.id,
    partInvoiceId: done.parts[0].id,
    customerId: done.customerId,
    faqId: faq.id,
    announcementId: announcement.id,
    feedbackId: feedback.id,
    ticketId: ticket.id,
    licenseId: license.id,
    fileId: file.body.data.id,
    uploadId: pendingUpload.id,
    webhookId: webhook.id,
    deliveryWebhookId: pinged.id,
    deliveryId: delivery.deliveryId,
    // No dispute can be made through the owner API (see Sample.status): an id none has.
    disputeId: 2_000_000_000,
  };
}

export async function shopOperations(app: FastifyInstance): Promise<Operation[]> {
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
    paths: Record<string, Record<string, unknown>>;
  };
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    if (!path.startsWith('/self/{shopId}')) continue;
    for (const method of Object.keys(methods).map((m) => m.toUpperCase())) {
      const id = `${method} ${path}`;
      const sample = samples[id] ?? (method === 'GET' ? {} : undefined);
      if (!sample) throw new Error(`no sample request for ${id}: add one to test/helpers/owner-operations.ts`);
      operations.push({ method, path, sample });
    }
  }
  // Deletions last, so the objects the other operations name still exist.
  return operations.sort(
    (a, b) =>
      Number(a.method === 'DELETE' || a.path.endsWith('/delete')) -
      Number(b.method === 'DELETE' || b.path.endsWith('/delete')),
  );
}

export function concretePath(op: Operation, fixture: Fixture): string {
  const params: Record<string, number | string> = { ...fixture, ...op.sample.params?.(fixture) };
  return (
    op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = params[name];
      if (value === undefined) throw new Error(`no fixture value for {${name}} in ${op.path}: extend createFixture`);
      return String(value);
    }) + (op.sample.query ? `?${op.sample.query}` : '')
  );
}

/** Sends the operation's sample request with this client. */
export async function send(api: Client, op: Operation, fixture: Fixture) {
  const url = concretePath(op, fixture);
  if (op.sample.upload) return api.upload(url, await pngImage());
  if (op.sample.raw) return api.request(op.method, url, op.sample.raw.body, op.sample.raw.headers);
  return api.request(op.method, url, op.sample.body?.(fixture));
}

/** Everything the owner can read about the shop: compared before and after to prove nothing changed. */
export async function snapshot(api: Client, ops: Operation[], fixture: Fixture): Promise<unknown[]> {
  const reads = ops.filter((op) => op.method === 'GET');
  return Promise.all(reads.map(async (op) => (await api.get(concretePath(op, fixture))).body));
}
