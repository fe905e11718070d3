import { randomBytes } from 'node:crypto';
import { CompiledQuery, type Insertable, type Kysely, sql } from 'kysely';
import type { Database } from '../src/db/schema.js';
import { type Catalog, CHECKOUT_API_SERIALS, GATEWAYS, type SeedVariant } from './seed-catalog.js';
import {
  countries,
  feedbackComments,
  firstNames,
  lastNames,
  mailDomains,
  pick,
  pickWeighted,
  type Random,
  ratingMix,
  serialValue,
  shopAnswers,
  userAgents,
} from './seed-data.js';

/**
 * Two years of trading, bulk-inserted with Kysely multi-row inserts in large transactions (the
 * same code on both engines). The whole history is planned first in typed arrays, so every
 * derived figure (customer totals, units sold, coupon uses, customer IPs) is written once and
 * agrees with the invoices.
 */
type Conn = Kysely<Database>;

export const SIZES = { customers: 100_000, invoices: 1_000_000, feedbacks: 20_000, checkoutSerials: 300_000 };
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const SPAN = 730 * DAY;
const LIFETIME = 60 * MIN;
const PENDING_RECENT = 40;
const INVOICES_PER_TRANSACTION = 50_000;
/** Below SQLite's 32,766 bound parameters per statement (PostgreSQL allows 65,535). */
const PARAMETER_BUDGET = 30_000;

export const COMPLETED = 0;
export const EXPIRED = 1;
export const PENDING = 2;
const STATUS_NAMES = ['completed', 'expired', 'pending'] as const;
const GATEWAY_WEIGHTS: readonly (readonly [number, number])[] = [
  [0, 40],
  [1, 20],
  [2, 15],
  [3, 10],
  [4, 15],
];

export interface HistoryLog {
  info(line: string): void;
}

export interface HistoryResult {
  invoices: number;
  parts: number;
  serials: number;
  feedbacks: number;
  start: number;
  end: number;
}

/** SQL text per table, columns and row count: Kysely compiles each statement shape once. */
const statementText = new Map<string, string>();

/**
 * Inserts rows with multi-row INSERTs that stay under the bound-parameter limit. Every row must
 * have the same keys in the same order; the statement compiled for the first chunk of a shape is
 * reused with the next chunks' values (compiling 30,000 values costs ~10 ms).
 */
export async function insertRows<T extends keyof Database & string>(
  db: Conn,
  table: T,
  rows: Insertable<Database[T]>[],
): Promise<void> {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]!);
  const perStatement = Math.max(1, Math.floor(PARAMETER_BUDGET / columns.length));
  for (let i = 0; i < rows.length; i += perStatement) {
    const chunk = rows.slice(i, i + perStatement) as Record<string, unknown>[];
    const parameters: unknown[] = [];
    for (const row of chunk) for (const column of columns) parameters.push(row[column]);
    const key = `${table}(${columns.join(',')})×${chunk.length}`;
    let text = statementText.get(key);
    if (text === undefined) {
      const compiled = db
        .insertInto(table)
        .values(chunk as any)
        .compile();
      if (compiled.parameters.length !== parameters.length || compiled.parameters.some((p, n) => p !== parameters[n])) {
        throw new Error(`bench seed: unexpected parameter order compiling ${key}`);
      }
      text = compiled.sql;
      statementText.set(key, text);
    }
    await db.executeQuery(CompiledQuery.raw(text, parameters));
  }
}

interface Plan {
  created: Float64Array;
  completed: Float64Array;
  status: Uint8Array;
  gateway: Uint8Array;
  customer: Int32Array;
  ipSlot: Uint8Array;
  variantA: Int32Array;
  qtyA: Uint8Array;
  variantB: Int32Array;
  qtyB: Uint8Array;
  coupon: Uint8Array;
  subtotal: Float64Array;
  discount: Float64Array;
  feedback: Uint8Array;
}

interface FlatVariant extends SeedVariant {
  productId: number;
  productTitle: string;
}

function flatVariants(catalog: Catalog): { variants: FlatVariant[]; cumulative: number[] } {
  const variants: FlatVariant[] = [];
  const cumulative: number[] = [];
  let total = 0;
  for (const p of catalog.products) {
    for (const [i, v] of p.variants.entries()) {
      variants.push({ ...v, productId: p.id, productTitle: p.title });
      total += p.popularity / (i + 1);
      cumulative.push(total);
    }
  }
  return { variants, cumulative };
}

function pickVariant(random: Random, cumulative: number[]): number {
  const r = random() * cumulative[cumulative.length - 1]!;
  let lo = 0;
  let hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cumulative[mid]! > r) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

function quantity(random: Random, v: SeedVariant): number {
  if (v.type === 'service') return 1;
  const q = pickWeighted(random, [
    [1, 85],
    [2, 11],
    [3, 4],
  ] as const);
  return Math.min(q, v.maxAmount ?? q);
}

/** Every invoice's time, buyer, status, parts and money, oldest first; newer days are busier. */
function planHistory(random: Random, variants: FlatVariant[], cumulative: number[], now: number): Plan {
  const n = SIZES.invoices;
  const plan: Plan = {
    created: new Float64Array(n),
    completed: new Float64Array(n),
    status: new Uint8Array(n),
    gateway: new Uint8Array(n),
    customer: new Int32Array(n),
    ipSlot: new Uint8Array(n),
    variantA: new Int32Array(n),
    qtyA: new Uint8Array(n),
    variantB: new Int32Array(n),
    qtyB: new Uint8Array(n),
    coupon: new Uint8Array(n),
    subtotal: new Float64Array(n),
    discount: new Float64Array(n),
    feedback: new Uint8Array(n),
  };
  const end = now - 2 * HOUR;
  const start = end - SPAN;
  let customers = 0;
  let feedbacksLeft = SIZES.feedbacks;
  for (let i = 0; i < n; i++) {
    const pending = i >= n - PENDING_RECENT;
    // Density grows linearly with time (sqrt of a uniform): the shop is growing.
    plan.created[i] = pending
      ? now - (PENDING_RECENT - (i - (n - PENDING_RECENT))) * MIN
      : Math.floor(start + SPAN * Math.sqrt((i + random()) / (n - PENDING_RECENT)));
    const customersLeft = SIZES.customers - customers;
    const isNew =
      customers === 0 || (customersLeft > 0 && (customersLeft >= n - i || random() < (customersLeft / (n - i)) * 0.95));
    if (isNew) plan.customer[i] = customers++;
    else
      plan.customer[i] =
        random() < 0.4 ? Math.floor((random() * customers) / 25) * 25 : Math.floor(random() * customers);
    plan.ipSlot[i] = random() < 0.8 ? 0 : random() < 0.7 ? 1 : 2;
    plan.status[i] = pending ? PENDING : random() < 0.87 ? COMPLETED : EXPIRED;
    plan.gateway[i] = pickWeighted(random, GATEWAY_WEIGHTS);
    const a = pickVariant(random, cumulative);
    plan.variantA[i] = a;
    plan.qtyA[i] = quantity(random, variants[a]!);
    let b = -1;
    if (random() < 0.2) {
      b = pickVariant(random, cumulative);
      if (b === a) b = -1;
    }
    plan.variantB[i] = b;
    plan.qtyB[i] = b < 0 ? 0 : quantity(random, variants[b]!);
    const subtotal = variants[a]!.price * plan.qtyA[i]! + (b < 0 ? 0 : variants[b]!.price * plan.qtyB[i]!);
    plan.subtotal[i] = subtotal;
    plan.coupon[i] = random() < 0.04 ? 1 : 0;
    plan.discount[i] = plan.coupon[i] ? Math.floor((subtotal * 1000) / 10_000) : 0;
    if (plan.status[i] === COMPLETED) {
      plan.completed[i] = plan.created[i]! + (1 + Math.floor(random() * 55)) * MIN + Math.floor(random() * MIN);
      // About one completed order in 43 gets a rating; the last ones are spread so the count comes out exact.
      if (feedbacksLeft > 0 && random() < Math.max(1 / 43.5, feedbacksLeft / (n - i))) {
        plan.feedback[i] = 1;
        feedbacksLeft--;
      }
    }
  }
  if (customers !== SIZES.customers)
    throw new Error(`bench seed: planned ${customers} customers, expected ${SIZES.customers}`);
  return plan;
}

function ipOf(customer: number, slot: number): string {
  let h = Math.imul(customer * 3 + slot + 1, 2654435761) >>> 0;
  const octet = () => {
    const o = h & 0xff;
    h = Math.imul(h ^ (h >>> 13), 1274126177) >>> 0;
    return o;
  };
  return `${[24, 37, 46, 68, 73, 81, 89, 92, 104, 142, 176, 185, 203][customer % 13]}.${octet()}.${octet()}.${1 + (octet() % 254)}`;
}

function customerEmails(random: Random): string[] {
  const seen = new Set<string>();
  const emails: string[] = [];
  while (emails.length < SIZES.customers) {
    const first = pick(random, firstNames);
    const last = pick(random, lastNames);
    const style = random();
    const local =
      style < 0.4
        ? `${first}.${last}${Math.floor(random() * 1000)}`
        : style < 0.7
          ? `${first}${last}${Math.floor(random() * 100)}`
          : `${first[0]}${last}${Math.floor(random() * 10_000)}`;
    const email = `${local}@${pickWeighted(random, mailDomains)}`;
    if (seen.has(email)) continue;
    seen.add(email);
    emails.push(email);
  }
  return emails;
}

function referralCodes(count: number): string[] {
  const codes = new Set<string>();
  while (codes.size < count) codes.add(randomBytes(6).toString('base64url'));
  return [...codes];
}

/** Customers with their lifetime totals and IPs, as checkout and completion would have left them. */
async function insertCustomers(db: Conn, shopId: number, plan: Plan, emails: string[]): Promise<Int32Array> {
  const c = SIZES.customers;
  const first = new Float64Array(c).fill(Number.POSITIVE_INFINITY);
  const spent = new Float64Array(c);
  const orders = new Int32Array(c);
  const last = new Float64Array(c);
  const ips = new Map<number, { first: number; last: number; count: number }>();
  for (let i = 0; i < SIZES.invoices; i++) {
    const k = plan.customer[i]!;
    const t = plan.created[i]!;
    if (t < first[k]!) first[k] = t;
    if (plan.status[i] === COMPLETED) {
      spent[k] = spent[k]! + plan.subtotal[i]! - plan.discount[i]!;
      orders[k] = orders[k]! + 1;
      last[k] = Math.max(last[k]!, plan.completed[i]!);
    }
    const key = k * 3 + plan.ipSlot[i]!;
    const seen = ips.get(key);
    if (seen) {
      seen.last = t;
      seen.count++;
    } else ips.set(key, { first: t, last: t, count: 1 });
  }
  const codes = referralCodes(c);
  await db.transaction().execute(async (trx) => {
    const rows: Insertable<Database['customers']>[] = [];
    for (let k = 0; k < c; k++) {
      rows.push({
        shop_id: shopId,
        email: emails[k]!,
        balance: 0,
        total_spent: spent[k]!,
        orders_count: orders[k]!,
        referral_code: codes[k]!,
        referral_disabled: 0,
        created_at: first[k]!,
        updated_at: Math.max(first[k]!, last[k]!),
        last_order_at: orders[k]! > 0 ? last[k]! : null,
      });
    }
    await insertRows(trx, 'customers', rows);
  });
  const stored = await db.selectFrom('customers').select(['id', 'email']).where('shop_id', '=', shopId).execute();
  const idOfEmail = new Map(stored.map((r) => [r.email, r.id]));
  const ids = new Int32Array(c);
  for (let k = 0; k < c; k++) ids[k] = idOfEmail.get(emails[k]!)!;
  await db.transaction().execute(async (trx) => {
    const rows = [...ips].map(([key, v]) => ({
      shop_id: shopId,
      customer_id: ids[Math.floor(key / 3)]!,
      ip: ipOf(Math.floor(key / 3), key % 3),
      first_seen_at: v.first,
      last_seen_at: v.last,
      count: v.count,
    }));
    await insertRows(trx, 'customer_ips', rows);
  });
  return ids;
}

export async function seedHistory(
  db: Conn,
  catalog: Catalog,
  random: Random,
  now: number,
  log: HistoryLog,
): Promise<HistoryResult> {
  const shopId = catalog.shopId;
  const { variants, cumulative } = flatVariants(catalog);
  const plan = planHistory(random, variants, cumulative, now);
  const emails = customerEmails(random);
  const started = Date.now();
  const stockLoadedAt = plan.created[0]! - DAY;
  await db.transaction().execute((trx) => moveCatalogBack(trx, shopId, stockLoadedAt));
  const customerIds = await insertCustomers(db, shopId, plan, emails);
  log.info(`customers: ${SIZES.customers.toLocaleString('en')} in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  const serialCounter = new Map<number, number>();
  const sold = new Map<number, number>();
  let parts = 0;
  let serials = 0;
  let feedbacks = 0;
  let couponUses = 0;
  let writingMs = 0;
  for (let from = 0; from < SIZES.invoices; from += INVOICES_PER_TRANSACTION) {
    const to = Math.min(SIZES.invoices, from + INVOICES_PER_TRANSACTION);
    const invoiceRows: Insertable<Database['invoices']>[] = [];
    const partRows: Insertable<Database['invoice_parts']>[] = [];
    const serialRows: Insertable<Database['serials']>[] = [];
    const feedbackRows: Insertable<Database['feedbacks']>[] = [];
    for (let i = from; i < to; i++) {
      const id = randomBytes(18).toString('base64url');
      const status = plan.status[i]!;
      const created = plan.created[i]!;
      const completedAt = status === COMPLETED ? plan.completed[i]! : null;
      const k = plan.customer[i]!;
      if (plan.coupon[i] && status !== EXPIRED) couponUses++;
      invoiceRows.push({
        id,
        shop_id: shopId,
        status: STATUS_NAMES[status]!,
        gateway: GATEWAYS[plan.gateway[i]!]!,
        customer_id: customerIds[k]!,
        customer_email: emails[k]!,
        coupon_id: plan.coupon[i] ? catalog.couponId : null,
        coupon_code: plan.coupon[i] ? catalog.couponCode : null,
        subtotal: plan.subtotal[i]!,
        discount: plan.discount[i]!,
        total: plan.subtotal[i]! - plan.discount[i]!,
        currency: 'USD',
        custom_fields: '{}',
        ip: ipOf(k, plan.ipSlot[i]!),
        user_agent: userAgents[k % userAgents.length]!,
        country: pickWeighted(random, countries),
        affiliate_code: null,
        affiliate_customer_id: null,
        commission: 0,
        delivery_error: null,
        created_at: created,
        // The expiry worker stamps an expired invoice when it runs, shortly after its expiry.
        updated_at:
          status === COMPLETED
            ? completedAt!
            : status === EXPIRED
              ? created + LIFETIME + Math.floor(random() * 30_000)
              : created,
        expires_at: created + LIFETIME,
        completed_at: completedAt,
      });
      for (const [v, q] of [
        [plan.variantA[i]!, plan.qtyA[i]!],
        [plan.variantB[i]!, plan.qtyB[i]!],
      ] as const) {
        if (v < 0) continue;
        const variant = variants[v]!;
        let deliverables: string[] = [];
        if (variant.type === 'serials' && status !== EXPIRED) {
          // Completed parts hold delivered serials; pending ones reserved serials. Expired ones gave theirs back.
          for (let u = 0; u < q; u++) {
            const n = (serialCounter.get(variant.id) ?? 100_000) + 1;
            serialCounter.set(variant.id, n);
            const value = serialValue(variant.serialPrefix, n, random);
            serialRows.push({
              shop_id: shopId,
              variant_id: variant.id,
              value,
              status: status === COMPLETED ? 'delivered' : 'reserved',
              invoice_id: id,
              created_at: stockLoadedAt,
              delivered_at: completedAt,
            });
            if (status === COMPLETED) deliverables.push(value);
          }
        } else if (variant.type === 'service' && status === COMPLETED) {
          deliverables = [variant.serviceText ?? ''];
        }
        if (status === COMPLETED) sold.set(variant.productId, (sold.get(variant.productId) ?? 0) + q);
        partRows.push({
          shop_id: shopId,
          invoice_id: id,
          product_id: variant.productId,
          variant_id: variant.id,
          title: variant.productTitle,
          variant_title: variant.title,
          product_type: variant.type,
          quantity: q,
          unit_price: variant.price,
          total: variant.price * q,
          deliverables: JSON.stringify(deliverables),
          created_at: created,
        });
      }
      if (plan.feedback[i]) {
        const rating = pickWeighted(random, ratingMix);
        const at = Math.min(
          completedAt! + (1 + Math.floor(random() * 47)) * HOUR + Math.floor(random() * HOUR),
          now - MIN,
        );
        const answered = random() < 0.2 ? Math.min(at + (1 + Math.floor(random() * 23)) * HOUR, now - MIN) : null;
        feedbackRows.push({
          shop_id: shopId,
          invoice_id: id,
          customer_id: customerIds[k]!,
          rating,
          comment: random() < 0.85 ? pick(random, feedbackComments[rating]!) : null,
          answer: answered === null ? null : pick(random, shopAnswers),
          answered_at: answered,
          created_at: at,
          updated_at: answered ?? at,
        });
      }
    }
    const writing = Date.now();
    await db.transaction().execute(async (trx) => {
      await insertRows(trx, 'invoices', invoiceRows);
      await insertRows(trx, 'invoice_parts', partRows);
      await insertRows(trx, 'serials', serialRows);
      await insertRows(trx, 'feedbacks', feedbackRows);
    });
    writingMs += Date.now() - writing;
    parts += partRows.length;
    serials += serialRows.length;
    feedbacks += feedbackRows.length;
    const seconds = (Date.now() - started) / 1000;
    log.info(
      `invoices: ${to.toLocaleString('en')} / ${SIZES.invoices.toLocaleString('en')} (${parts.toLocaleString('en')} parts, ${serials.toLocaleString('en')} serials, ${feedbacks.toLocaleString('en')} feedbacks) ${seconds.toFixed(0)} s, ${(writingMs / 1000).toFixed(0)} s writing`,
    );
  }

  await db.transaction().execute(async (trx) => {
    for (const [productId, units] of sold) {
      await trx
        .updateTable('products')
        .set({ sold_count: sql`sold_count + ${units}` })
        .where('shop_id', '=', shopId)
        .where('id', '=', productId)
        .execute();
    }
    await trx
      .updateTable('coupons')
      .set({ uses: sql`uses + ${couponUses}` })
      .where('shop_id', '=', shopId)
      .where('id', '=', catalog.couponId)
      .execute();
    // The checkout product: a stock so large that no benchmark runs it out.
    const stock: Insertable<Database['serials']>[] = [];
    for (let n = CHECKOUT_API_SERIALS; n < SIZES.checkoutSerials; n++) {
      stock.push({
        shop_id: shopId,
        variant_id: catalog.checkout.variantId,
        value: serialValue(catalog.checkout.serialPrefix, n, random),
        status: 'available',
        invoice_id: null,
        created_at: stockLoadedAt,
        delivered_at: null,
      });
    }
    await insertRows(trx, 'serials', stock);
  });
  return {
    invoices: SIZES.invoices,
    parts,
    serials: serials + SIZES.checkoutSerials,
    feedbacks,
    start: plan.created[0]!,
    end: now,
  };
}

/** The shop opened before its first order: its catalog rows are dated back to then. */
async function moveCatalogBack(db: Conn, shopId: number, at: number): Promise<void> {
  await db.updateTable('shops').set({ created_at: at, updated_at: at }).where('id', '=', shopId).execute();
  await db.updateTable('products').set({ created_at: at, updated_at: at }).where('shop_id', '=', shopId).execute();
  await db
    .updateTable('product_variants')
    .set({ created_at: at, updated_at: at })
    .where('shop_id', '=', shopId)
    .execute();
  await db
    .updateTable('serials')
    .set({ created_at: at })
    .where('shop_id', '=', shopId)
    .where('status', '=', 'available')
    .execute();
  await db.updateTable('listings').set({ created_at: at }).where('shop_id', '=', shopId).execute();
  await db
    .updateTable('product_groups')
    .set({ created_at: at, updated_at: at })
    .where('shop_id', '=', shopId)
    .execute();
  await db.updateTable('categories').set({ created_at: at, updated_at: at }).where('shop_id', '=', shopId).execute();
  await db.updateTable('coupons').set({ created_at: at, updated_at: at }).where('shop_id', '=', shopId).execute();
}
