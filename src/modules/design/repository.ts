import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { DesignOverrides } from './design.table.js';

/** The stored design overrides of a shop (only what the owner has set), or an empty object. */
export async function findDesignOverrides(db: Kysely<Database>, shopId: number): Promise<DesignOverrides> {
  const row = await db.selectFrom('shop_designs').select('data').where('shop_id', '=', shopId).executeTakeFirst();
  return row ? (JSON.parse(row.data) as DesignOverrides) : {};
}

/** Writes the whole overrides object of a shop, creating its row on the first write. */
export async function saveDesignOverrides(
  db: Kysely<Database>,
  shopId: number,
  overrides: DesignOverrides,
  now: number,
): Promise<void> {
  const data = JSON.stringify(overrides);
  await db
    .insertInto('shop_designs')
    .values({ shop_id: shopId, data, updated_at: now })
    .onConflict((oc) => oc.column('shop_id').doUpdateSet({ data, updated_at: now }))
    .execute();
}
