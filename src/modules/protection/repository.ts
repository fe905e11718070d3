import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { ShopProtectionRow, ShopProtectionTable } from './protection.table.js';

type Conn = Kysely<Database>;

export async function findProtection(db: Conn, shopId: number): Promise<ShopProtectionRow | undefined> {
  return db.selectFrom('shop_protection').selectAll().where('shop_id', '=', shopId).executeTakeFirst();
}

/** Writes the shop's whole row, creating it on the first change. */
export async function saveProtection(db: Conn, row: ShopProtectionTable): Promise<void> {
  const { shop_id: _, ...changes } = row;
  await db
    .insertInto('shop_protection')
    .values(row)
    .onConflict((oc) => oc.column('shop_id').doUpdateSet(changes))
    .execute();
}
