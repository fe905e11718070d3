import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { matchesIfNoneMatch } from '../../src/modules/storefront/http-cache.js';
import { rebuildStorefrontTotals } from '../../src/modules/storefront/index.js';
import { UnlockedKeys } from '../../src/modules/storefront/storefront-lock.js';
import { build, type Client, owner } from '../helpers/build.js';
import { assertError, assertOk, createShop } from '../helpers/factories.js';
import { waitUntil } from '../helpers/wait.js';

/** Strings that must never reach a public storefront answer. */
const MARKERS = {
  serial: 'SERIALMARKER',
  serviceText: 'SERVICETEXTMARKER',
  dynamicUrl: 'dynamicurlmarker',
  email: 'buyer-emailmarker@example.com',
  secret: 'SECRETKEYMARKER',
  internal: 'INTERNALMARKER',
  private: 'PRIVATEMARKER',
  hiddenLater: 'HIDDENLATERMARKER',
  privateAnnouncement: 'PRIVATEANNOUNCEMARKER',
  customerNote: 'CUSTOMERNOTEMARKER',
};

interface Page {
  status: number;
  body: any;
  text: string;
  headers: Record<string, string | string[] | number | undefined>;
}

function pages(app: FastifyInstance, shopId: number) {
  return async (path: string, headers: Record<string, string> = {}): Promise<Page> => {
    const res = await app.inject({ method: 'GET', url: `/v2/public/shops/${shopId}${path}`, headers });
    return { status: res.statusCode, body: res.body ? res.json() : undefined, text: res.body, headers: res.headers };
  };
}

async function product(api: Client, shopId: number, body: object): Promise<any> {
  return assertOk(await api.post(`/self/${shopId}/v2/products`, body));
}

const serviceVariant = (title: string, stock: number | null = 10, extra: object = {}) => ({
  title,
  priceDetails: { amount: 5 },
  productType: 'service',
  asService: { text: `${MARKERS.serviceText} ${title}`, stock },
  ...extra,
});

/** Checks out, pays (owner process) and rates one order; answers the invoice id. */
async function ratedOrder(
  app: FastifyInstance,
  api: Client,
  shopId: number,
  order: { productId: number; variantId: number; email: string; rating?: number; comment?: string },
) {
  const res = await app.inject({
    method: 'POST',
    url: `/v2/public/shops/${shopId}/invoices`,
    payload: {
      customerEmail: order.email,
      gateway: 'tipjar',
      parts: [{ productId: order.productId, productVariantId: order.variantId, quantity: 1 }],
    },
  });
  assert.equal(res.statusCode, 200, res.body);
  const invoiceId: string = res.json().data.id;
  assertOk(await api.post(`/self/${shopId}/invoices/${invoiceId}/process`));
  if (order.rating !== undefined) {
    const fb = await app.inject({
      method: 'POST',
      url: `/v2/public/invoices/${invoiceId}/feedback`,
      payload: { rating: order.rating, comment: order.comment ?? null },
    });
    assert.equal(fb.statusCode, 200, fb.body);
  }
  return invoiceId;
}

/**
 * A shop with every kind of thing a storefront must show or hide: listed, unlisted, on-hold,
 * private and internal products, a group with a private member, a group of only an internal
 * product, categories, FAQs, announcements of each visibility, payments with a secret, and
 * rated orders (one for a product made private after the sale).
 */
async function storefrontShop(t: TestContext) {
  const app = await build(t);
  const api = await owner(app);
  const shop = await createShop(api, 'Pixel Store');
  const shopId = shop.id;
  assertOk(await api.put(`/self/${shopId}/settings/payments/tipjar`, { enabled: true, handle: 'jar' }));
  assertOk(await api.put(`/self/${shopId}/settings/payments/balance`, { enabled: true }));
  assertOk(
    await api.put(`/self/${shopId}/settings/payments/cryptocommerce`, {
      enabled: true,
      apiKey: `${MARKERS.secret}-api`,
      webhookSecret: `${MARKERS.secret}-hook`,
    }),
  );

  const key = await product(api, shopId, {
    title: 'Game Key',
    path: 'game-key',
    description: 'A key for the game',
    shortDescription: 'Instant key',
    customerNote: MARKERS.customerNote,
    variants: [
      {
        title: 'Standard',
        priceDetails: { amount: 9.99 },
        productType: 'serials',
        asSerials: { serials: [`${MARKERS.serial}-1`, `${MARKERS.serial}-2`, `${MARKERS.serial}-3`], maxAmount: 2 },
        customFields: [
          { id: 'nick', name: 'Nickname', type: 'text', required: true, placeholder: 'you#1234', regex: '^.+#\\d{4}$' },
        ],
        warranty: { text: '24h warranty', durationSeconds: 86400 },
        customerNote: MARKERS.customerNote,
      },
      serviceVariant('Support', 7, { gateways: [{ gateway: 'tipjar', price: 4 }, { gateway: 'walletemail' }] }),
    ],
  });
  const dynamic = await product(api, shopId, {
    title: 'Account',
    description: 'An account',
    variants: [
      {
        title: 'One',
        priceDetails: { amount: 3 },
        productType: 'dynamic',
        asDynamic: { externalUrl: `https://${MARKERS.dynamicUrl}.example/deliver`, stock: null },
      },
    ],
  });
  const unlisted = await product(api, shopId, {
    title: 'Secret Sale',
    path: 'secret-sale',
    description: 'Only by link',
    unlisted: true,
    variants: [serviceVariant('Only')],
  });
  const onHold = await product(api, shopId, {
    title: 'Coming Soon',
    path: 'coming-soon',
    description: 'Soon',
    onHold: true,
    variants: [serviceVariant('Pre', 0)],
  });
  const internal = await product(api, shopId, {
    title: `${MARKERS.internal} Tool`,
    path: 'internal-tool',
    description: MARKERS.internal,
    isInternal: true,
    variants: [serviceVariant('Int')],
  });
  const privateProduct = await product(api, shopId, {
    title: `${MARKERS.private} Thing`,
    path: 'private-thing',
    description: MARKERS.private,
    private: true,
    variants: [serviceVariant('Priv')],
  });
  const hiddenLater = await product(api, shopId, {
    title: `${MARKERS.hiddenLater} Gift`,
    path: 'hidden-later',
    description: 'x',
    variants: [serviceVariant('Gift')],
  });
  const memberA = await product(api, shopId, {
    title: 'Bundle Part A',
    path: 'part-a',
    description: 'A',
    variants: [serviceVariant('A', null)],
  });
  const memberB = await product(api, shopId, {
    title: 'Bundle Part B',
    path: 'part-b',
    description: 'B',
    variants: [serviceVariant('B', 3)],
  });

  const bundle = assertOk(
    await api.post(`/self/${shopId}/groups`, {
      title: 'Bundle',
      path: 'bundle',
      productIds: [memberA.id, privateProduct.id, memberB.id],
    }),
  );
  const internalGroup = assertOk(
    await api.post(`/self/${shopId}/groups`, { title: 'Staff Only', path: 'staff-only', productIds: [internal.id] }),
  );
  const listings = assertOk(await api.get(`/self/${shopId}/listings?pageSize=100`)).items as any[];
  const listingOf = (type: 'product' | 'group', id: number) =>
    listings.find((l) => (type === 'product' ? l.product?.id === id : l.group?.id === id))?.id as number;
  const category = assertOk(
    await api.post(`/self/${shopId}/categories`, {
      name: 'Games',
      listingIds: [
        listingOf('group', internalGroup.id),
        listingOf('product', key.id),
        listingOf('group', bundle.id),
        listingOf('product', unlisted.id),
      ],
    }),
  );

  for (const [question, position] of [
    ['Second?', 2],
    ['First?', 1],
    ['Also first?', 1],
  ] as const) {
    assertOk(await api.post(`/self/${shopId}/faqs`, { question, answer: `Answer to ${question}`, position }));
  }
  const news = assertOk(
    await api.post(`/self/${shopId}/announcements`, {
      title: 'Big news',
      path: 'big-news',
      shortDescription: 'Short',
      description: 'Long text',
      buttonText: 'Go',
      buttonLink: 'https://example.com',
    }),
  );
  const quiet = assertOk(
    await api.post(`/self/${shopId}/announcements`, {
      title: 'Quiet news',
      path: 'quiet-news',
      description: 'By link',
      unlisted: true,
    }),
  );
  const hidden = assertOk(
    await api.post(`/self/${shopId}/announcements`, {
      title: MARKERS.privateAnnouncement,
      path: 'private-news',
      description: MARKERS.privateAnnouncement,
      private: true,
    }),
  );

  const invoices = [
    await ratedOrder(app, api, shopId, {
      productId: key.id,
      variantId: key.variants[1].id,
      email: MARKERS.email,
      rating: 5,
      comment: 'Great',
    }),
    await ratedOrder(app, api, shopId, {
      productId: memberA.id,
      variantId: memberA.variants[0].id,
      email: 'second@example.com',
      rating: 4,
      comment: 'Good part',
    }),
    await ratedOrder(app, api, shopId, {
      productId: hiddenLater.id,
      variantId: hiddenLater.variants[0].id,
      email: MARKERS.email,
      rating: 4,
    }),
  ];
  // Sold while public, private now: the feedback stays, the product must not show through it.
  assertOk(
    await api.put(`/self/${shopId}/products/bulk/update/visibility`, { productIds: [hiddenLater.id], private: true }),
  );
  // A pending order: its customer has no completed order yet.
  const pending = await app.inject({
    method: 'POST',
    url: `/v2/public/shops/${shopId}/invoices`,
    payload: {
      customerEmail: 'pending@example.com',
      gateway: 'tipjar',
      parts: [{ productId: memberB.id, productVariantId: memberB.variants[0].id, quantity: 1 }],
    },
  });
  assert.equal(pending.statusCode, 200, pending.body);
  invoices.push(pending.json().data.id);

  return {
    app,
    api,
    shopId,
    page: pages(app, shopId),
    products: { key, dynamic, unlisted, onHold, internal, privateProduct, hiddenLater, memberA, memberB },
    groups: { bundle, internalGroup },
    category,
    announcements: { news, quiet, hidden },
    invoices,
  };
}

const ok = (res: Page) => assertOk({ status: res.status, body: res.body });
const paths = (listings: any[]) => listings.map((l) => l.path);

test('main and products pages list only what the storefront may show', async (t) => {
  const { page, shopId, products, groups, category } = await storefrontShop(t);
  const main = ok(await page('/main'));
  assert.deepEqual(Object.keys(main).sort(), [
    'announcements',
    'categories',
    'feedbacks',
    'listings',
    'mainDetails',
    'shop',
  ]);
  assert.equal(main.shop.name, 'Pixel Store');
  assert.deepEqual(Object.keys(main.shop.statistics).sort(), [
    'customersCount',
    'rating',
    'totalFeedbacks',
    'totalProductsSold',
  ]);

  // Listed: the key, the dynamic product, the on-hold one and the bundle (with its public members only).
  assert.deepEqual(paths(main.listings).sort(), ['account', 'bundle', 'coming-soon', 'game-key']);
  const keyListing = main.listings.find((l: any) => l.path === 'game-key');
  assert.deepEqual(keyListing.product, {
    id: products.key.id,
    title: 'Game Key',
    shortDescription: 'Instant key',
    path: 'game-key',
    thumbnailUrl: null,
    onHold: false,
    minPrice: { amount: 5, currency: 'USD' },
    stock: 3 + 6,
    inStock: true,
    soldCount: 1,
  });
  assert.equal(keyListing.group, null);
  const onHold = main.listings.find((l: any) => l.path === 'coming-soon').product;
  assert.equal(onHold.onHold, true);
  assert.equal(onHold.inStock, false);
  const account = main.listings.find((l: any) => l.path === 'account').product;
  assert.equal(account.stock, null, 'unlimited');
  const bundle = main.listings.find((l: any) => l.path === 'bundle');
  assert.equal(bundle.type, 'group');
  assert.equal(bundle.product, null);
  assert.equal(bundle.group.id, groups.bundle.id);
  assert.deepEqual(
    bundle.group.products.map((p: any) => p.id),
    [products.memberA.id, products.memberB.id],
    'private member left out, order kept',
  );
  assert.deepEqual(
    bundle.group.products.map((p: any) => p.stock),
    [null, 3 - 1],
    'unlimited, and one unit held by the pending order',
  );

  // The category keeps only the listings shown, in its order.
  assert.deepEqual(main.categories, [{ id: category.id, name: 'Games', listingIds: [keyListing.id, bundle.id] }]);

  // Announcements: the listed one only, without its body.
  assert.deepEqual(
    main.announcements.map((a: any) => a.path),
    ['big-news'],
  );
  assert.equal(main.announcements[0].description, undefined);
  assert.equal(main.announcements[0].buttonLink, 'https://example.com');

  // Latest feedbacks, newest first.
  assert.deepEqual(
    main.feedbacks.map((f: any) => f.rating),
    [4, 4, 5],
  );
  assert.deepEqual(Object.keys(main.feedbacks[1]).sort(), [
    'answer',
    'answeredAt',
    'comment',
    'createdAt',
    'id',
    'products',
    'rating',
  ]);
  assert.deepEqual(main.feedbacks[1].products, [{ id: products.memberA.id, title: 'Bundle Part A' }]);
  assert.deepEqual(main.feedbacks[0].products, [], 'the product made private is not named');

  const listingsPage = ok(await page('/listings'));
  assert.deepEqual(Object.keys(listingsPage).sort(), ['categories', 'listings', 'mainDetails']);
  assert.deepEqual(listingsPage.listings, main.listings);
  assert.deepEqual(listingsPage.categories, main.categories);
  assert.equal(listingsPage.mainDetails.id, shopId);
});

test('mainDetails carries the shop and its design on every page', async (t) => {
  const { api, page, shopId } = await storefrontShop(t);
  assertOk(await api.put(`/self/${shopId}/settings/popup`, { message: 'Welcome!' }));
  assertOk(await api.put(`/self/${shopId}/settings/terms`, { terms: 'Be nice.' }));
  assertOk(await api.put(`/self/${shopId}/settings/design`, { primaryColor: '#112233', disableSnow: true }));
  assertOk(
    await api.put(`/self/${shopId}/settings/design/storefront`, {
      title: 'Welcome in',
      description: 'Keys and more',
      buttonText: 'Shop now',
      disableTitle: true,
    }),
  );
  assertOk(await api.put(`/self/${shopId}/customization/widgets`, { crispKey: 'crisp-1' }));
  assertOk(await api.put(`/self/${shopId}/customization/seo`, { metaTitle: 'Pixel', metaDescription: 'Keys' }));
  assertOk(
    await api.put(`/self/${shopId}/settings/design/links`, {
      socialLinks: [{ platform: 'discord', link: 'https://discord.gg/x' }],
    }),
  );

  const main = ok(await page('/main'));
  const details = main.mainDetails;
  assert.deepEqual(Object.keys(details).sort(), [
    'backgroundUrl',
    'currency',
    'design',
    'faviconUrl',
    'id',
    'logoUrl',
    'name',
    'onHold',
    'paymentMethods',
    'popup',
    'seo',
    'socialLinks',
    'storefront',
    'terms',
    'widgets',
  ]);
  assert.equal(details.id, shopId);
  assert.equal(details.name, 'Pixel Store');
  assert.equal(details.currency, 'USD');
  assert.equal(details.onHold, false);
  assert.ok(Array.isArray(details.paymentMethods));
  assert.equal(details.popup, 'Welcome!');
  assert.equal(details.terms, 'Be nice.');
  assert.equal(details.design.primaryColor, '#112233');
  assert.equal(details.design.disableSnow, true);
  assert.equal(details.design.hideProductStock, false);
  assert.deepEqual(details.storefront, {
    title: 'Welcome in',
    description: 'Keys and more',
    buttonText: 'Shop now',
    disableButton: false,
    disableTitle: true,
    disableDescription: false,
  });
  assert.equal(details.widgets.crispKey, 'crisp-1');
  assert.deepEqual(details.seo, { metaTitle: 'Pixel', metaDescription: 'Keys', imageUrl: null });
  assert.deepEqual(details.socialLinks, [{ platform: 'discord', link: 'https://discord.gg/x' }]);
  assert.equal(main.shop.title, 'Welcome in');
  assert.equal(main.shop.buttonText, 'Shop now');
  assert.equal(main.shop.disableTitle, true);

  for (const path of ['/listings', '/listings/game-key', '/feedbacks', '/faqs', '/announcements/big-news']) {
    assert.deepEqual(ok(await page(path)).mainDetails, details, path);
  }
});

test('the product page shows variants with effective gateways, custom fields and limits, and its feedbacks', async (t) => {
  const { page, products } = await storefrontShop(t);
  const res = ok(await page('/listings/game-key'));
  assert.deepEqual(Object.keys(res).sort(), ['feedbacks', 'listing', 'mainDetails', 'statistics']);
  const { listing } = res;
  assert.equal(listing.type, 'product');
  assert.equal(listing.path, 'game-key');
  assert.equal(typeof listing.id, 'number');
  assert.equal(listing.group, null);
  const p = listing.product;
  assert.deepEqual(Object.keys(p).sort(), [
    'description',
    'id',
    'images',
    'onHold',
    'path',
    'seo',
    'shortDescription',
    'soldCount',
    'thumbnailUrl',
    'title',
    'variants',
  ]);
  assert.equal(p.id, products.key.id);
  const [standard, support] = p.variants;
  assert.deepEqual(standard, {
    id: products.key.variants[0].id,
    title: 'Standard',
    description: null,
    productType: 'serials',
    priceDetails: { amount: 9.99, currency: 'USD' },
    stock: 3,
    inStock: true,
    minAmount: 1,
    maxAmount: 2,
    gateways: [
      { gateway: 'cryptocommerce', price: { amount: 9.99, currency: 'USD' } },
      { gateway: 'tipjar', price: { amount: 9.99, currency: 'USD' } },
      { gateway: 'balance', price: { amount: 9.99, currency: 'USD' } },
    ],
    customFields: [
      { id: 'nick', name: 'Nickname', type: 'text', required: true, placeholder: 'you#1234', regex: '^.+#\\d{4}$' },
    ],
    warranty: { text: '24h warranty', durationSeconds: 86400 },
  });
  // Named gateways: only the enabled ones, with their own price.
  assert.deepEqual(support.gateways, [{ gateway: 'tipjar', price: { amount: 4, currency: 'USD' } }]);
  assert.equal(support.stock, 6);
  assert.deepEqual(
    res.feedbacks.map((f: any) => f.comment),
    ['Great'],
  );
  assert.deepEqual(res.statistics, { rating: 5, totalFeedbacks: 1 });

  // A group page: the group with its listed products in full, and its products' feedbacks.
  const group = ok(await page('/listings/bundle'));
  assert.equal(group.listing.type, 'group');
  assert.equal(group.listing.product, null);
  assert.deepEqual(
    group.listing.group.products.map((x: any) => x.title),
    ['Bundle Part A', 'Bundle Part B'],
  );
  assert.equal(group.listing.group.products[0].variants[0].productType, 'service');
  assert.deepEqual(
    group.feedbacks.map((f: any) => f.comment),
    ['Good part'],
  );

  // A grouped product is reachable by its own path too (it has no listing of its own).
  const member = ok(await page('/listings/part-b'));
  assert.equal(member.listing.id, null);
  assert.equal(member.listing.product.title, 'Bundle Part B');
  assert.deepEqual(member.feedbacks, []);
  assert.deepEqual(member.statistics, { rating: null, totalFeedbacks: 0 });
});

test('unlisted products are reachable by path only; private and internal ones are 404 like unknown paths', async (t) => {
  const { page } = await storefrontShop(t);
  const unlisted = ok(await page('/listings/secret-sale'));
  assert.equal(unlisted.listing.product.title, 'Secret Sale');
  const onHold = ok(await page('/listings/coming-soon'));
  assert.equal(onHold.listing.product.onHold, true);
  for (const path of ['private-thing', 'internal-tool', 'hidden-later', 'staff-only', 'no-such-thing']) {
    const res = await page(`/listings/${path}`);
    assertError(res, 404, 'not_found');
    assert.equal(res.headers.etag, undefined);
  }
  const main = ok(await page('/main'));
  assert.ok(!paths(main.listings).includes('secret-sale'));
});

test('hideProductStock removes stock figures everywhere public', async (t) => {
  const { api, page, shopId } = await storefrontShop(t);
  const before = ok(await page('/listings/game-key'));
  assert.equal(before.listing.product.variants[0].stock, 3);
  assertOk(await api.put(`/self/${shopId}/settings/design`, { hideProductStock: true }));

  const responses = await Promise.all(
    ['/main', '/listings', '/listings/game-key', '/listings/bundle', '/listings/coming-soon'].map((p) => page(p)),
  );
  for (const res of responses) {
    ok(res);
    assert.ok(!/"stock"/.test(res.text), `no stock figure in ${res.text.slice(0, 200)}`);
    assert.ok(/"inStock"/.test(res.text), 'availability stays');
  }
  const [main, , product] = responses.map((r) => r.body.data);
  assert.equal(main.mainDetails.design.hideProductStock, true);
  assert.equal(main.listings.find((l: any) => l.path === 'coming-soon').product.inStock, false);
  assert.equal(product.listing.product.variants[0].inStock, true);
});

test('statistics and the feedbacks page match the stored data', async (t) => {
  const { app, page, shopId, invoices } = await storefrontShop(t);
  const db = app.db.kysely;
  const expected = async () => {
    const feedbacks = await db.selectFrom('feedbacks').select(['rating']).where('shop_id', '=', shopId).execute();
    const sold = await db.selectFrom('products').select('sold_count').where('shop_id', '=', shopId).execute();
    const customers = await db.selectFrom('customers').select('orders_count').where('shop_id', '=', shopId).execute();
    const sum = feedbacks.reduce((a, f) => a + f.rating, 0);
    return {
      rating: feedbacks.length ? Math.round((sum / feedbacks.length) * 100) / 100 : null,
      totalFeedbacks: feedbacks.length,
      totalProductsSold: sold.reduce((a, p) => a + p.sold_count, 0),
      customersCount: customers.filter((c) => c.orders_count > 0).length,
    };
  };
  const stats = ok(await page('/main')).shop.statistics;
  assert.deepEqual(stats, { rating: 4.33, totalFeedbacks: 3, totalProductsSold: 3, customersCount: 2 });
  assert.deepEqual(stats, await expected());

  const first = ok(await page('/feedbacks?pageSize=2'));
  assert.deepEqual(Object.keys(first).sort(), ['feedbacks', 'mainDetails', 'statistics']);
  assert.deepEqual(first.statistics, stats);
  assert.equal(first.feedbacks.totalCount, 3);
  assert.equal(first.feedbacks.totalPages, 2);
  assert.equal(first.feedbacks.pageNumber, 1);
  assert.equal(first.feedbacks.items.length, 2);
  const second = ok(await page('/feedbacks?pageSize=2&pageNumber=2'));
  assert.equal(second.feedbacks.items.length, 1);
  assert.equal(second.feedbacks.nextCursor, null);
  const byCursor = ok(await page(`/feedbacks?pageSize=2&cursor=${first.feedbacks.nextCursor}`));
  assert.deepEqual(byCursor.feedbacks.items, second.feedbacks.items);
  assert.deepEqual(
    [...first.feedbacks.items, ...second.feedbacks.items].map((f: any) => f.rating),
    [4, 4, 5],
    'newest first',
  );
  const search = ok(await page('/feedbacks?searchString=GOOD'));
  assert.deepEqual(
    search.feedbacks.items.map((f: any) => f.comment),
    ['Good part'],
  );
  assertError(await page('/feedbacks?pageSize=101'), 400, 'validation_error');
  assertError(await page('/feedbacks?cursor=nope'), 400, 'validation_error');

  // An answer shows; a feedback whose appeal was accepted is neither shown nor counted.
  const target = await db
    .selectFrom('feedbacks')
    .select(['id', 'created_at'])
    .where('invoice_id', '=', invoices[1]!)
    .executeTakeFirstOrThrow();
  await db
    .updateTable('feedbacks')
    .set({ answer: 'Thanks!', answered_at: Date.now() })
    .where('id', '=', target.id)
    .execute();
  await app.pageCache.invalidate(shopId);
  const answered = ok(await page('/feedbacks')).feedbacks.items.find((f: any) => f.id === target.id);
  assert.equal(answered.answer, 'Thanks!');
  await db
    .insertInto('feedback_appeals')
    .values({
      shop_id: shopId,
      feedback_id: target.id,
      reason: 'spam',
      description: 'x',
      status: 'accepted',
      created_at: Date.now(),
    })
    .execute();
  // No route accepts an appeal: the row is written directly, past the API writes that empty the page cache.
  await app.pageCache.invalidate(shopId);
  const after = ok(await page('/feedbacks'));
  assert.equal(after.feedbacks.totalCount, 2);
  assert.ok(!after.feedbacks.items.some((f: any) => f.id === target.id));
  assert.deepEqual(after.statistics, { ...stats, rating: 4.5, totalFeedbacks: 2 });
});

test('a product page shows its ten newest public feedbacks and counts them all, as the raw rows say', async (t) => {
  const { app, api, page, shopId, products } = await storefrontShop(t);
  const db = app.db.kysely;
  const { memberA } = products;
  for (let i = 0; i < 11; i++) {
    await ratedOrder(app, api, shopId, {
      productId: memberA.id,
      variantId: memberA.variants[0].id,
      email: `fan${i}@example.com`,
      rating: 1 + (i % 5),
      comment: `Review ${i}`,
    });
  }
  // The feedbacks about the product, from the rows: those whose invoice had a part of it.
  const about = await db
    .selectFrom('feedbacks as f')
    .innerJoin('invoice_parts as p', 'p.invoice_id', 'f.invoice_id')
    .select(['f.id', 'f.rating', 'f.created_at'])
    .distinct()
    .where('f.shop_id', '=', shopId)
    .where('p.product_id', '=', memberA.id)
    .execute();
  assert.equal(about.length, 12);
  const newestFirst = (rows: typeof about) =>
    [...rows].sort((a, b) => Number(b.created_at) - Number(a.created_at) || b.id - a.id);
  // One of them withdrawn by an accepted appeal (written directly: no route accepts appeals).
  const withdrawn = newestFirst(about)[3]!;
  await db
    .insertInto('feedback_appeals')
    .values({
      shop_id: shopId,
      feedback_id: withdrawn.id,
      reason: 'spam',
      description: 'x',
      status: 'accepted',
      created_at: Date.now(),
    })
    .execute();
  await app.pageCache.invalidate(shopId);

  const visible = newestFirst(about.filter((f) => f.id !== withdrawn.id));
  const res = ok(await page('/listings/part-a'));
  assert.deepEqual(
    res.feedbacks.map((f: any) => f.id),
    visible.slice(0, 10).map((f) => f.id),
  );
  const sum = visible.reduce((total, f) => total + f.rating, 0);
  assert.deepEqual(res.statistics, { rating: Math.round((sum * 100) / visible.length) / 100, totalFeedbacks: 11 });
  // The group page (several products) reads the same feedbacks another way: it agrees.
  const group = ok(await page('/listings/bundle'));
  assert.deepEqual(
    group.feedbacks.map((f: any) => f.id),
    res.feedbacks.map((f: any) => f.id),
  );
});

test('maintained storefront totals, the feedback index and serial stock counts equal a rebuild from the rows', async (t) => {
  const { app, shopId } = await storefrontShop(t);
  const db = app.db.kysely;
  const snapshot = async () => ({
    totals: await db.selectFrom('shop_totals').selectAll().where('shop_id', '=', shopId).execute(),
    index: await db
      .selectFrom('feedback_products')
      .selectAll()
      .where('shop_id', '=', shopId)
      .orderBy('feedback_id')
      .orderBy('product_id')
      .execute(),
    serialStock: await db
      .selectFrom('product_variants')
      .select(['id', 'available_serials'])
      .where('shop_id', '=', shopId)
      .orderBy('id')
      .execute(),
  });
  const maintained = await snapshot();
  assert.equal(maintained.totals.length, 1);
  assert.equal(Number(maintained.totals[0]!.feedbacks), 3);
  assert.equal(Number(maintained.totals[0]!.buyers), 2);
  assert.ok(maintained.index.length >= 3, 'every feedback is indexed under its products');
  assert.ok(
    maintained.serialStock.some((v) => v.available_serials > 0),
    'the shop has serial stock',
  );
  await rebuildStorefrontTotals(db, shopId);
  assert.deepEqual(await snapshot(), maintained);
});

test('FAQs by position then id; announcements by path: unlisted reachable, private 404', async (t) => {
  const { page, announcements } = await storefrontShop(t);
  const faqs = ok(await page('/faqs'));
  assert.deepEqual(Object.keys(faqs).sort(), ['faqs', 'mainDetails']);
  assert.deepEqual(
    faqs.faqs.map((f: any) => f.question),
    ['First?', 'Also first?', 'Second?'],
  );
  assert.deepEqual(Object.keys(faqs.faqs[0]).sort(), ['answer', 'id', 'position', 'question']);

  const news = ok(await page('/announcements/big-news'));
  const { announcement: ownFields, mainDetails: _details, ...atTop } = news;
  assert.deepEqual(atTop, ownFields, "the announcement's own fields are also at the top, for the original clients");
  assert.deepEqual(news.announcement, {
    id: announcements.news.id,
    path: 'big-news',
    title: 'Big news',
    shortDescription: 'Short',
    description: 'Long text',
    buttonText: 'Go',
    buttonLink: 'https://example.com',
    createdAt: announcements.news.createdAt,
  });
  assert.equal(ok(await page('/announcements/quiet-news')).announcement.title, 'Quiet news');
  assertError(await page('/announcements/private-news'), 404, 'not_found');
  assertError(await page('/announcements/nope'), 404, 'not_found');
});

test('a storefront password locks every page: no key or a wrong one is 403 shop_locked', async (t) => {
  const { api, page, shopId } = await storefrontShop(t);
  const all = ['/main', '/listings', '/listings/game-key', '/feedbacks', '/faqs', '/announcements/big-news'];
  const open = await page('/main');
  assert.equal(open.headers['cache-control'], 'public, max-age=0, must-revalidate');

  assertOk(await api.put(`/self/${shopId}/settings/password`, { password: 'open sesame' }));
  for (const path of all) {
    assertError(await page(path), 403, 'shop_locked');
    assertError(await page(`${path}?key=wrong`), 403, 'shop_locked');
    const res = await page(`${path}?key=open%20sesame`);
    ok(res);
    assert.equal(res.headers['cache-control'], 'private, max-age=0, must-revalidate', path);
  }
  // With the feedbacks paging parameters too.
  ok(await page('/feedbacks?pageSize=1&key=open%20sesame'));

  // A new password retires the old one at once, even though it was remembered.
  assertOk(await api.put(`/self/${shopId}/settings/password`, { password: 'new secret' }));
  assertError(await page('/main?key=open%20sesame'), 403, 'shop_locked');
  ok(await page('/main?key=new%20secret'));
  assertOk(await api.put(`/self/${shopId}/settings/password`, { password: null }));
  ok(await page('/main'));
});

test('successful password checks are remembered per shop, hash and key; failures are not', async () => {
  const cache = new UnlockedKeys(2);
  const shop = { id: 1, password_hash: 'scrypt$a' };
  const entry = UnlockedKeys.entry(shop, 'pw');
  assert.equal(cache.has(entry), false);
  cache.add(entry);
  assert.equal(cache.has(entry), true);
  assert.notEqual(UnlockedKeys.entry({ ...shop, password_hash: 'scrypt$b' }, 'pw'), entry, 'a new hash is a new entry');
  assert.notEqual(UnlockedKeys.entry({ ...shop, id: 2 }, 'pw'), entry);
  assert.ok(!entry.includes('pw\n') && !entry.endsWith('pw'), 'the key itself is not kept');
  cache.add(UnlockedKeys.entry(shop, 'b'));
  assert.equal(cache.has(entry), true, 'touching keeps it');
  cache.add(UnlockedKeys.entry(shop, 'c'));
  assert.equal(cache.size, 2);
  assert.equal(cache.has(entry), true);
  assert.equal(cache.has(UnlockedKeys.entry(shop, 'b')), false, 'least recently used evicted');
});

test('answers carry a strong ETag and answer 304 to a matching If-None-Match', async (t) => {
  const { api, page, shopId } = await storefrontShop(t);
  for (const path of ['/main', '/listings', '/listings/game-key', '/feedbacks', '/faqs', '/announcements/big-news']) {
    const first = await page(path);
    ok(first);
    const etag = first.headers.etag as string;
    assert.match(etag, /^"[A-Za-z0-9_-]{43}"$/, path);
    assert.equal(first.headers['cache-control'], 'public, max-age=0, must-revalidate');
    const again = await page(path);
    assert.equal(again.headers.etag, etag, 'same body, same tag');
    const revalidated = await page(path, { 'if-none-match': etag });
    assert.equal(revalidated.status, 304, path);
    assert.equal(revalidated.text, '');
    assert.equal(revalidated.headers.etag, etag);
    assert.equal(revalidated.headers['content-type'], undefined);
    assert.equal((await page(path, { 'if-none-match': `"other", W/${etag}` })).status, 304, 'weak comparison, lists');
    assert.equal((await page(path, { 'if-none-match': '"other"' })).status, 200);
  }
  const faqs = await page('/faqs');
  assertOk(await api.post(`/self/${shopId}/faqs`, { question: 'New?', answer: 'Yes' }));
  const changed = await page('/faqs', { 'if-none-match': faqs.headers.etag as string });
  assert.equal(changed.status, 200);
  assert.notEqual(changed.headers.etag, faqs.headers.etag);
  assert.equal(matchesIfNoneMatch('*', '"x"'), true);
  assert.equal(matchesIfNoneMatch(undefined, '"x"'), false);
});

test('unknown shops are a 404, malformed ids a 400', async (t) => {
  const { app } = await storefrontShop(t);
  const get = (url: string) =>
    app.inject({ method: 'GET', url }).then((r) => ({ status: r.statusCode, body: r.json() }));
  for (const path of ['main', 'listings', 'listings/game-key', 'feedbacks', 'faqs', 'announcements/big-news']) {
    assertError(await get(`/v2/public/shops/999999/${path}`), 404, 'not_found');
    // A subdomain takes the place of the id (test/modules/shop-addresses.test.ts): an unknown one is a 404 too.
    assertError(await get(`/v2/public/shops/abc/${path}`), 404, 'not_found');
    for (const bad of ['ab', 'A-shop', '0', '2147483648', '1.5', '-1'])
      assertError(await get(`/v2/public/shops/${bad}/${path}`), 400, 'validation_error');
  }
});

test('served pages are recorded as visits; revalidations and errors are not', async (t) => {
  const { app, page, shopId } = await storefrontShop(t);
  const db = app.db.kysely;
  const visits = () =>
    db.selectFrom('visits').select(['page', 'visitor']).where('shop_id', '=', shopId).orderBy('id').execute();
  const first = await page('/main', { 'user-agent': 'agent-1' });
  await page('/listings/game-key', { 'user-agent': 'agent-1' });
  await page('/main', { 'user-agent': 'agent-1', 'if-none-match': first.headers.etag as string });
  await page('/listings/nope');
  // A last served page: visits are counted after the answer is sent, request by request, so once
  // this one's is stored the 304 and the 404 before it have had their turn too.
  await page('/faqs', { 'user-agent': 'agent-2' });
  await waitUntil(async () => {
    await app.visitRecorder.flush();
    return (await visits()).some((r) => r.page === '/faqs');
  }, 'the visit of the last page');
  const rows = await visits();
  assert.deepEqual(
    rows.map((r) => r.page),
    ['/main', '/listings/game-key', '/faqs'],
  );
  assert.equal(rows[0]!.visitor, rows[1]!.visitor, 'same IP and agent, same visitor');
  assert.ok(!rows[0]!.visitor.includes('127.0.0.1'));
});

test('no public page leaks serials, service texts, URLs, e-mails, IPs, credentials, invoice ids or hidden items', async (t) => {
  const { api, shopId, page, invoices, products } = await storefrontShop(t);
  // Control: the markers are really stored, and the owner sees them.
  const owned = JSON.stringify(assertOk(await api.get(`/self/${shopId}/v2/products/${products.key.id}`)));
  assert.ok(
    owned.includes(MARKERS.serial) && owned.includes(MARKERS.serviceText) && owned.includes(MARKERS.customerNote),
  );
  assert.ok(JSON.stringify(assertOk(await api.get(`/self/${shopId}/invoices/${invoices[0]}`))).includes(MARKERS.email));
  const bodies = await Promise.all(
    [
      '/main',
      '/listings',
      '/listings/game-key',
      '/listings/account',
      '/listings/bundle',
      '/listings/secret-sale',
      '/feedbacks',
      '/feedbacks?pageSize=100',
      '/faqs',
      '/announcements/big-news',
      '/announcements/quiet-news',
      '/listings/private-thing',
      '/listings/internal-tool',
      '/announcements/private-news',
    ].map(async (path) => ({ path, text: (await page(path)).text })),
  );
  const forbidden = [...Object.values(MARKERS), 'second@example.com', 'pending@example.com', '127.0.0.1', ...invoices];
  for (const { path, text } of bodies) {
    for (const marker of forbidden)
      assert.ok(!text.toLowerCase().includes(marker.toLowerCase()), `${path} leaks ${marker}: ${text.slice(0, 300)}`);
    assert.ok(
      !/"(private|isInternal|unlisted|serials|asSerials|asService|asDynamic|customerNote|customerEmail|email|ip|invoiceId|customerId)":/.test(
        text,
      ),
      `${path} carries an owner-only field`,
    );
  }
});
