import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../app.js';
import type { Config } from '../../config.js';
import type { Clock } from '../../domain/context.js';
import { createApiKey } from '../accounts/index.js';
import { openTrustedSession } from '../customer-sessions/index.js';
import { backdateCustomers } from '../customers/index.js';
import { backdateFeedback } from '../feedbacks/index.js';
import { backdateLicenses } from '../licenses/index.js';
import { backdateOrder, customerOrderDates, deriveRepeatPurchases } from '../orders/index.js';
import { backdateDeliveries } from '../products/index.js';
import { rebuildRollups } from '../rollups/index.js';
import { rebuildStorefrontTotals } from '../storefront/index.js';
import * as data from './demo-data.js';
import { type DemoFile, demoEbook, demoProgram } from './demo-files.js';
import { DEMO_COVERS, demoCover } from './demo-images.js';

/**
 * `shopd seed --demo`: a demo shop filled through the service's own HTTP API (app.inject with
 * the demo account's key), so the seed exercises the real routes and stays valid as internals
 * change. Only the times are moved afterwards, since checkout can place orders only "now": by the
 * operations the modules have for imported history (spreadOverTime). Every run makes a new shop;
 * the account is reused.
 */
export const DEMO_EMAIL = 'demo@localhost';
const DEMO_DAYS = 60;
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const INVOICE_LIFETIME = 60 * MIN;

/**
 * Demo customers are not real people: their addresses are under `.invalid`, which never receives
 * mail, so the mail layer records their delivery e-mails as dropped the moment they are written —
 * no mail worker (this process's or a running server's) ever sends them.
 */
const customerEmail = (name: string) => `${name}@demo.invalid`;

export interface SeedLog {
  info(line: string): void;
  warn(line: string): void;
}

export interface DemoSummary {
  email: string;
  key: string;
  shopId: number;
  shopName: string;
  subdomain: string;
  products: number;
  orders: number;
  completedOrders: number;
  customers: number;
  feedbacks: number;
  revenue: number;
  currency: string;
}

interface Reply {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: the seed drives the API as a client reading JSON; each step takes what it needs
  body: { data: any; message?: string; errors?: string[] } | undefined;
}

type Call = (
  method: 'GET' | 'POST' | 'PUT',
  url: string,
  body?: unknown,
  from?: { ip: string; userAgent: string },
  /** A customer session token, for the public calls that need a signed-in buyer (paying from the balance). */
  session?: string,
) => Promise<Reply>;

function apiClient(app: FastifyInstance, key: string): Call {
  return async (method, url, body, from, session) => {
    const res = await app.inject({
      method,
      url,
      headers: {
        ...(url.startsWith('/self') ? { authorization: `Bearer ${key}` } : {}),
        ...(session ? { authorization: `Bearer ${session}` } : {}),
        ...(from ? { 'user-agent': from.userAgent } : {}),
      },
      ...(from ? { remoteAddress: from.ip } : {}),
      ...(body === undefined ? {} : { payload: body as object }),
    });
    return { status: res.statusCode, body: res.body ? (res.json() as Reply['body']) : undefined };
  };
}

/** Uploads a file as the admin does (`multipart/form-data`, one part named `file`). */
async function uploadFile(app: FastifyInstance, key: string, url: string, file: DemoFile): Promise<Reply> {
  const boundary = `demo${randomBytes(12).toString('hex')}`;
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${file.name}"\r\n` +
        `Content-Type: ${file.contentType}\r\n\r\n`,
    ),
    file.bytes,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const res = await app.inject({
    method: 'POST',
    url,
    headers: { authorization: `Bearer ${key}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
    payload,
  });
  // Created is success too: the seed's `must` reads 200.
  return { status: res.statusCode === 201 ? 200 : res.statusCode, body: res.json() as Reply['body'] };
}

const describe = (reply: Reply) =>
  [reply.body?.message ?? '', ...(reply.body?.errors ?? [])].filter(Boolean).join('; ');

/** The answer's data, or an error naming the step: the seed cannot go on without it. */
// biome-ignore lint/suspicious/noExplicitAny: see Reply
function must(reply: Reply, step: string): any {
  if (reply.status !== 200) throw new Error(`demo seed: ${step} failed (${reply.status}): ${describe(reply)}`);
  return reply.body!.data;
}

interface PlacedOrder {
  id: string;
  email: string;
  createdAt: number;
  completedAt: number | null;
  product: data.DemoProductKey;
}

export async function seedDemo(config: Config, log: SeedLog): Promise<DemoSummary> {
  // The seed talks to its own in-process app: no rate limits, and no mail sent from here.
  const app = await buildApp({
    config: {
      ...config,
      rateLimit: { ...config.rateLimit, ownerMax: 0, publicMax: 0 },
      mail: { ...config.mail, workerEnabled: false },
    },
    logger: false,
  });
  try {
    return await fill(app, log);
  } finally {
    await app.close();
  }
}

async function fill(app: FastifyInstance, log: SeedLog): Promise<DemoSummary> {
  const random = data.seededRandom(20_251_121);
  const { key } = await createApiKey(app.ctx, { email: DEMO_EMAIL });
  const call = apiClient(app, key);
  /** Calls of routes a demo can do without: a failure is a warning, not the end. */
  const optional = async (reply: Promise<Reply>, step: string) => {
    const r = await reply;
    if (r.status === 200) return r.body!.data;
    log.warn(`demo seed: ${step} skipped (${r.status}): ${describe(r)}`);
    return undefined;
  };

  const shop = must(await call('POST', '/self/shops', { name: 'Demo Shop' }), 'creating the shop');
  const self = `/self/${shop.id}`;
  log.info(`Demo shop ${shop.id} (${shop.subdomain}) for ${DEMO_EMAIL}`);
  must(
    await call('PUT', `${self}/settings/payments/tipjar`, { enabled: true, handle: 'demo-shop' }),
    'enabling tipjar',
  );
  must(await call('PUT', `${self}/settings/payments/balance`, { enabled: true }), 'enabling balance');
  await optional(
    call('PUT', `${self}/settings/popup`, { message: 'Spring sale: WELCOME10 takes 10 % off.' }),
    'the popup',
  );

  // Catalog: every product type, a group, categories.
  const files = {
    ebook: must(await uploadFile(app, key, `${self}/files`, demoEbook()), 'uploading the e-book').id as string,
    program: must(await uploadFile(app, key, `${self}/files`, demoProgram()), 'uploading the program').id as string,
  };
  const bodies = data.demoProducts(random, files);
  const products = {} as Record<data.DemoProductKey, { id: number; variants: { id: number }[] }>;
  for (const [name, body] of Object.entries(bodies) as [data.DemoProductKey, unknown][]) {
    products[name] = must(await call('POST', `${self}/v2/products`, body), `creating product ${name}`);
    // A cover, so a first start looks like a shop: the card, the product page, the link preview.
    const { hue, glyph } = DEMO_COVERS[name];
    const cover = await demoCover(name, hue, glyph);
    await optional(
      uploadFile(app, key, `${self}/v2/products/${products[name].id}/thumbnail`, cover),
      `the cover of ${name}`,
    );
  }
  // A gallery on one product: two more views after its cover.
  for (const [i, [hue, glyph]] of (
    [
      [280, 'key'],
      [300, 'planet'],
    ] as const
  ).entries()) {
    const image = await demoCover(`starfall-${i + 2}`, hue, glyph);
    await optional(
      uploadFile(app, key, `${self}/v2/products/${products.starfall.id}/images`, image),
      'the gallery of starfall',
    );
  }
  const group = must(
    await call('POST', `${self}/groups`, {
      title: 'Steam Keys',
      productIds: [products.starfall.id, products.pixel.id],
    }),
    'creating the group',
  );
  await optional(
    uploadFile(app, key, `${self}/groups/${group.id}/thumbnail`, await demoCover('steam-keys', 215, 'key')),
    'the cover of the group',
  );
  const listings = must(await call('GET', `${self}/listings?pageSize=100`), 'listing the listings').items as {
    id: number;
    group: { id: number } | null;
    product: { id: number } | null;
  }[];
  const gameListings = listings.filter((l) => l.group?.id === group.id).map((l) => l.id);
  const otherListings = listings.filter((l) => l.group === null).map((l) => l.id);
  must(await call('POST', `${self}/categories`, { name: 'Games', listingIds: gameListings }), 'creating a category');
  must(
    await call('POST', `${self}/categories`, { name: 'Software & Services', listingIds: otherListings }),
    'creating a category',
  );
  must(
    await call('POST', `${self}/coupons`, { name: 'WELCOME10', discount: 10, isFixed: false, note: 'Spring sale' }),
    'creating a coupon',
  );
  must(
    await call('POST', `${self}/coupons`, {
      name: 'VPN5',
      discount: 5,
      isFixed: true,
      restrictToProducts: [products.vpn.id],
      maxUses: 100,
    }),
    'creating a coupon',
  );

  // Content: being written alongside this seed, so a missing route only warns.
  for (const faq of data.faqs) await optional(call('POST', `${self}/faqs`, faq), 'an FAQ');
  for (const announcement of data.announcements)
    await optional(call('POST', `${self}/announcements`, announcement), 'an announcement');

  // Sixty days of orders, tickets and mails placed in a few seconds would pass the limits a shop
  // has against one client (src/modules/protection): they are lifted while the history is written
  // and the shop's own settings put back at the end, so the demo shows the defaults.
  const protection = must(await call('GET', `${self}/settings`), 'reading the settings').protection as object;
  must(
    await call('PUT', `${self}/settings/protection`, {
      unitsPerClient: 0,
      pendingPerClient: 0,
      hostedCheckoutsPerHour: 0,
      mailPerRecipientHour: 0,
      mailPerClientHour: 0,
      mailPerShopDay: 0,
      challenge: 'off',
    }),
    'lifting the client limits while seeding',
  );
  const { clock } = app.ctx;
  const orders = await placeOrders(call, clock, shop.id, products, random, log);
  // The demo customer signs in without the mailed code: the seed already knows who they are.
  const signIn = (email: string) => openTrustedSession(app.ctx, shop.id, email);
  await topUpAndPayWithBalance(call, clock, shop.id, products, orders, signIn);
  await replaceOne(call, clock, shop.id, orders);
  const feedbacks = await leaveFeedbacks(call, orders, random, log);
  await openTickets(call, shop.id, orders, log);

  await spreadOverTime(app, shop.id, orders, feedbacks, random);
  // Storefront views, for the real-time analytics of the next two hours.
  for (let i = 0; i < 30; i++) {
    const page = data.pick(random, ['main', 'main', 'listings', 'faqs', 'feedbacks'] as const);
    await call('GET', `/v2/public/shops/${shop.id}/${page}`, undefined, {
      ip: `198.51.100.${1 + Math.floor(random() * 12)}`,
      userAgent: data.pick(random, data.userAgents),
    });
  }

  must(await call('PUT', `${self}/settings/protection`, protection), 'restoring the protection');

  const from = new Date(clock.now() - (DEMO_DAYS - 1) * DAY).toISOString().slice(0, 10);
  const figures = must(await call('GET', `${self}/dashboard/general?fromDate=${from}`), 'reading the dashboard');
  const customers = must(await call('GET', `${self}/customers?pageSize=1`), 'counting customers').totalCount as number;
  return {
    email: DEMO_EMAIL,
    key,
    shopId: shop.id,
    shopName: shop.name,
    subdomain: shop.subdomain,
    products: Object.keys(products).length,
    orders: figures.ordersCount,
    completedOrders: figures.completedOrders,
    customers,
    feedbacks: feedbacks.size,
    revenue: figures.revenue,
    currency: figures.currency,
  };
}

function dayStart(daysAgo: number, now: number): number {
  return Math.floor(now / DAY) * DAY - daysAgo * DAY;
}

/** About 140 orders over 60 days, busier lately and in the evenings; most paid, dynamic ones never. */
async function placeOrders(
  call: Call,
  clock: Clock,
  shopId: number,
  products: Record<data.DemoProductKey, { id: number; variants: { id: number }[] }>,
  random: () => number,
  log: SeedLog,
) {
  const now = clock.now();
  const orders: PlacedOrder[] = [];
  for (let daysAgo = DEMO_DAYS - 1; daysAgo >= 0; daysAgo--) {
    const count = 1 + Math.floor(random() * 3) + (daysAgo < 20 ? 1 : 0);
    for (let n = 0; n < count; n++) {
      // Low indices come back often: returning customers.
      const buyer = Math.floor(random() ** 2 * data.customerNames.length);
      const email = customerEmail(data.customerNames[buyer]!);
      const [product, variantIndex] = data.pickWeighted(random, data.orderMix);
      const quantity =
        product === 'avatar'
          ? 1
          : data.pickWeighted(random, [
              [1, 80],
              [2, 15],
              [3, 5],
            ] as const);
      const hour = data.pickWeighted(
        random,
        Array.from({ length: 24 }, (_, h) => [h, h >= 17 && h <= 23 ? 4 : h >= 9 ? 2 : 1] as const),
      );
      let createdAt = dayStart(daysAgo, now) + hour * HOUR + Math.floor(random() * 60) * MIN;
      if (createdAt > now - 5 * MIN) createdAt = now - (5 + Math.floor(random() * 120)) * MIN;
      const invoice = await call(
        'POST',
        `/v2/public/shops/${shopId}/invoices`,
        {
          customerEmail: email,
          gateway: 'tipjar',
          parts: [
            {
              productId: products[product].id,
              productVariantId: products[product].variants[variantIndex]!.id,
              quantity,
            },
          ],
          ...(random() < 0.12 ? { coupon: 'WELCOME10' } : {}),
        },
        { ip: `203.0.113.${10 + buyer}`, userAgent: data.userAgents[buyer % data.userAgents.length]! },
      );
      if (invoice.status !== 200) {
        log.warn(`demo seed: an order of ${product} was refused (${invoice.status}): ${describe(invoice)}`);
        continue;
      }
      const id = invoice.body!.data.id as string;
      // Dynamic delivery would call the example URL and fail: those orders stay unpaid.
      const paid = product !== 'avatar' && random() < 0.86;
      let completedAt: number | null = null;
      if (paid) {
        must(await call('POST', `/self/${shopId}/invoices/${id}/process`), 'processing an order');
        completedAt = Math.min(createdAt + (2 + Math.floor(random() * 88)) * MIN, now - MIN);
      }
      orders.push({ id, email, createdAt, completedAt, product });
    }
  }
  return orders;
}

/** The most loyal customer gets store credit and spends some of it. */
async function topUpAndPayWithBalance(
  call: Call,
  clock: Clock,
  shopId: number,
  products: Record<data.DemoProductKey, { id: number; variants: { id: number }[] }>,
  orders: PlacedOrder[],
  signIn: (email: string) => Promise<string>,
) {
  const email = customerEmail(data.customerNames[0]!);
  const customer = must(
    await call('GET', `/self/${shopId}/customers?searchString=${encodeURIComponent(email)}`),
    'finding a customer',
  ).items[0];
  if (!customer) return;
  must(
    await call('POST', `/self/${shopId}/customers/${customer.id}/balance/add`, { amount: 50, note: 'Goodwill credit' }),
    'a balance top-up',
  );
  const invoice = must(
    await call(
      'POST',
      `/v2/public/shops/${shopId}/invoices`,
      {
        customerEmail: email,
        gateway: 'balance',
        parts: [{ productId: products.pixel.id, productVariantId: products.pixel.variants[0]!.id, quantity: 2 }],
      },
      undefined,
      await signIn(email),
    ),
    'an order paid from the balance',
  );
  const createdAt = clock.now() - 3 * DAY - 5 * HOUR;
  orders.push({ id: invoice.id, email, createdAt, completedAt: createdAt, product: 'pixel' });
}

/** One key "did not work": the owner sends a fresh one. */
async function replaceOne(call: Call, clock: Clock, shopId: number, orders: PlacedOrder[]) {
  const since = clock.now() - 20 * DAY;
  const order = orders.find((o) => o.product === 'starfall' && o.completedAt !== null && o.completedAt > since);
  if (!order) return;
  const invoice = must(await call('GET', `/self/${shopId}/invoices/${order.id}`), 'reading an order');
  must(
    await call('POST', `/self/${shopId}/invoices/${order.id}/replacement`, {
      partInvoiceId: invoice.parts[0].id,
      quantity: 1,
    }),
    'a replacement',
  );
}

/** Ratings on about 45 % of the paid orders; answers the invoice ids that got one. */
async function leaveFeedbacks(
  call: Call,
  orders: PlacedOrder[],
  random: () => number,
  log: SeedLog,
): Promise<Set<string>> {
  const rated = new Set<string>();
  for (const order of orders) {
    if (order.completedAt === null || random() >= 0.45) continue;
    const rating = data.pickWeighted(random, data.ratingMix);
    const reply = await call('POST', `/v2/public/invoices/${order.id}/feedback`, {
      rating,
      comment: data.pick(random, data.feedbackComments[rating]!),
    });
    if (reply.status !== 200) {
      log.warn(`demo seed: feedbacks skipped (${reply.status}): ${describe(reply)}`);
      break;
    }
    rated.add(order.id);
  }
  return rated;
}

async function openTickets(call: Call, shopId: number, orders: PlacedOrder[], log: SeedLog) {
  const paid = orders.filter((o) => o.completedAt !== null).slice(-data.tickets.length);
  for (const [i, ticket] of data.tickets.entries()) {
    const order = paid[i];
    const body = {
      ...ticket,
      email: order?.email ?? customerEmail('visitor'),
      ...(order ? { invoiceId: order.id } : {}),
    };
    const reply = await call('POST', `/v2/public/shops/${shopId}/tickets`, body);
    if (reply.status !== 200) {
      log.warn(`demo seed: tickets skipped (${reply.status}): ${describe(reply)}`);
      return;
    }
    if (i === 0) {
      const answer = await call('POST', `/self/${shopId}/tickets/${reply.body!.data.id}/message`, {
        content: 'Sorry about that! A replacement key is on its way.',
      });
      if (answer.status !== 200)
        log.warn(`demo seed: answering a ticket skipped (${answer.status}): ${describe(answer)}`);
    }
  }
}

/**
 * Moves every order to its planned time, through the operations each module has for imported
 * history (orders/history.service.ts); then what is derived from those times is derived again:
 * the customers' dates, the repeat-purchase flags, the storefront's feedback index and totals,
 * the dashboards' rollups. Unpaid orders of past days become overdue, so the service expires
 * them (returning their stock) at the next read; today's stay pending.
 */
async function spreadOverTime(
  app: FastifyInstance,
  shopId: number,
  orders: PlacedOrder[],
  feedbacks: Set<string>,
  random: () => number,
) {
  const now = app.ctx.clock.now();
  // The moves and what is derived from them in one transaction: a seed that fails half-way leaves
  // no orders moved without their deliveries, customers or flags.
  await app.db.kysely.transaction().execute(async (db) => {
    for (const order of orders) {
      const overdue = order.completedAt === null && order.createdAt + INVOICE_LIFETIME < now;
      const later = (maxHours: number) =>
        Math.min(order.completedAt! + (1 + Math.floor(random() * maxHours)) * HOUR, now - MIN);
      await backdateOrder(db, shopId, order.id, {
        createdAt: order.createdAt,
        completedAt: order.completedAt,
        expiresAt: overdue ? order.createdAt + INVOICE_LIFETIME : undefined,
        replacedAt: order.completedAt === null ? undefined : later(6),
      });
      if (order.completedAt === null) continue;
      await backdateDeliveries(db, shopId, order.id, order.completedAt);
      // The program's licences last a year from the sale.
      if (order.product === 'notes') await backdateLicenses(db, shopId, order.id, order.completedAt, true);
      if (feedbacks.has(order.id)) await backdateFeedback(db, shopId, order.id, later(48));
    }
    await backdateCustomers(db, shopId, await customerOrderDates(db, shopId));
    // The flags were decided in the order the seed completed the invoices, which the move changed.
    await deriveRepeatPurchases(db, shopId, 'all');
  });
  const db = app.db.kysely;
  // The storefront's totals and feedback index, and the dashboards' rollups, were kept for the real times.
  await rebuildStorefrontTotals(db, shopId);
  await rebuildRollups(db, shopId);
}
