import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Context } from '../../domain/context.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../http/errors.js';
import { toIso } from '../../schemas/common.js';
import type { ApiKeyRow } from './accounts.table.js';
import * as repo from './repository.js';

type Conn = Kysely<Database>;

export const scopes = ['read', 'write'] as const;
/** Active (not revoked) API keys an account may hold; creating one more is a 409. */
export const MAX_ACTIVE_KEYS_PER_ACCOUNT = 25;
export type Scope = (typeof scopes)[number];

const KEY_PREFIX = 'shopd_';
const EMAIL = /^[^\s@]+@[^\s@]+$/;
/** `api_keys.last_used_at` is written at most this often per key: a request is not a write each time. */
const KEY_TOUCH_EVERY_MS = 60_000;

/**
 * What an authenticated owner request carries: an API key (`keyId`, its own scopes) or a web
 * admin session (`sessionId`, both scopes); exactly one of the two ids is set.
 */
export interface Principal {
  accountId: number;
  keyId: number | null;
  sessionId: number | null;
  scopes: ReadonlySet<Scope>;
}

export interface ApiKeyView {
  id: number;
  prefix: string;
  label: string | null;
  scopes: Scope[];
  createdAt: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

function parseScopes(stored: string): Scope[] {
  return stored.split(',').filter((s): s is Scope => (scopes as readonly string[]).includes(s));
}

function toView(row: ApiKeyRow): ApiKeyView {
  return {
    id: row.id,
    prefix: row.prefix,
    label: row.label,
    scopes: parseScopes(row.scopes),
    createdAt: toIso(row.created_at),
    revokedAt: toIso(row.revoked_at),
    lastUsedAt: toIso(row.last_used_at),
  };
}

export function normaliseEmail(email: string): string {
  const normalised = email.trim().toLowerCase();
  if (!EMAIL.test(normalised) || normalised.length > 254)
    throw ValidationError.field('email', 'must be an e-mail address');
  return normalised;
}

/** A new key row of the account; the key is returned once here and stored only as its SHA-256. */
async function insertKey(db: Conn, accountId: number, granted: readonly Scope[], label: string | null, now: number) {
  // A random 256-bit key needs no slow hash.
  const key = KEY_PREFIX + randomBytes(32).toString('base64url');
  const row = await repo.insertApiKey(db, {
    accountId,
    keyHash: hashApiKey(key),
    prefix: key.slice(0, KEY_PREFIX.length + 6),
    scopes: scopes.filter((s) => granted.includes(s)).join(','),
    label,
    now,
  });
  return { key, view: toView(row) };
}

/** Creates a key for the account with this e-mail, creating the account if needed (the CLI, the seed). */
export async function createApiKey(
  ctx: Context,
  input: { email: string; scopes?: Scope[] },
): Promise<{ accountId: number; key: string; view: ApiKeyView }> {
  return ctx.db.transaction().execute((trx) => keyForEmail(trx, input, ctx.clock.now()));
}

/** createApiKey inside the caller's transaction (`ctx.db`). */
export function issueApiKey(
  ctx: Context,
  input: { email: string; scopes?: Scope[] },
): Promise<{ accountId: number; key: string; view: ApiKeyView }> {
  return keyForEmail(ctx.db, input, ctx.clock.now());
}

async function keyForEmail(
  trx: Conn,
  input: { email: string; scopes?: Scope[] },
  now: number,
): Promise<{ accountId: number; key: string; view: ApiKeyView }> {
  const email = normaliseEmail(input.email);
  const granted = input.scopes && input.scopes.length > 0 ? input.scopes : scopes;
  const account = (await repo.findAccountByEmail(trx, email)) ?? (await repo.insertAccount(trx, email, now));
  return { accountId: account.id, ...(await insertKey(trx, account.id, granted, null, now)) };
}

export async function listApiKeys(ctx: Context, email: string): Promise<ApiKeyView[]> {
  const account = await repo.findAccountByEmail(ctx.db, normaliseEmail(email));
  if (!account) throw new NotFoundError('Account');
  return (await repo.listApiKeys(ctx.db, account.id)).map(toView);
}

/** Revokes any account's key (the CLI's `keys revoke`, run by the operator). */
export async function revokeApiKey(ctx: Context, keyId: number): Promise<ApiKeyView> {
  const row = await repo.revokeApiKey(ctx.db, keyId, ctx.clock.now());
  if (!row) throw new NotFoundError('Active API key');
  return toView(row);
}

/** The caller's account's keys, revoked ones included, newest first. */
export async function accountKeys(ctx: Context, principal: Principal): Promise<ApiKeyView[]> {
  return (await repo.listApiKeys(ctx.db, principal.accountId, 'desc')).map(toView);
}

/**
 * A new key of the caller's account. It gets the scopes asked for, or when none are, every scope
 * the caller holds; a caller may not grant a scope it lacks itself (a write-only key cannot make a
 * read key): 403.
 */
export async function createAccountKey(
  ctx: Context,
  principal: Principal,
  input: { label?: string | null; scopes?: Scope[] | null },
): Promise<ApiKeyView & { key: string }> {
  const asked = input.scopes && input.scopes.length > 0 ? input.scopes : [...principal.scopes];
  const lacking = asked.find((s) => !principal.scopes.has(s));
  if (lacking) throw new ForbiddenError(`This API key lacks the "${lacking}" scope, so it cannot grant it.`);
  const label = input.label?.trim() || null;
  return ctx.db.transaction().execute(async (trx) => {
    await repo.lockAccount(trx, principal.accountId);
    // The owner rate limit counts per key: the number of keys bounds what an account can send.
    if ((await repo.countActiveApiKeys(trx, principal.accountId)) >= MAX_ACTIVE_KEYS_PER_ACCOUNT)
      throw new ConflictError(
        `An account has at most ${MAX_ACTIVE_KEYS_PER_ACCOUNT} active API keys; revoke one before creating another.`,
      );
    const { key, view } = await insertKey(trx, principal.accountId, asked, label, ctx.clock.now());
    return { ...view, key };
  });
}

/** Revokes a key of the caller's account; another account's key is a 404, like one that does not exist. */
export async function revokeAccountKey(ctx: Context, principal: Principal, keyId: number): Promise<ApiKeyView> {
  const row = await repo.revokeApiKey(ctx.db, keyId, ctx.clock.now(), principal.accountId);
  if (!row) throw new NotFoundError('Active API key');
  return toView(row);
}

/**
 * The principal behind a raw key, or undefined when the key is unknown or revoked. Notes the use
 * in `last_used_at` when the stored one is a minute old or more: one small write per key and
 * minute, not one per request.
 */
export async function authenticateApiKey(ctx: Context, key: string): Promise<Principal | undefined> {
  const { db } = ctx;
  const row = await repo.findActiveApiKey(db, hashApiKey(key));
  if (!row) return undefined;
  const now = ctx.clock.now();
  const staleFrom = now - KEY_TOUCH_EVERY_MS;
  // Advisory: a busy database failing this write must not fail the request it authenticates.
  if (row.last_used_at === null || row.last_used_at <= staleFrom)
    await repo.touchApiKey(db, row.id, now, staleFrom).catch(() => undefined);
  return { accountId: row.account_id, keyId: row.id, sessionId: null, scopes: new Set(parseScopes(row.scopes)) };
}
