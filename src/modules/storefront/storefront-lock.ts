import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { PasswordGuesser } from '../../http/auth-failures.js';
import { ForbiddenError } from '../../http/errors.js';
import { verifyPassword } from '../../security/passwords.js';
import type { ShopRow } from '../shops/index.js';
import { requireShop } from '../shops/index.js';

/**
 * The storefront password (contract section 9). Checking a scrypt hash costs ~50 ms, too much
 * for every page a visitor opens, so successful checks are remembered in-process. An entry is
 * keyed by shop, the stored hash and sha256(key): a new password has a new hash (fresh salt), so
 * changing or removing it retires every remembered key without any invalidation step. Failures
 * are not remembered: a wrong key always pays the full cost.
 */
export class UnlockedKeys {
  private readonly entries = new Set<string>();

  constructor(private readonly capacity = 5000) {}

  static entry(shop: Pick<ShopRow, 'id' | 'password_hash'>, key: string): string {
    return `${shop.id}\n${shop.password_hash}\n${createHash('sha256').update(key).digest('base64url')}`;
  }

  has(entry: string): boolean {
    if (!this.entries.has(entry)) return false;
    // Move to the back: the set's insertion order is the eviction order (least recently used first).
    this.entries.delete(entry);
    this.entries.add(entry);
    return true;
  }

  add(entry: string): void {
    this.entries.delete(entry);
    this.entries.add(entry);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.values().next().value!);
  }

  get size(): number {
    return this.entries.size;
  }
}

/** Whether `key` is a remembered right key of this password hash: no comparison, no guess counted. */
export function keyRemembered(
  passwordHash: string,
  key: string | undefined,
  shopId: number,
  unlocked: UnlockedKeys,
): boolean {
  return (
    key !== undefined &&
    key !== '' &&
    unlocked.has(UnlockedKeys.entry({ id: shopId, password_hash: passwordHash }, key))
  );
}

/**
 * Whether `key` opens a shop with this password hash (none: always). A key not remembered is a
 * guess: counted against the client's and the shop's budgets before it is compared (a 429 past
 * either, src/http/auth-failures.ts), and given back when right.
 */
export async function keyOpens(
  passwordHash: string | null,
  key: string | undefined,
  shopId: number,
  unlocked: UnlockedKeys,
  guesser: PasswordGuesser,
): Promise<boolean> {
  if (passwordHash === null) return true;
  if (key === undefined || key === '') return false;
  const entry = UnlockedKeys.entry({ id: shopId, password_hash: passwordHash }, key);
  if (unlocked.has(entry)) return true;
  await guesser.limits.take(shopId, guesser.ip);
  if (!(await verifyPassword(key, passwordHash))) return false;
  await guesser.limits.succeeded(shopId, guesser.ip);
  unlocked.add(entry);
  return true;
}

/** The shop behind a public page: 404 when unknown, 403 shop_locked when its password is not given. */
export async function openStorefront(
  db: Kysely<Database>,
  shopId: number,
  key: string | undefined,
  unlocked: UnlockedKeys,
  guesser: PasswordGuesser,
): Promise<ShopRow> {
  const shop = await requireShop(db, shopId);
  if (!(await keyOpens(shop.password_hash, key, shop.id, unlocked, guesser)))
    throw new ForbiddenError('This shop is protected by a password.', 'shop_locked');
  return shop;
}
