import { type Kysely, sql } from 'kysely';
import type { Database } from '../../db/schema.js';

type Conn = Kysely<Database>;

export const MINUTE_MS = 60_000;

/** Half-open interval of epoch milliseconds: `from` ≤ created_at < `until`. */
export interface Span {
  from: number;
  until: number;
}

/** Rows per INSERT: 5 parameters each, well under SQLite's 32,766 bound parameters. */
const VISITS_PER_INSERT = 1000;

/** A batch of aggregated views in one transaction. */
export async function insertVisits(
  db: Conn,
  visits: { shopId: number; visitor: string; page: string; at: number; views: number }[],
): Promise<void> {
  if (visits.length === 0) return;
  await db.transaction().execute(async (trx) => {
    for (let i = 0; i < visits.length; i += VISITS_PER_INSERT) {
      const rows = visits
        .slice(i, i + VISITS_PER_INSERT)
        .map((v) => ({ shop_id: v.shopId, visitor: v.visitor, page: v.page, views: v.views, created_at: v.at }));
      await trx.insertInto('visits').values(rows).execute();
    }
  });
}

/** Maintenance across every shop: visits are kept only for the real-time window. */
export async function pruneVisits(db: Conn, before: number): Promise<number> {
  const result = await db.deleteFrom('visits').where('created_at', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

function visitsIn(db: Conn, shopId: number, span: Span) {
  return db
    .selectFrom('visits')
    .where('shop_id', '=', shopId)
    .where('created_at', '>=', span.from)
    .where('created_at', '<', span.until);
}

/**
 * Visits per minute since the epoch. Integer division on both engines; the divisor is a literal
 * because better-sqlite3 binds JS numbers as REAL, which would make it a fraction.
 */
export async function visitsPerMinute(
  db: Conn,
  shopId: number,
  span: Span,
): Promise<{ minute: number; visits: number }[]> {
  const minute = sql<number>`(${sql.ref('created_at')} / ${sql.lit(MINUTE_MS)})`;
  const rows = await visitsIn(db, shopId, span)
    .select((eb) => [minute.as('minute'), eb.fn.sum<number>('views').as('visits')])
    .groupBy(minute)
    .execute();
  return rows.map((r) => ({ minute: Number(r.minute), visits: Number(r.visits) }));
}

export async function distinctVisitors(db: Conn, shopId: number, span: Span): Promise<number> {
  const row = await visitsIn(db, shopId, span)
    .select((eb) => eb.fn.count<number>('visitor').distinct().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function topPages(
  db: Conn,
  shopId: number,
  span: Span,
  limit: number,
): Promise<{ page: string; visits: number }[]> {
  const rows = await visitsIn(db, shopId, span)
    .select((eb) => ['page', eb.fn.sum<number>('views').as('visits')])
    .groupBy('page')
    .orderBy('visits', 'desc')
    .orderBy('page')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ page: r.page, visits: Number(r.visits) }));
}
