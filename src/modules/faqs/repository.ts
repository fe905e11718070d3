import type { Insertable, Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { containsText } from '../../db/sql-helpers.js';
import type { FaqRow, FaqsTable } from './faqs.table.js';

type Conn = Kysely<Database>;

export function findFaq(db: Conn, shopId: number, faqId: number): Promise<FaqRow | undefined> {
  return db.selectFrom('faqs').selectAll().where('shop_id', '=', shopId).where('id', '=', faqId).executeTakeFirst();
}

/** The position after the shop's last FAQ (0 for the first one). */
export async function nextFaqPosition(db: Conn, shopId: number): Promise<number> {
  const row = await db
    .selectFrom('faqs')
    .select((eb) => eb.fn.max('position').as('last'))
    .where('shop_id', '=', shopId)
    .executeTakeFirst();
  const last = row?.last;
  return last === null || last === undefined ? 0 : Number(last) + 1;
}

export function insertFaq(db: Conn, row: Insertable<FaqsTable>): Promise<FaqRow> {
  return db.insertInto('faqs').values(row).returningAll().executeTakeFirstOrThrow();
}

export function updateFaq(
  db: Conn,
  shopId: number,
  faqId: number,
  patch: { question: string; answer: string; position: number },
  now: number,
): Promise<FaqRow | undefined> {
  return db
    .updateTable('faqs')
    .set({ ...patch, updated_at: now })
    .where('shop_id', '=', shopId)
    .where('id', '=', faqId)
    .returningAll()
    .executeTakeFirst();
}

export async function deleteFaq(db: Conn, shopId: number, faqId: number): Promise<number> {
  const result = await db.deleteFrom('faqs').where('shop_id', '=', shopId).where('id', '=', faqId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

function filtered(db: Conn, shopId: number, search: string | undefined) {
  let query = db.selectFrom('faqs').where('shop_id', '=', shopId);
  if (search) query = query.where((eb) => eb.or([containsText('question', search), containsText('answer', search)]));
  return query;
}

/** One page of the shop's FAQs in storefront order: position, then id. */
export function listFaqs(
  db: Conn,
  shopId: number,
  options: { search?: string | undefined; limit: number; offset: number },
): Promise<FaqRow[]> {
  return filtered(db, shopId, options.search)
    .selectAll()
    .orderBy('position')
    .orderBy('id')
    .limit(options.limit)
    .offset(options.offset)
    .execute();
}

export async function countFaqs(db: Conn, shopId: number, search: string | undefined): Promise<number> {
  const row = await filtered(db, shopId, search)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
