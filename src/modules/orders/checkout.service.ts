import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Context } from '../../domain/context.js';
import { writeTransaction } from '../../domain/dispatcher.js';
import type { PasswordGuesser } from '../../http/auth-failures.js';
import { clientNet } from '../../http/client-net.js';
import { AppError, ForbiddenError, UnprocessableError, ValidationError } from '../../http/errors.js';
import { recordIdempotentWork } from '../../http/idempotency.js';
import { EMAIL } from '../../schemas/common.js';
import { verifyPassword } from '../../security/passwords.js';
import type { Locale } from '../../shared/locales.js';
import type { VpnRanges } from '../blacklist/index.js';
import { findBlock } from '../blacklist/index.js';
import type { CouponRow } from '../coupons/index.js';
import { claimCouponUse, couponDiscount, findCouponByCode } from '../coupons/index.js';
import * as customers from '../customers/index.js';
import { customerForEmail, InsufficientBalanceError } from '../customers/index.js';
import type { ProductRow, StoredCustomField, StoredGateway, VariantRow } from '../products/index.js';
import * as products from '../products/index.js';
import {
  fieldPatternProblem,
  MAX_ANSWER_LENGTH,
  MAX_MATCH_WORK,
  matchesFieldPattern,
  matchWork,
} from '../products/index.js';
import { protectionOf } from '../protection/index.js';
import { checkoutGateway } from '../settings/index.js';
import type { ShopRow } from '../shops/index.js';
import { isHostedProvider, requireShop, shareShop, shopPasswordHash } from '../shops/index.js';
import { enforceClientLimits, holdMs, serialiseClient } from './client-holds.js';
import { invoiceCreated } from './domain-events.js';
import type { PlacedOrder } from './invoice-mail.js';
import {
  completeInvoice,
  DeliveryFailedError,
  endUnpaid,
  expireOverdue,
  noteIfOutOfStock,
} from './lifecycle.service.js';
import type { CheckoutOutcome, OrderOptions } from './order-options.js';
import { unusedPaymentCode } from './payment-code.js';
import { reminderDueAt } from './payment-reminders.js';
import * as repo from './repository.js';
import type { CheckoutBody } from './schema.js';

type Conn = Kysely<Database>;

/** Who is buying, as the HTTP layer saw them. */
export interface Buyer {
  ip: string | null;
  userAgent: string | null;
  country: string | null;
  /**
   * The e-mail of the buyer's customer session of this shop, verified by the caller (the public
   * API's Bearer token, the storefront's session cookie; see src/modules/customer-sessions);
   * absent or null when not signed in. Paying from the balance needs it (assertBalancePayer).
   */
  signedInAs?: string | null | undefined;
  /**
   * The language the buyer ordered in (the storefront page's, or the first of an API client's
   * `Accept-Language` the storefront has); null: the shop's. The order's mails are written in it.
   */
  locale?: Locale | null | undefined;
}

/**
 * Only the owner of an address may spend its store balance: the `balance` gateway needs a
 * customer session of the shop (a code mailed to the address proved it) for `customerEmail`.
 * None: 401; another address's: 403. Other gateways need none. Checked before anything else is
 * looked at or written, so a refusal changes nothing and tells nothing about the balance.
 */
export function assertBalancePayer(
  body: Pick<CheckoutBody, 'gateway' | 'customerEmail'>,
  signedInAs: string | null | undefined,
): void {
  if (body.gateway !== 'balance') return;
  if (!signedInAs) {
    throw new AppError(
      401,
      'unauthorized',
      'Paying from the store balance needs a customer session: sign in with a code first.',
      ['authorization: paying with balance needs "Bearer <token>" of a customer session of this shop'],
    );
  }
  if (signedInAs !== body.customerEmail.trim().toLowerCase()) {
    throw new AppError(403, 'forbidden', 'The signed-in customer may pay only with their own balance.', [
      'customerEmail: is not the e-mail address of the signed-in customer',
    ]);
  }
}

interface PricedPart {
  index: number;
  product: ProductRow;
  variant: VariantRow;
  quantity: number;
  unitPrice: number;
  total: number;
  /** The variant's rule for the chosen gateway. */
  blockVpn: boolean;
}

/** A product's stored chat integration (products/service.ts `chatIntegrationOf`). */
interface ChatIntegration {
  enabled: boolean;
  required: boolean;
}

const partError = (index: number, field: string, problem: string) => `parts[${index}].${field}: ${problem}`;

/**
 * How a buyer reached a password-protected shop: the public API proves the storefront password
 * with `key` on each call; the web storefront has already checked its unlock cookie (an HMAC of
 * the current password hash, web/storefront/shop-scope.tsx) before calling.
 */
export type ShopAccess = 'key' | 'unlocked';

/** Whether `key` is the password of this hash, counted as a guess of the shop's password (a 429 past its limits). */
async function guessOpens(shopId: number, key: string, hash: string, guesser: PasswordGuesser): Promise<boolean> {
  await guesser.limits.take(shopId, guesser.ip);
  if (!(await verifyPassword(key, hash))) return false;
  await guesser.limits.succeeded(shopId, guesser.ip);
  return true;
}

/** The shop, unlocked with the storefront password when it has one (403 shop_locked otherwise). */
export async function openShop(
  db: Conn,
  shopId: number,
  key: string | null | undefined,
  access: ShopAccess,
  guesser: PasswordGuesser,
): Promise<ShopRow> {
  const shop = await requireShop(db, shopId);
  if (
    access === 'key' &&
    shop.password_hash !== null &&
    !(key != null && (await guessOpens(shop.id, key, shop.password_hash, guesser)))
  )
    throw shopLocked();
  return shop;
}

const shopLocked = () => new ForbiddenError('This shop is protected by a password.', 'shop_locked');

/**
 * The storefront password hash `key` proves, checked before the checkout's transaction (scrypt is
 * slow; no transaction waits on it), or null when nothing is to be proved: no `key` given, or the
 * web storefront's `unlocked`. The transaction then compares the shop's hash with it (unlocked).
 */
async function provenPassword(
  db: Conn,
  shopId: number,
  key: string | null | undefined,
  access: ShopAccess,
  guesser: PasswordGuesser,
): Promise<string | null> {
  if (access === 'unlocked' || key == null) return null;
  const hash = await shopPasswordHash(db, shopId);
  return hash !== null && (await guessOpens(shopId, key, hash, guesser)) ? hash : null;
}

/** Whether the shop, as the checkout's transaction reads it, is open to this buyer (see provenPassword). */
function unlocked(shop: ShopRow, access: ShopAccess, proven: string | null): boolean {
  return access === 'unlocked' || shop.password_hash === null || shop.password_hash === proven;
}

/**
 * Products and variants of the order, each purchasable, with quantities within limits and prices
 * for the gateway: read in one go (findOrderedItems), inside the checkout's transaction.
 */
async function priceParts(
  db: Conn,
  shop: ShopRow,
  body: { parts: CheckoutBody['parts']; gateway: string },
): Promise<PricedPart[]> {
  const seen = new Set<number>();
  for (const [index, part] of body.parts.entries()) {
    if (seen.has(part.productVariantId))
      throw ValidationError.field(`parts[${index}].productVariantId`, 'repeats an earlier part');
    seen.add(part.productVariantId);
  }
  const items = await products.findOrderedItems(
    db,
    shop.id,
    body.parts.map((p) => p.productId),
    [...seen],
  );
  const priced: PricedPart[] = [];
  for (const [index, part] of body.parts.entries()) {
    const product = items.products.get(part.productId);
    // Private and internal products appear nowhere public: to a buyer they do not exist.
    if (!product) throw ValidationError.field(`parts[${index}].productId`, 'no such product');
    const variant = items.variants.get(part.productVariantId);
    if (!variant || variant.deleted_at !== null || variant.product_id !== product.id) {
      throw ValidationError.field(`parts[${index}].productVariantId`, 'no such variant of this product');
    }
    if (product.on_hold === 1)
      throw new UnprocessableError('This product cannot be bought right now.', [
        partError(index, 'productId', 'is on hold'),
      ]);
    const max = variant.max_amount ?? Number.MAX_SAFE_INTEGER;
    if (part.quantity < variant.min_amount || part.quantity > max) {
      const range =
        variant.max_amount === null
          ? `at least ${variant.min_amount}`
          : `between ${variant.min_amount} and ${variant.max_amount}`;
      throw new UnprocessableError('The quantity is outside what this product allows.', [
        partError(index, 'quantity', `must be ${range}`),
      ]);
    }
    const gateways = JSON.parse(variant.gateways) as StoredGateway[];
    const entry = gateways.find((g) => g.gateway === body.gateway);
    if (gateways.length > 0 && !entry) {
      throw new UnprocessableError(`This product cannot be paid with ${body.gateway}.`, [
        partError(index, 'productVariantId', `does not accept ${body.gateway}`),
      ]);
    }
    const unitPrice = entry?.price ?? variant.price;
    priced.push({
      index,
      product,
      variant,
      quantity: part.quantity,
      unitPrice,
      total: unitPrice * part.quantity,
      blockVpn: entry?.rules.blockVpn ?? false,
    });
  }
  return priced;
}

/**
 * The answers to the variants' custom fields: required ones present, types and patterns
 * respected. Patterns run on RE2 (products/field-pattern.ts), each field checked once however
 * many parts carry it. A pattern stored before RE2 was used that RE2 cannot compile is the
 * shop's misconfiguration, not the buyer's: the order is refused (422 naming the field) rather
 * than the answer accepted unchecked or the pattern run on a backtracking engine.
 */
function checkCustomFields(
  parts: PricedPart[],
  answers: Record<string, unknown>,
): Record<string, string | number | boolean> {
  const accepted: Record<string, string | number | boolean> = {};
  const problems: string[] = [];
  const unusable: string[] = [];
  const checked = new Set<string>();
  let work = 0;
  /** Adds one answer's matching cost to the order's and answers the total so far. */
  const spend = (cost: number) => {
    work += cost;
    return work;
  };
  for (const part of parts) {
    for (const field of JSON.parse(part.variant.custom_fields) as StoredCustomField[]) {
      const key = JSON.stringify([field.id, field.type, field.required, field.regex]);
      if (checked.has(key)) continue;
      checked.add(key);
      const value = answers[field.id];
      const at = `customFields.${field.id}`;
      if (value === undefined || value === null || value === '') {
        if (field.required) problems.push(`${at}: is required`);
        continue;
      }
      if (field.type === 'checkbox') {
        if (typeof value !== 'boolean') problems.push(`${at}: must be true or false`);
        else if (field.required && !value) problems.push(`${at}: must be checked`);
        else accepted[field.id] = value;
        continue;
      }
      const text = typeof value === 'number' ? String(value) : value;
      // Characters as the schema counts them (code points), so the document and this check agree.
      if (typeof text !== 'string' || [...text].length > MAX_ANSWER_LENGTH) {
        problems.push(`${at}: must be a text of at most ${MAX_ANSWER_LENGTH} characters`);
        continue;
      }
      if (field.type === 'number' && !Number.isFinite(Number(text))) problems.push(`${at}: must be a number`);
      else if (field.type === 'email' && !EMAIL.test(text)) problems.push(`${at}: must be an e-mail address`);
      else if (field.regex && fieldPatternProblem(field.regex))
        unusable.push(`${at}: the shop's format for this field cannot be checked; the shop must correct it`);
      else if (field.regex && spend(matchWork(field.regex, text)) > MAX_MATCH_WORK) {
        problems.push(
          `${at}: is too long to be checked against the shop's format for it; shorten the answers of this order`,
        );
      } else if (field.regex && !matchesFieldPattern(field.regex, text))
        problems.push(`${at}: does not match the required format`);
      else accepted[field.id] = field.type === 'number' ? Number(text) : text;
    }
  }
  if (unusable.length > 0)
    throw new UnprocessableError('This order cannot be placed until the shop corrects a custom field.', unusable);
  if (problems.length > 0) throw new ValidationError(problems, 'Some custom fields are missing or invalid.');
  return accepted;
}

/**
 * The buyer's chat user id to keep on the invoice: null unless a product of the order has chat
 * integration enabled (the owner's bot grants its roles to this user); a 400 naming it and the
 * part when such a product makes it required and it is missing.
 */
function chatUserFor(parts: PricedPart[], chatUserId: string | null | undefined): string | null {
  const integrated = parts
    .map((part) => ({
      part,
      chat:
        part.product.chat_integration === null ? null : (JSON.parse(part.product.chat_integration) as ChatIntegration),
    }))
    .filter((p) => p.chat?.enabled);
  if (integrated.length === 0) return null;
  const requiring = integrated.find((p) => p.chat!.required)?.part;
  if (requiring && chatUserId == null) {
    throw ValidationError.field(
      'chatUserId',
      `is required: parts[${requiring.index}] (${requiring.product.title}) grants roles in the shop's chat server`,
    );
  }
  return chatUserId ?? null;
}

/**
 * The `blockVpn` gateway rules, the shop's for the chosen gateway and each part's variant's: a
 * buyer whose IP is in the operator's VPN ranges is refused (422 naming the gateway). Without
 * ranges nothing can be checked: rules stored before turning one on needed them are kept but not
 * enforced, and the server says how many at start (blacklist/vpn-ranges.ts).
 */
function refuseVpn(gateway: string, shopRule: boolean, parts: PricedPart[], buyer: Buyer, vpn: VpnRanges | null): void {
  if (!vpn?.covers(buyer.ip)) return;
  const message = `${gateway} does not accept payments from VPN or proxy addresses.`;
  if (shopRule) throw new CheckoutRefusal('blocked', message, [`gateway: ${gateway} refuses VPN and proxy addresses`]);
  const part = parts.find((p) => p.blockVpn);
  if (part)
    throw new CheckoutRefusal('blocked', message, [
      partError(part.index, 'productVariantId', `${gateway} refuses VPN and proxy addresses for this product`),
    ]);
}

async function couponFor(
  db: Conn,
  shopId: number,
  code: string,
  parts: PricedPart[],
  gateway: string,
  now: number,
): Promise<{ coupon: CouponRow; discount: number }> {
  const coupon = await findCouponByCode(db, shopId, code);
  if (!coupon) throw new UnprocessableError('This coupon is not valid.', ['coupon: is not valid']);
  const discount = couponDiscount(coupon, {
    parts: parts.map((p) => ({ productId: p.product.id, total: p.total })),
    gateway,
    now,
  });
  return { coupon, discount };
}

/**
 * Reserves every part's stock for the invoice, or throws 422 naming a part short of it. Parts
 * are taken in variant order, the order every writer of several variants' stock follows: two
 * concurrent orders of the same variants never hold one each and wait for the other's.
 */
async function reserveStock(
  db: Conn,
  shopId: number,
  invoiceId: string,
  parts: PricedPart[],
  now: number,
): Promise<void> {
  for (const part of [...parts].sort((a, b) => a.variant.id - b.variant.id)) {
    const units = await products.takeUnits(db, shopId, part.variant, invoiceId, part.quantity);
    if (!units.taken)
      throw new CheckoutRefusal('out_of_stock', 'Not enough stock for this order.', [
        partError(part.index, 'quantity', 'is more than the stock left'),
      ]);
    await noteIfOutOfStock(db, shopId, part.product.id, part.variant.id, units.left, now);
  }
}

/** A placed order: its id, and the order as placed when nothing changed it after its transaction (a manual gateway's). */
export interface PlacedCheckout {
  invoiceId: string;
  order: PlacedOrder | null;
}

/**
 * The public checkout (contract 6.2). Checks, in order: the balance payer's session
 * (assertBalancePayer), the storefront password, shop not on hold, products purchasable,
 * quantities, custom fields and the chat user id, gateway (and its VPN rules), blacklist, coupon,
 * the client's limits (client-holds.ts: card checkouts per hour, pending orders, units held), the
 * balance, stock. A card or crypto order holds its stock the shop's `holdMinutesHosted` at most
 * (holdMs). Every read those checks make happens once, inside the one transaction that
 * then reserves the stock and the coupon use, creates the customer on first sight, and writes the
 * pending invoice, its parts, the buyer's IP, the `invoice.created` event and the buyer's mail
 * (invoice link, how to pay): taken after the shop lock (shareShop), they see every change an
 * owner committed before it (a price, a hold, a gateway turned off) and none can commit between
 * a check and the write it decides (an owner's catalog write takes the lock exclusively; SQLite
 * runs one write transaction at a time). Only the storefront password is proved before
 * (provenPassword), and the returned stock of expired invoices is written before.
 *
 * The `balance` gateway completes at once when the balance covers the total (else 422, nothing
 * kept; see completeBalanceOrder). A card or crypto order then gets its payment page at the
 * provider (startHostedPayment: 502 and the invoice cancelled when the provider cannot be
 * asked). The web storefront passes `access` 'unlocked' (see ShopAccess).
 */
export async function checkout(
  ctx: Context,
  shopId: number,
  body: CheckoutBody,
  buyer: Buyer,
  options: OrderOptions,
  vpn: VpnRanges | null,
  access: ShopAccess = 'key',
): Promise<PlacedCheckout> {
  try {
    const placed = await placeOrder(ctx, shopId, body, buyer, options, vpn, access);
    options.observeCheckout?.('placed');
    return placed;
  } catch (err) {
    options.observeCheckout?.(checkoutOutcome(err));
    throw err;
  }
}

/** What an order would cost: each part's price for the gateway, the subtotal, the coupon's discount and the total. */
export interface OrderQuote {
  parts: { unitPrice: number; total: number }[];
  subtotal: number;
  /** The coupon's code as the shop spells it, and what it takes off; null without a coupon. */
  coupon: { code: string; discount: number } | null;
  total: number;
}

/**
 * The price of an order before it is placed (the storefront's summary above "Place order"): the
 * parts priced for the gateway and the coupon applied by the rules the checkout itself follows
 * (priceParts, couponDiscount), so the summary and the invoice agree unless the shop changes in
 * between. Reads only: no stock is held and no coupon use taken. Refuses as the checkout would:
 * 400/422 naming the part or `coupon`.
 */
export async function quoteOrder(
  ctx: Context,
  shopId: number,
  order: { parts: CheckoutBody['parts']; gateway: string; coupon?: string | null | undefined },
): Promise<OrderQuote> {
  const shop = await requireShop(ctx.db, shopId);
  const parts = await priceParts(ctx.db, shop, order);
  const subtotal = parts.reduce((sum, p) => sum + p.total, 0);
  const coupon = order.coupon
    ? await couponFor(ctx.db, shop.id, order.coupon, parts, order.gateway, ctx.clock.now())
    : undefined;
  const discount = coupon?.discount ?? 0;
  return {
    parts: parts.map((p) => ({ unitPrice: p.unitPrice, total: p.total })),
    subtotal,
    coupon: coupon ? { code: coupon.coupon.name, discount } : null,
    total: subtotal - discount,
  };
}

class CheckoutRefusal extends UnprocessableError {
  constructor(
    readonly outcome: 'out_of_stock' | 'blocked',
    message: string,
    errors: string[],
  ) {
    super(message, errors);
  }
}

function checkoutOutcome(err: unknown): CheckoutOutcome {
  if (err instanceof CheckoutRefusal) return err.outcome;
  return err instanceof AppError && err.statusCode < 500 ? 'refused' : 'failed';
}

async function placeOrder(
  ctx: Context,
  shopId: number,
  body: CheckoutBody,
  buyer: Buyer,
  options: OrderOptions,
  vpn: VpnRanges | null,
  access: ShopAccess,
): Promise<PlacedCheckout> {
  assertBalancePayer(body, buyer.signedInAs);
  const proven = await provenPassword(ctx.db, shopId, body.key, access, {
    limits: options.passwordGuesses,
    ip: buyer.ip,
  });
  // Stock held by invoices that expired while no worker ran is returned before reserving.
  await expireOverdue(ctx, { shopId });
  const invoiceId = randomBytes(18).toString('base64url');
  const email = body.customerEmail.trim().toLowerCase();
  const net = clientNet(buyer.ip);
  const order = await writeTransaction(ctx, async (tx): Promise<PlacedOrder> => {
    const trx = tx.db;
    // Read once, for every time this order records (its coupon's validity window included).
    const now = ctx.clock.now();
    await shareShop(trx, shopId);
    const limits = await protectionOf(trx, shopId);
    await serialiseClient(trx, shopId, limits, body.gateway, net, email);
    const shop = await requireShop(trx, shopId);
    if (!unlocked(shop, access, proven)) throw shopLocked();
    if (shop.on_hold === 1)
      throw new UnprocessableError('The shop is on hold and takes no orders right now.', ['shop: is on hold']);
    const parts = await priceParts(trx, shop, body);
    const customFields = checkCustomFields(parts, body.customFields ?? {});
    const chatUserId = chatUserFor(parts, body.chatUserId);
    const gateway = await checkoutGateway(trx, shop.id, body.gateway);
    if (!gateway) {
      throw new UnprocessableError(`${body.gateway} is not available in this shop.`, [
        `gateway: ${body.gateway} is not enabled`,
      ]);
    }
    refuseVpn(body.gateway, gateway.blockVpn, parts, buyer, vpn);
    const block = await findBlock(trx, shop.id, { email, ip: buyer.ip, country: buyer.country });
    if (block)
      throw new CheckoutRefusal('blocked', 'This order cannot be placed.', [
        `${block.type === 'email' ? 'customerEmail' : block.type}: is blocked by the shop`,
      ]);
    const subtotal = parts.reduce((sum, p) => sum + p.total, 0);
    const coupon = body.coupon ? await couponFor(trx, shop.id, body.coupon, parts, body.gateway, now) : undefined;
    const total = subtotal - (coupon?.discount ?? 0);

    // An Idempotency-Key's claim commits with the order: a retry after a crash answers this invoice.
    await recordIdempotentWork(trx, invoiceId);
    if (coupon && !(await claimCouponUse(trx, shop.id, coupon.coupon.id))) {
      throw new UnprocessableError('This coupon has been used up.', ['coupon: has no uses left']);
    }
    const customer = await customerForEmail(trx, shop.id, email, now);
    await enforceClientLimits(
      trx,
      shop.id,
      limits,
      { net, customerId: customer.id },
      {
        gateway: body.gateway,
        parts: parts.map((p) => ({ index: p.index, productId: p.product.id, quantity: p.quantity })),
      },
      now,
    );
    // Checked again, as debited, at completion (completeBalanceOrder): this refusal keeps nothing.
    if (body.gateway === 'balance' && customer.balance < total)
      throw new UnprocessableError('The balance does not cover this order.', ['gateway: the balance is too low']);
    // An unknown, disabled or own referral code is ignored rather than refused: a stale link must not block a sale.
    const affiliateId = body.affiliateCode
      ? await customers.referrerOfCode(trx, shop.id, body.affiliateCode, customer.id)
      : undefined;
    // The terms in force now are the ones this order is placed under (the storefront has the buyer tick them).
    const termsHash = shop.terms ? createHash('sha256').update(shop.terms).digest('hex') : null;
    if (termsHash !== null) await repo.keepTerms(trx, shop.id, termsHash, shop.terms!, now);
    const expiresAt = now + holdMs(body.gateway, shop.invoice_lifetime_minutes, limits);
    const invoice = await repo.insertInvoice(trx, {
      id: invoiceId,
      shop_id: shop.id,
      status: 'pending',
      gateway: body.gateway,
      customer_id: customer.id,
      customer_email: email,
      coupon_id: coupon?.coupon.id ?? null,
      coupon_code: coupon?.coupon.name ?? null,
      subtotal,
      discount: coupon?.discount ?? 0,
      total,
      currency: shop.currency,
      custom_fields: JSON.stringify(customFields),
      ip: buyer.ip,
      user_agent: buyer.userAgent,
      country: buyer.country,
      affiliate_code: affiliateId === undefined ? null : body.affiliateCode!,
      affiliate_customer_id: affiliateId ?? null,
      chat_user_id: chatUserId,
      created_at: now,
      updated_at: now,
      expires_at: expiresAt,
      remind_at: reminderDueAt(body.gateway, now, expiresAt),
      locale: buyer.locale ?? null,
      client_net: net,
      // What the buyer quotes with a manual payment, instead of the id that opens the invoice (M4).
      payment_code: await unusedPaymentCode(trx, shop.id),
      terms_hash: termsHash,
    });
    const partRows = [];
    for (const p of parts) {
      partRows.push(
        await repo.insertPart(trx, {
          shop_id: shop.id,
          invoice_id: invoiceId,
          product_id: p.product.id,
          variant_id: p.variant.id,
          title: p.product.title,
          variant_title: p.variant.title,
          product_type: p.variant.product_type,
          quantity: p.quantity,
          unit_price: p.unitPrice,
          total: p.total,
          created_at: now,
        }),
      );
    }
    await reserveStock(trx, shop.id, invoiceId, parts, now);
    if (buyer.ip) await customers.recordCustomerIp(trx, shop.id, customer.id, buyer.ip, now);
    const placed = { invoice, shop, parts: partRows, fields: gateway.fields };
    await invoiceCreated(tx, placed, customer.isNew, now);
    return placed;
  });

  if (body.gateway === 'balance') await completeBalanceOrder(ctx, shopId, invoiceId, options);
  else if (isHostedProvider(body.gateway)) await options.payments.startHostedPayment(ctx, shopId, invoiceId);
  else return { invoiceId, order };
  return { invoiceId, order: null };
}

/**
 * A balance checkout completes in the request that placed it. When the completion fails for
 * any reason (the balance fell since the check, a dynamic delivery failed, a bug) the invoice is
 * cancelled at once, its stock and coupon use returned; nothing was charged, since the debit is
 * part of the completion transaction. So a 4xx tells the buyer the whole truth: no order exists
 * that the owner could later process. If another writer ended the invoice first (the owner
 * processed it meanwhile), its outcome stands and the original error is answered.
 */
async function completeBalanceOrder(
  ctx: Context,
  shopId: number,
  invoiceId: string,
  options: OrderOptions,
): Promise<void> {
  try {
    await completeInvoice(ctx, shopId, invoiceId, options, { source: 'balance' });
  } catch (err) {
    if (!(await endUnpaid(ctx, shopId, invoiceId, 'cancelled'))) throw err;
    if (err instanceof InsufficientBalanceError)
      throw new UnprocessableError('The balance does not cover this order.', ['gateway: the balance is too low']);
    // The owner's delivery URL and its answer are the owner's business: the invoice records them.
    if (err instanceof DeliveryFailedError) {
      throw new UnprocessableError('The delivery failed, so the order was not placed and nothing was charged.', [
        'delivery: failed; the order was not placed',
      ]);
    }
    throw err;
  }
}
