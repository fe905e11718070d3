import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Context } from '../../domain/context.js';
import type { AuthFailureLimiter } from '../../http/auth-failures.js';
import { clientNet } from '../../http/client-net.js';
import { AppError, RateLimitedError } from '../../http/errors.js';
import { buyerLang } from '../../i18n/lang.js';
import { toIso } from '../../schemas/common.js';
import { fromMinorUnits } from '../../schemas/money.js';
import type { SecretBox } from '../../security/secret-box.js';
import type { Locale } from '../../shared/locales.js';
import { buyerBalance } from '../customers/index.js';
import { enqueueMail, signInCodeMail } from '../mail/index.js';
import { customerInvoices } from '../orders/index.js';
import type { ShopRow } from '../shops/index.js';
import * as repo from './repository.js';
import type { SignInLimits } from './sign-in-limits.js';

type Conn = Kysely<Database>;

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/** How long a mailed code works. */
export const CODE_MINUTES = 15;
/** Tries a code has, the right one included: after 5 wrong ones it is dead. */
export const MAX_CODE_ATTEMPTS = 5;
/** How long a session lasts from sign-in (not extended by use). */
export const SESSION_DAYS = 30;
/** An e-mail's code rows older than this are removed when it asks for a new one. */
const CODE_ROWS_KEPT_MS = DAY;
/** `last_used_at` is written at most this often per session: a read of the account is not a write each time. */
const TOUCH_EVERY_MS = 5 * MINUTE;
/** A session token: 32 random bytes, base64url. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** A signed-in buyer: one session of one shop. */
export interface CustomerSession {
  id: number;
  shopId: number;
  /** Lower-case: the address the sign-in code was mailed to. */
  email: string;
  expiresAt: number;
}

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const normalised = (email: string) => email.trim().toLowerCase();

/**
 * The one answer to every refused code, whatever the reason (no code was sent to this address,
 * the code is wrong, expired, used or out of tries): the answer tells a guesser nothing.
 */
function refusedCode(): AppError {
  return new AppError(401, 'unauthorized', 'This code is wrong, has expired or was used up; ask for a new one.', [
    'code: is wrong, expired or used up',
  ]);
}

/**
 * Mails a new 6-digit sign-in code (crypto random, valid CODE_MINUTES, MAX_CODE_ATTEMPTS tries)
 * to the address, through the outbox in the transaction that stores its hash. The answer is the
 * same whether or not the shop has a customer with that address: nobody learns who buys here.
 * Limited per address and per client (sign-in-limits.ts): past either, a 429 and nothing sent.
 */
export async function sendSignInCode(
  ctx: Context,
  limits: SignInLimits,
  shop: ShopRow,
  /** `locale`: the language of the page or client that asked (the mail's); absent or null: the shop's. */
  input: { email: string; ip: string; locale?: Locale | null },
): Promise<{ email: string; codeValidMinutes: number }> {
  const email = normalised(input.email);
  await limits.take(shop.id, email, input.ip);
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (trx) => {
    await repo.dropOldCodes(trx, shop.id, email, now - CODE_ROWS_KEPT_MS);
    await repo.insertCode(trx, {
      shop_id: shop.id,
      email,
      code_hash: sha256(code),
      expires_at: now + CODE_MINUTES * MINUTE,
      used_at: null,
      created_at: now,
    });
    await enqueueMail(
      trx,
      shop.id,
      {
        to: email,
        ...signInCodeMail({ lang: buyerLang(input.locale, shop), shopName: shop.name, code, minutes: CODE_MINUTES }),
      },
      now,
      { client: clientNet(input.ip) },
    );
  });
  return { email, codeValidMinutes: CODE_MINUTES };
}

/**
 * Trades a mailed code for a session token (answered once; only its sha256 is stored). Every try
 * counts against each live code of the address before any comparison, so parallel guesses get no
 * more tries than the codes have; the hashes are compared in constant time, all of them. A
 * refused code is a 401 that says nothing more (refusedCode) and counts as a failed
 * authentication of the client (src/http/auth-failures.ts: past that limit, 429 until the window
 * ends). The code used and the address's other unused codes are spent with the session's creation.
 */
export async function startSession(
  ctx: Context,
  shop: ShopRow,
  input: { email: string; code: string; ip: string },
  failures: AuthFailureLimiter | null,
): Promise<{ token: string; email: string; expiresAt: string }> {
  const { db } = ctx;
  const now = ctx.clock.now();
  const email = normalised(input.email);
  const blockedFor = failures ? await failures.blockedFor(input.ip) : null;
  if (blockedFor !== null)
    throw new RateLimitedError(`Too many wrong sign-in codes from this address; retry in ${blockedFor} s.`, blockedFor);
  const given = Buffer.from(sha256(input.code), 'hex');
  const live = await repo.takeAttempt(db, shop.id, email, MAX_CODE_ATTEMPTS, now);
  let match: number | undefined;
  for (const row of live) {
    const stored = Buffer.from(row.code_hash, 'hex');
    if (stored.length === given.length && timingSafeEqual(stored, given)) match = row.id;
  }
  const opened = match !== undefined && (await openSession(db, shop.id, email, match, now));
  if (!opened) {
    await failures?.recordFailure(input.ip);
    throw refusedCode();
  }
  return { token: opened.token, email, expiresAt: toIso(opened.expiresAt) };
}

/** Spends the code and the address's other unused ones, and stores the new session; false when a parallel request used the code first. */
async function openSession(db: Conn, shopId: number, email: string, codeId: number, now: number) {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = now + SESSION_DAYS * DAY;
  return db.transaction().execute(async (trx) => {
    // Not among those spent now: a parallel request with the same code opened its session first.
    if (!(await repo.spendCodes(trx, shopId, email, now)).includes(codeId)) return false;
    await repo.dropExpiredSessions(trx, shopId, email, now);
    await repo.insertSession(trx, {
      shop_id: shopId,
      email,
      token_hash: sha256(token),
      created_at: now,
      expires_at: expiresAt,
      last_used_at: now,
    });
    return { token, expiresAt };
  });
}

/** The live session of this shop that the token opens, or null (unknown, expired, another shop's, malformed). */
export async function findSession(ctx: Context, shopId: number, token: string): Promise<CustomerSession | null> {
  if (!TOKEN.test(token)) return null;
  const { db } = ctx;
  const now = ctx.clock.now();
  const row = await repo.findSessionByHash(db, shopId, sha256(token));
  if (!row || row.expires_at <= now) return null;
  if (now - row.last_used_at >= TOUCH_EVERY_MS) await repo.touchSession(db, shopId, row.id, now);
  return { id: row.id, shopId: row.shop_id, email: row.email, expiresAt: row.expires_at };
}

/** Signs out: the session's token opens nothing from now on. */
export async function endSession(ctx: Context, shopId: number, sessionId: number): Promise<void> {
  await repo.deleteSession(ctx.db, shopId, sessionId);
}

/**
 * The signed-in buyer's account in a shop: the address, the store balance in the shop currency
 * (0 before the first order) and one page of their own invoices of this shop, newest first.
 */
export async function customerAccount(
  ctx: Context,
  secrets: SecretBox,
  shop: ShopRow,
  email: string,
  page: { pageNumber: number; pageSize: number; cursor?: string | undefined },
) {
  const buyer = await buyerBalance(ctx, shop.id, email);
  const orders = await customerInvoices(ctx, secrets, shop, buyer?.customerId ?? null, page);
  return {
    email,
    balance: fromMinorUnits(buyer?.balance ?? 0, shop.currency),
    currency: shop.currency,
    orders,
  };
}

/**
 * Removes what can open nothing any more, in every shop: code rows older than a day (a code
 * lives 15 minutes) and expired sessions. Run hourly beside the idempotency-key sweep; a row
 * missed by a stopped server is refused all the same (expiry is checked on every use).
 */
export function sweepCustomerSessions(db: Conn, now: number): Promise<number> {
  return repo.sweepDeadRows(db, now - CODE_ROWS_KEPT_MS, now);
}

/**
 * A session for an address the caller has already verified by other means, without a code: for
 * in-process callers only (the demo seed pays an order from a demo customer's balance). No route
 * reaches it.
 */
export async function openTrustedSession(ctx: Context, shopId: number, email: string) {
  const token = randomBytes(32).toString('base64url');
  const now = ctx.clock.now();
  await repo.insertSession(ctx.db, {
    shop_id: shopId,
    email: normalised(email),
    token_hash: sha256(token),
    created_at: now,
    expires_at: now + SESSION_DAYS * DAY,
    last_used_at: now,
  });
  return token;
}
