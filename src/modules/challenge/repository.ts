import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

type Conn = Kysely<Database>;

/** Actions of this client in this shop since `since`, counted up to `cap` (no more are read). */
export async function countActions(
  db: Conn,
  shopId: number,
  clientNet: string,
  since: number,
  cap: number,
): Promise<number> {
  const rows = await db
    .selectFrom('challenge_actions')
    .select('created_at')
    .where('shop_id', '=', shopId)
    .where('client_net', '=', clientNet)
    .where('created_at', '>', since)
    .limit(cap)
    .execute();
  return rows.length;
}

export async function insertAction(db: Conn, shopId: number, clientNet: string, at: number): Promise<void> {
  await db.insertInto('challenge_actions').values({ shop_id: shopId, client_net: clientNet, created_at: at }).execute();
}

/** Marks a solution spent; false when it was spent before. */
export async function spendSolution(db: Conn, shopId: number, nonce: string, expiresAt: number): Promise<boolean> {
  const result = await db
    .insertInto('challenge_solutions')
    .values({ shop_id: shopId, nonce, expires_at: expiresAt })
    .onConflict((oc) => oc.columns(['shop_id', 'nonce']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) === 1;
}

export async function deleteActionsBefore(db: Conn, before: number): Promise<number> {
  const result = await db.deleteFrom('challenge_actions').where('created_at', '<=', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function deleteSolutionsBefore(db: Conn, before: number): Promise<number> {
  const result = await db.deleteFrom('challenge_solutions').where('expires_at', '<=', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}
