import { type Insertable, type Kysely, sql } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { LicenseSigningKeyRow, LicenseSigningKeysTable } from './licenses.table.js';

// The shops' licence-token signing keys, `license_signing_keys` (signing.ts is their one user).

type Conn = Kysely<Database>;

/** The shop's current signing key (the one without `retired_at`). */
export function currentSigningKey(db: Conn, shopId: number): Promise<LicenseSigningKeyRow | undefined> {
  return db
    .selectFrom('license_signing_keys')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('retired_at', 'is', null)
    .executeTakeFirst();
}

/** Inserts a key unless the shop already has a current one (a concurrent first use): answers whether it did. */
export async function insertSigningKey(db: Conn, row: Insertable<LicenseSigningKeysTable>): Promise<boolean> {
  const result = await db
    .insertInto('license_signing_keys')
    .values(row)
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

export async function retireSigningKeys(db: Conn, shopId: number, now: number): Promise<void> {
  await db
    .updateTable('license_signing_keys')
    .set({ retired_at: now })
    .where('shop_id', '=', shopId)
    .where('retired_at', 'is', null)
    .execute();
}

/** The current key, then those retired after `retiredSince`, the most recently retired first. */
export function publishedSigningKeys(
  db: Conn,
  shopId: number,
  retiredSince: number,
): Promise<Pick<LicenseSigningKeyRow, 'kid' | 'public_jwk' | 'created_at' | 'retired_at'>[]> {
  return db
    .selectFrom('license_signing_keys')
    .select(['kid', 'public_jwk', 'created_at', 'retired_at'])
    .where('shop_id', '=', shopId)
    .where((eb) => eb.or([eb('retired_at', 'is', null), eb('retired_at', '>', retiredSince)]))
    .orderBy(sql`case when retired_at is null then 0 else 1 end`)
    .orderBy('retired_at', 'desc')
    .orderBy('created_at', 'desc')
    .orderBy('kid')
    .execute();
}

/** Every sealed private key of every shop (for `shopd secrets rotate` and the start-up check). */
export function allSealedSigningKeys(
  db: Conn,
): Promise<Pick<LicenseSigningKeyRow, 'shop_id' | 'kid' | 'sealed_private_key'>[]> {
  return db
    .selectFrom('license_signing_keys')
    .select(['shop_id', 'kid', 'sealed_private_key'])
    .orderBy('shop_id')
    .orderBy('created_at')
    .execute();
}

export async function resealSigningKey(db: Conn, shopId: number, kid: string, sealed: string): Promise<void> {
  await db
    .updateTable('license_signing_keys')
    .set({ sealed_private_key: sealed })
    .where('shop_id', '=', shopId)
    .where('kid', '=', kid)
    .execute();
}
