import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

/** The stored design overrides of a shop (only what the owner has set), or an empty object. */
export async function findDesignOverrides(db: Kysely<Database>, shopId: number): Promise<Record<string, unknown>> {
  const row = await db.selectFrom('shop_designs').select('data').where('shop_id', '=', shopId).executeTakeFirst();
  return row ? (JSON.parse(row.data) as Record<string, unknown>) : {};
}
