import type { FastifyInstance } from 'fastify';
import { BENCH_PROTECTION } from './config.js';
import { catalogItems, pick, type Random, serialValue } from './seed-data.js';

/**
 * The benchmark shop's catalog, made through the service's own HTTP API (app.inject with the
 * owner key, like the demo seed), so every product, group and category is valid by
 * construction. Only the history (customers, invoices, serials sold) is bulk-inserted.
 */
export const GATEWAYS = ['tipjar', 'walletemail', 'mobilecash', 'wallet-ff', 'cryptocommerce'] as const;
export const UTC_OFFSET_MINUTES = 120;
const GROUPS = 6;
const PRODUCTS_PER_GROUP = 2;
/** 94 products listed alone plus 6 groups: 100 listings. */
const LISTED_ALONE = 94;
export const CHECKOUT_API_SERIALS = 1000;

export interface SeedVariant {
  id: number;
  title: string;
  /** Minor units (USD cents). */
  price: number;
  type: 'serials' | 'service';
  serviceText: string | null;
  /** Prefix of the serial values this variant's stock and history use. */
  serialPrefix: string;
  maxAmount: number | null;
}

export interface SeedProduct {
  id: number;
  title: string;
  path: string;
  kind: 'game' | 'software' | 'service';
  variants: SeedVariant[];
  /** How often buyers pick it, relative to the others. */
  popularity: number;
}

export interface Catalog {
  shopId: number;
  products: SeedProduct[];
  listings: number;
  groupPath: string;
  couponId: number;
  couponCode: string;
  editable: { productId: number; body: Record<string, unknown> };
  checkout: { productId: number; variantId: number; path: string; serialPrefix: string };
}

interface Reply {
  status: number;
  body: { data: any; message?: string; errors?: string[] } | undefined;
}

export type Call = (method: 'GET' | 'POST' | 'PUT', url: string, body?: unknown) => Promise<Reply>;

export function apiClient(app: FastifyInstance, key: string): Call {
  return async (method, url, body) => {
    const res = await app.inject({
      method,
      url,
      headers: url.startsWith('/self') ? { authorization: `Bearer ${key}` } : {},
      ...(body === undefined ? {} : { payload: body as object }),
    });
    return { status: res.statusCode, body: res.body ? (res.json() as Reply['body']) : undefined };
  };
}

/** The answer's data, or an error naming the step: the seed cannot go on without it. */
export function must(reply: Reply, step: string): any {
  if (reply.status !== 200) {
    const detail = [reply.body?.message ?? '', ...(reply.body?.errors ?? [])].filter(Boolean).join('; ');
    throw new Error(`bench seed: ${step} failed (${reply.status}): ${detail}`);
  }
  return reply.body!.data;
}

const priceOf = (random: Random, kind: SeedProduct['kind']) => {
  const base =
    kind === 'game'
      ? pick(random, [4.99, 9.99, 14.99, 19.99, 29.99, 39.99, 59.99])
      : kind === 'software'
        ? pick(random, [9.99, 19.99, 29.99, 49.99, 89.99])
        : pick(random, [15, 25, 40, 75]);
  return Math.round(base * 100);
};

function serialsText(prefix: string, count: number, random: Random): string {
  return Array.from({ length: count }, (_, n) => serialValue(prefix, n, random)).join('\n');
}

export async function createCatalog(call: Call, random: Random): Promise<Catalog> {
  const shop = must(await call('POST', '/self/shops', { name: 'Bench Shop' }), 'creating the shop');
  const self = `/self/${shop.id}`;
  must(await call('PUT', `${self}/settings/currency`, { currency: 'USD' }), 'setting the currency');
  must(await call('PUT', `${self}/settings/protection`, BENCH_PROTECTION), 'setting the protection');
  must(
    await call('PUT', `${self}/settings/timezone`, { utcTimezoneOffset: UTC_OFFSET_MINUTES }),
    'setting the timezone',
  );
  const gatewayBodies: Record<(typeof GATEWAYS)[number], object> = {
    tipjar: { handle: 'bench-shop' },
    walletemail: { email: 'pay@bench.example.org' },
    mobilecash: { cashtag: '$benchshop' },
    'wallet-ff': { email: 'ff@bench.example.org' },
    cryptocommerce: { apiKey: 'cc_live_bench_0123456789', webhookSecret: 'whsec_bench_0123456789' },
  };
  for (const gateway of GATEWAYS)
    must(
      await call('PUT', `${self}/settings/payments/${gateway}`, { enabled: true, ...gatewayBodies[gateway] }),
      `enabling ${gateway}`,
    );

  const items = catalogItems(random, LISTED_ALONE + GROUPS * PRODUCTS_PER_GROUP);
  const products: SeedProduct[] = [];
  let editable: Catalog['editable'] | undefined;
  for (const [index, item] of items.entries()) {
    const variantCount = item.kind === 'service' ? 1 : random() < 0.3 ? 2 : 1;
    const prefixes: string[] = [];
    const variants = Array.from({ length: variantCount }, (_, v) => {
      const price = priceOf(random, item.kind) * (v + 1);
      const title = variantCount === 1 ? 'Standard' : v === 0 ? 'Standard Edition' : 'Deluxe Edition';
      if (item.kind === 'service') {
        return {
          title,
          priceDetails: { amount: price / 100 },
          productType: 'service',
          asService: {
            text: `Thanks for booking ${item.title}! Reply with two time slots that suit you.`,
            stock: null,
          },
        };
      }
      const prefix = `P${index}V${v}`;
      prefixes.push(prefix);
      return {
        title,
        priceDetails: { amount: price / 100 },
        productType: 'serials',
        asSerials: {
          serials: serialsText(prefix, 20 + Math.floor(random() * 100), random),
          ...(v === 1 ? { maxAmount: 3 } : {}),
        },
        ...(item.kind === 'software'
          ? { warranty: { text: 'Replaced if it does not activate.', durationSeconds: 30 * 86_400 } }
          : {}),
      };
    });
    // Most storefront products carry no short description: the main page stays near 30 KB.
    const body = {
      title: item.title,
      description: item.description,
      ...(random() < 0.4 ? { shortDescription: item.shortDescription } : {}),
      variants,
    };
    const created = must(await call('POST', `${self}/v2/products`, body), `creating product ${item.title}`);
    const seedVariants: SeedVariant[] = created.variants.map((v: any, i: number) => ({
      id: v.id,
      title: v.title,
      price: Math.round(v.priceDetails.amount * 100),
      type: v.productType,
      serviceText: v.asService?.text ?? null,
      serialPrefix: prefixes[i] ?? `P${index}V${i}`,
      maxAmount: v.asSerials?.maxAmount ?? v.asService?.maxAmount ?? null,
    }));
    // A few best sellers, a long tail.
    products.push({
      id: created.id,
      title: created.title,
      path: created.path,
      kind: item.kind,
      variants: seedVariants,
      popularity: index % 9 === 0 ? 8 : 1 + random() * 2,
    });
    if (!editable && item.kind === 'service') {
      editable = {
        productId: created.id,
        body: { ...body, variants: body.variants.map((v, i) => ({ ...v, id: seedVariants[i]!.id })) },
      };
    }
  }
  if (!editable) throw new Error('bench seed: the catalog has no service product to edit');

  const games = products.filter((p) => p.kind === 'game');
  let groupPath = '';
  for (let g = 0; g < GROUPS; g++) {
    const members = games.slice(g * PRODUCTS_PER_GROUP, (g + 1) * PRODUCTS_PER_GROUP).map((p) => p.id);
    const group = must(
      await call('POST', `${self}/groups`, {
        title: `Bundle Collection ${g + 1}`,
        description: 'Pick your edition.',
        productIds: members,
      }),
      'creating a group',
    );
    groupPath ||= group.path;
  }

  const listings = must(await call('GET', `${self}/listings?pageSize=100`), 'listing the listings');
  const all = listings.items as { id: number; type: string; product: { id: number } | null }[];
  if (listings.totalCount !== LISTED_ALONE + GROUPS)
    throw new Error(`bench seed: expected ${LISTED_ALONE + GROUPS} listings, got ${listings.totalCount}`);
  const kindOf = new Map(products.map((p) => [p.id, p.kind]));
  const byKind = (kind: string) => all.filter((l) => l.product && kindOf.get(l.product.id) === kind).map((l) => l.id);
  must(
    await call('POST', `${self}/categories`, {
      name: 'Games',
      listingIds: [...all.filter((l) => l.type === 'group').map((l) => l.id), ...byKind('game')],
    }),
    'a category',
  );
  must(await call('POST', `${self}/categories`, { name: 'Software', listingIds: byKind('software') }), 'a category');
  must(await call('POST', `${self}/categories`, { name: 'Services', listingIds: byKind('service') }), 'a category');
  must(
    await call('POST', `${self}/categories`, { name: 'Best sellers', listingIds: all.slice(0, 12).map((l) => l.id) }),
    'a category',
  );

  const coupon = must(
    await call('POST', `${self}/coupons`, { name: 'WELCOME10', discount: 10, isFixed: false, note: 'Newsletter' }),
    'creating a coupon',
  );
  for (const faq of [
    {
      question: 'How fast is delivery?',
      answer: 'Keys are e-mailed as soon as the payment is confirmed, usually within minutes.',
    },
    { question: 'Which payment methods do you accept?', answer: 'Tip jar, wallet e-mail, mobile cash and crypto.' },
    {
      question: 'My key does not work. What now?',
      answer: 'Open a support ticket with your invoice id and we send a replacement.',
    },
  ]) {
    must(await call('POST', `${self}/faqs`, faq), 'an FAQ');
  }
  must(
    await call('POST', `${self}/announcements`, {
      title: 'Summer sale',
      shortDescription: 'WELCOME10 takes 10 % off.',
      description: 'For a limited time, WELCOME10 takes 10 % off any order.',
    }),
    'an announcement',
  );

  // Not listed, so the main page keeps its 100 listings; checkouts buy it with a stock that never runs out.
  const checkoutProduct = must(
    await call('POST', `${self}/v2/products`, {
      title: 'Bench Checkout Key',
      description: 'The product every checkout benchmark buys.',
      unlisted: true,
      variants: [
        {
          title: 'Key',
          priceDetails: { amount: 1 },
          productType: 'serials',
          asSerials: { serials: serialsText('BENCH', CHECKOUT_API_SERIALS, random) },
        },
      ],
    }),
    'creating the checkout product',
  );

  return {
    shopId: shop.id,
    products,
    listings: listings.totalCount,
    groupPath,
    couponId: coupon.id,
    couponCode: coupon.name,
    editable,
    checkout: {
      productId: checkoutProduct.id,
      variantId: checkoutProduct.variants[0].id,
      path: checkoutProduct.path,
      serialPrefix: 'BENCH',
    },
  };
}
