import { RateLimitedError, UnprocessableError } from '../../http/errors.js';
import type { ShopProtection } from '../protection/index.js';
import { isHostedProvider } from '../shops/index.js';
import type { ClientKeys } from './client-holds.repository.js';
import * as repo from './client-holds.repository.js';

export type { ClientKeys } from './client-holds.repository.js';

const HOUR = 60 * 60_000;

/** A part of the order being placed, as the limits read it. */
export interface HeldPart {
  index: number;
  productId: number;
  quantity: number;
}

/**
 * How long a new pending order holds its stock, in ms: a card or crypto order (a hosted
 * provider's) the shop's `holdMinutesHosted`, never longer than the invoice lifetime; a manual
 * method's the invoice lifetime, since its buyer pays by hand and the owner confirms it.
 */
export function holdMs(gateway: string, invoiceLifetimeMinutes: number, limits: ShopProtection): number {
  const minutes = isHostedProvider(gateway)
    ? Math.min(invoiceLifetimeMinutes, limits.holdMinutesHosted)
    : invoiceLifetimeMinutes;
  return minutes * 60_000;
}

/** Seconds from `now` until `at`, at least 1 (a `Retry-After`). */
const secondsUntil = (at: number, now: number) => Math.max(1, Math.ceil((at - now) / 1000));

const waitText = (seconds: number) => (seconds < 120 ? `${seconds} seconds` : `${Math.ceil(seconds / 60)} minutes`);

type Conn = Parameters<typeof repo.lockClient>[0];

/** Whether any of the shop's client limits applies to an order of this gateway. */
function limited(limits: ShopProtection, gateway: string): boolean {
  if (isHostedProvider(gateway) && limits.hostedCheckoutsPerHour > 0) return true;
  return gateway !== 'balance' && (limits.pendingPerClient > 0 || limits.unitsPerClient > 0);
}

/**
 * Serialises this client's checkouts of the shop for the rest of the transaction, when a limit
 * applies (repo.lockClient: PostgreSQL only): taken right after the shop lock, before the
 * checkout locks any row, so it never waits while holding one. The keys are the client net and
 * the e-mail address, the two things its orders are counted by (the customer is the e-mail's).
 */
export async function serialiseClient(
  db: Conn,
  shopId: number,
  limits: ShopProtection,
  gateway: string,
  net: string | null,
  email: string,
): Promise<void> {
  if (!limited(limits, gateway)) return;
  await repo.lockClient(db, shopId, [...(net === null ? [] : [`net:${net}`]), `email:${email}`]);
}

/**
 * The shop's limits on what one client may hold and start (protection settings), checked inside
 * the checkout's transaction after the shop lock, on the orders the client has placed so far. A
 * client is its net (an IPv4 address, an IPv6 /64) and its customer (its e-mail address): an order
 * counts for it when either matches, so neither fresh addresses nor fresh e-mail addresses alone
 * get round a limit. In order:
 *
 * - card and crypto checkouts started in the last hour (`hostedCheckoutsPerHour`, any status:
 *   a failed or cancelled attempt counts, which is what stops card testing): past it, 429 with
 *   `Retry-After` until the oldest of them leaves the hour;
 * - pending orders in the shop (`pendingPerClient`): past it, 429 with `Retry-After` until the
 *   earliest of them expires;
 * - units of one product held in pending orders, this order's included (`unitsPerClient`): past
 *   it, 422 naming the part; waiting alone does not help a too large order.
 *
 * A balance order completes (or is cancelled) in the request that places it, so it holds nothing,
 * and it is not a card or crypto checkout: no limit applies to it.
 * The caller has serialised the client's checkouts first (serialiseClient): counted exactly
 * however many run at once.
 */
export async function enforceClientLimits(
  db: Conn,
  shopId: number,
  limits: ShopProtection,
  client: ClientKeys,
  order: { gateway: string; parts: HeldPart[] },
  now: number,
): Promise<void> {
  if (!limited(limits, order.gateway)) return;
  const velocity = isHostedProvider(order.gateway) ? limits.hostedCheckoutsPerHour : 0;
  const holds = order.gateway !== 'balance';

  if (velocity > 0) {
    const times = await repo.hostedCheckoutTimes(db, shopId, client, now - HOUR, velocity);
    if (times.length >= velocity) {
      const retry = secondsUntil(times[velocity - 1]! + HOUR, now);
      throw new RateLimitedError(
        `Too many card or crypto checkouts: this shop allows ${velocity} per client per hour ` +
          `(hostedCheckoutsPerHour). Try again in ${waitText(retry)}.`,
        retry,
      );
    }
  }
  if (!holds) return;

  if (limits.pendingPerClient > 0) {
    const expiries = await repo.pendingExpiries(db, shopId, client, now);
    if (expiries.length >= limits.pendingPerClient) {
      const retry = secondsUntil(Math.min(...expiries), now);
      throw new RateLimitedError(
        `Too many unpaid orders: this shop allows ${limits.pendingPerClient} per client (pendingPerClient). ` +
          `Pay or cancel one, or try again in ${waitText(retry)}, when the earliest expires.`,
        retry,
      );
    }
  }

  if (limits.unitsPerClient > 0) {
    const ordered = new Map<number, { first: HeldPart; units: number }>();
    for (const part of order.parts) {
      const entry = ordered.get(part.productId);
      if (entry) entry.units += part.quantity;
      else ordered.set(part.productId, { first: part, units: part.quantity });
    }
    const held = await repo.unitsHeld(db, shopId, client, [...ordered.keys()], now);
    const problems: string[] = [];
    for (const [productId, { first, units }] of ordered) {
      const already = held.get(productId) ?? 0;
      if (already + units > limits.unitsPerClient) {
        problems.push(
          `parts[${first.index}].quantity: one client may hold at most ${limits.unitsPerClient} units of this product ` +
            `in unpaid orders (unitsPerClient)${already > 0 ? `; ${already} are held already` : ''}`,
        );
      }
    }
    if (problems.length > 0)
      throw new UnprocessableError('This order holds more units than this shop allows one client.', problems);
  }
}
