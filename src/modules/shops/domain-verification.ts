import { randomBytes } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Context } from '../../domain/context.js';
import { ConflictError, UnprocessableError } from '../../http/errors.js';
import { toIso } from '../../schemas/common.js';
import * as repo from './repository.js';
import type { ShopRow } from './shops.table.js';

/**
 * Proof that a custom domain is the owner's (issue 36, M3): the TXT record
 * `_shopd-verify.<domain>` holds the shop's token. Until it is found, /tls-ask refuses the domain
 * (no certificate, so no https storefront there), so nobody can point a name they do not control
 * at this server and have it served. The check asks the resolvers of `DNS_SERVERS` (else the
 * system's) with node:dns; once found, the time is kept and /tls-ask asks DNS no more.
 */

/** The label the TXT record lives under. */
export const VERIFY_LABEL = '_shopd-verify';
/** How long one DNS question may take: /tls-ask holds a TLS handshake meanwhile. */
const DNS_TIMEOUT_MS = 3000;

/** A fresh token: what the owner puts in the TXT record. */
export function newDomainToken(): string {
  return `shopd-verify=${randomBytes(18).toString('base64url')}`;
}

/** What the owner reads of the domain's verification (null without a custom domain). */
export function domainVerificationView(
  row: Pick<ShopRow, 'custom_domain' | 'custom_domain_token' | 'custom_domain_verified_at'>,
) {
  if (row.custom_domain === null) return null;
  return {
    record: `${VERIFY_LABEL}.${row.custom_domain}`,
    type: 'TXT' as const,
    value: row.custom_domain_token,
    verified: row.custom_domain_verified_at !== null,
    verifiedAt: toIso(row.custom_domain_verified_at),
  };
}

/** The TXT strings of `name` (each record's chunks joined), none when it has none or DNS fails. */
async function txtRecords(servers: readonly string[], name: string): Promise<string[]> {
  const resolver = new Resolver({ timeout: DNS_TIMEOUT_MS, tries: 1 });
  if (servers.length > 0) resolver.setServers([...servers]);
  try {
    return (await resolver.resolveTxt(name)).map((chunks) => chunks.join(''));
  } catch {
    // NXDOMAIN, no TXT, timeout, refused: not verified, and the owner is told what to create.
    return [];
  }
}

/**
 * Asks DNS whether the shop's domain carries its token; when it does, keeps the time and answers
 * the updated row. A shop whose domain or token changed meanwhile is left alone (the write names
 * both), so a late answer never verifies a domain the shop no longer has.
 */
export async function checkDomain(ctx: Context, shop: ShopRow): Promise<ShopRow | undefined> {
  const { custom_domain: domain, custom_domain_token: token } = shop;
  if (domain === null || token === null) return undefined;
  const found = (await txtRecords(ctx.config.dnsServers, `${VERIFY_LABEL}.${domain}`)).some(
    (value) => value.trim() === token,
  );
  if (!found) return undefined;
  return markVerified(ctx.db, shop, ctx.clock.now());
}

async function markVerified(db: Kysely<Database>, shop: ShopRow, now: number): Promise<ShopRow | undefined> {
  return db
    .updateTable('shops')
    .set({ custom_domain_verified_at: now, updated_at: now })
    .where('id', '=', shop.id)
    .where('custom_domain', '=', shop.custom_domain)
    .where('custom_domain_token', '=', shop.custom_domain_token)
    .returningAll()
    .executeTakeFirst();
}

/**
 * The owner's "check now": the shop as it is after the check. 409 without a custom domain; 422
 * naming the record when DNS does not show the token (nothing changes).
 */
export async function verifyCustomDomain(ctx: Context, shop: ShopRow): Promise<ShopRow> {
  if (shop.custom_domain === null)
    throw new ConflictError('This shop has no custom domain to verify.', [
      'domain: set one with settings/domain first',
    ]);
  if (shop.custom_domain_verified_at !== null) return shop;
  const verified = await checkDomain(ctx, shop);
  if (verified) return verified;
  throw new UnprocessableError('The verification record was not found.', [
    `domain: no TXT record ${VERIFY_LABEL}.${shop.custom_domain} holding ${shop.custom_domain_token} was found; DNS changes may take a while to show`,
  ]);
}

/**
 * /tls-ask asks DNS about an unverified domain at most once a minute per domain and token (every
 * TLS handshake for the name asks /tls-ask, and each DNS question may hold it 3 s): a miss is
 * remembered that long, and simultaneous asks share one question. The owner's "check now" always
 * asks. Per process, at most MAX_MISSES domains remembered (the oldest forgotten first).
 */
const RECHECK_MS = 60_000;
const MAX_MISSES = 10_000;
const misses = new Map<string, number>();
const asking = new Map<string, Promise<boolean>>();

/** Whether the domain is a shop's verified custom domain, verified on the way when DNS now shows the token (for /tls-ask). */
export async function verifiedShopOfDomain(ctx: Context, domain: string): Promise<boolean> {
  const shop = await repo.findShopByDomain(ctx.db, domain);
  if (!shop) return false;
  if (shop.custom_domain_verified_at !== null) return true;
  const key = `${shop.custom_domain}\n${shop.custom_domain_token}`;
  const missedAt = misses.get(key);
  if (missedAt !== undefined && ctx.clock.now() - missedAt < RECHECK_MS) return false;
  let question = asking.get(key);
  if (!question) {
    question = checkDomain(ctx, shop)
      .then((verified) => verified !== undefined)
      .finally(() => asking.delete(key));
    asking.set(key, question);
  }
  const verified = await question;
  misses.delete(key);
  if (!verified) {
    if (misses.size >= MAX_MISSES) misses.delete(misses.keys().next().value!);
    misses.set(key, ctx.clock.now());
  }
  return verified;
}
