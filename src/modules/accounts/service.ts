import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { NotFoundError, ValidationError } from '../../http/errors.js';
import type { ApiKeyRow } from './accounts.table.js';
import * as repo from './repository.js';

type Conn = Kysely<Database>;

export const scopes = ['read', 'write'] as const;
export type Scope = (typeof scopes)[number];

const KEY_PREFIX = 'shopd_';
const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** What an authenticated request carries. */
export interface Principal {
  accountId: number;
  keyId: number;
  scopes: ReadonlySet<Scope>;
}

export interface ApiKeyView {
  id: number;
  prefix: string;
  scopes: Scope[];
  createdAt: string;
  revokedAt: string | null;
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
    scopes: parseScopes(row.scopes),
    createdAt: new Date(row.created_at).toISOString(),
    revokedAt: row.revoked_at === null ? null : new Date(row.revoked_at).toISOString(),
  };
}

function normaliseEmail(email: string): string {
  const normalised = email.trim().toLowerCase();
  if (!EMAIL.test(normalised) || normalised.length > 254)
    throw ValidationError.field('email', 'must be an e-mail address');
  return normalised;
}

/**
 * Creates a key for the account with this e-mail, creating the account if needed. The key is
 * returned once here and stored only as its SHA-256 (a random 256-bit key needs no slow hash).
 */
export async function createApiKey(
  db: Conn,
  input: { email: string; scopes?: Scope[] },
): Promise<{ accountId: number; key: string; view: ApiKeyView }> {
  const email = normaliseEmail(input.email);
  const granted = input.scopes && input.scopes.length > 0 ? [...new Set(input.scopes)] : [...scopes];
  return db.transaction().execute(async (trx) => {
    const now = Date.now();
    const account = (await repo.findAccountByEmail(trx, email)) ?? (await repo.insertAccount(trx, email, now));
    const key = KEY_PREFIX + randomBytes(32).toString('base64url');
    const row = await repo.insertApiKey(trx, {
      accountId: account.id,
      keyHash: hashApiKey(key),
      prefix: key.slice(0, KEY_PREFIX.length + 6),
      scopes: scopes.filter((s) => granted.includes(s)).join(','),
      now,
    });
    return { accountId: account.id, key, view: toView(row) };
  });
}

export async function listApiKeys(db: Conn, email: string): Promise<ApiKeyView[]> {
  const account = await repo.findAccountByEmail(db, normaliseEmail(email));
  if (!account) throw new NotFoundError('Account');
  return (await repo.listApiKeys(db, account.id)).map(toView);
}

export async function revokeApiKey(db: Conn, keyId: number): Promise<ApiKeyView> {
  const row = await repo.revokeApiKey(db, keyId, Date.now());
  if (!row) throw new NotFoundError('Active API key');
  return toView(row);
}

/** The principal behind a raw key, or undefined when the key is unknown or revoked. */
export async function authenticateApiKey(db: Conn, key: string): Promise<Principal | undefined> {
  const row = await repo.findActiveApiKey(db, hashApiKey(key));
  if (!row) return undefined;
  return { accountId: row.account_id, keyId: row.id, scopes: new Set(parseScopes(row.scopes)) };
}

export const FIRST_OWNER_EMAIL = 'owner@localhost';

/** On an empty database, creates the first owner and returns its key (shown once); else undefined. */
export async function ensureFirstOwner(db: Conn): Promise<string | undefined> {
  if ((await repo.countAccounts(db)) > 0) return undefined;
  return (await createApiKey(db, { email: FIRST_OWNER_EMAIL })).key;
}
