import type { Insertable, Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { containsText, searchText } from '../../db/sql-helpers.js';
import { type KeysetPosition, pageOf } from '../../http/pagination.js';
import type {
  AppealStatus,
  FeedbackAppealRow,
  FeedbackAppealsTable,
  FeedbackRow,
  FeedbacksTable,
} from './feedbacks.table.js';

type Conn = Kysely<Database>;

export function findFeedback(db: Conn, shopId: number, feedbackId: number): Promise<FeedbackRow | undefined> {
  return db
    .selectFrom('feedbacks')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('id', '=', feedbackId)
    .executeTakeFirst();
}

export function findFeedbackOfInvoice(db: Conn, shopId: number, invoiceId: string): Promise<FeedbackRow | undefined> {
  return db
    .selectFrom('feedbacks')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('invoice_id', '=', invoiceId)
    .executeTakeFirst();
}

/** The feedbacks left on these invoices (at most one each), with what an invoice's owner view shows of them. */
export function listFeedbacksOfInvoices(db: Conn, shopId: number, invoiceIds: string[]) {
  return db
    .selectFrom('feedbacks')
    .select(['id', 'invoice_id', 'rating', 'comment', 'answer', 'created_at'])
    .where('shop_id', '=', shopId)
    .where('invoice_id', 'in', invoiceIds)
    .execute();
}

/** Inserts a feedback; the unique index on invoice_id refuses a second one for the same invoice. */
export function insertFeedback(db: Conn, row: Insertable<FeedbacksTable>): Promise<FeedbackRow> {
  return db.insertInto('feedbacks').values(row).returningAll().executeTakeFirstOrThrow();
}

export function setFeedbackAnswer(
  db: Conn,
  shopId: number,
  feedbackId: number,
  answer: string,
  now: number,
): Promise<FeedbackRow | undefined> {
  return db
    .updateTable('feedbacks')
    .set({ answer, answered_at: now, updated_at: now })
    .where('shop_id', '=', shopId)
    .where('id', '=', feedbackId)
    .returningAll()
    .executeTakeFirst();
}

/** Moves the feedback left on an invoice to another time (its creation and last change). */
export async function moveFeedbackInTime(db: Conn, shopId: number, invoiceId: string, at: number): Promise<void> {
  await db
    .updateTable('feedbacks')
    .set({ created_at: at, updated_at: at })
    .where('shop_id', '=', shopId)
    .where('invoice_id', '=', invoiceId)
    .execute();
}

export interface FeedbackFilter {
  rating?: number | undefined;
  search?: string | undefined;
}

function filteredFeedbacks(db: Conn, shopId: number, f: FeedbackFilter) {
  let query = db.selectFrom('feedbacks').where('shop_id', '=', shopId);
  if (f.rating !== undefined) query = query.where('rating', '=', f.rating);
  const search = f.search;
  if (search)
    query = query.where(searchText(db, 'feedbacks', 'feedbacks', ['comment', 'answer', 'invoice_id'], search));
  return query;
}

/** Newest first; after a keyset position when given, else from the offset. */
export function listFeedbacks(
  db: Conn,
  shopId: number,
  filter: FeedbackFilter,
  page: { limit: number; offset: number; after?: KeysetPosition | undefined },
): Promise<FeedbackRow[]> {
  return pageOf(
    filteredFeedbacks(db, shopId, filter).selectAll(),
    { sortColumn: 'created_at', idColumn: 'id' },
    page,
  ).execute();
}

export async function countFeedbacks(db: Conn, shopId: number, filter: FeedbackFilter): Promise<number> {
  const row = await filteredFeedbacks(db, shopId, filter)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The appeals of these feedbacks, newest first (the first one per feedback is its latest). */
export function listAppealsOfFeedbacks(db: Conn, shopId: number, feedbackIds: number[]): Promise<FeedbackAppealRow[]> {
  if (feedbackIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('feedback_appeals')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('feedback_id', 'in', feedbackIds)
    .orderBy('id', 'desc')
    .execute();
}

export function findOpenAppeal(db: Conn, shopId: number, feedbackId: number): Promise<FeedbackAppealRow | undefined> {
  return db
    .selectFrom('feedback_appeals')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('feedback_id', '=', feedbackId)
    .where('status', '=', 'open')
    .executeTakeFirst();
}

/** Inserts an appeal; the partial unique index refuses a second open one for the same feedback. */
export function insertAppeal(db: Conn, row: Insertable<FeedbackAppealsTable>): Promise<FeedbackAppealRow> {
  return db.insertInto('feedback_appeals').values(row).returningAll().executeTakeFirstOrThrow();
}

export interface AppealFilter {
  status?: AppealStatus | undefined;
  search?: string | undefined;
}

function filteredAppeals(db: Conn, shopId: number, f: AppealFilter) {
  let query = db.selectFrom('feedback_appeals').where('shop_id', '=', shopId);
  if (f.status) query = query.where('status', '=', f.status);
  if (f.search) query = query.where(containsText('description', f.search));
  return query;
}

/** One page of the shop's appeals, newest first. */
export function listAppeals(
  db: Conn,
  shopId: number,
  filter: AppealFilter,
  page: { limit: number; offset: number },
): Promise<FeedbackAppealRow[]> {
  return filteredAppeals(db, shopId, filter)
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
}

export async function countAppeals(db: Conn, shopId: number, filter: AppealFilter): Promise<number> {
  const row = await filteredAppeals(db, shopId, filter)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/*
 * The operator's side of appeals (the `shopd appeals` command): an appeal is found by its id
 * alone, like a public invoice, and its shop is carried into every query after that.
 */

/** An appeal by id, with its shop and its feedback's rating and comment, for the operator. */
export function findAppealById(db: Conn, appealId: number) {
  return appealsWithFeedback(db).where('a.id', '=', appealId).executeTakeFirst();
}

/** Every shop's appeals, optionally of one status, oldest first (the order to review them in). */
export function listAppealsOfAllShops(db: Conn, status: AppealStatus | undefined) {
  let query = appealsWithFeedback(db);
  if (status) query = query.where('a.status', '=', status);
  return query.orderBy('a.created_at').orderBy('a.id').execute();
}

function appealsWithFeedback(db: Conn) {
  return db
    .selectFrom('feedback_appeals as a')
    .innerJoin('feedbacks as f', (join) =>
      join.onRef('f.id', '=', 'a.feedback_id').onRef('f.shop_id', '=', 'a.shop_id'),
    )
    .select([
      'a.id',
      'a.shop_id',
      'a.feedback_id',
      'a.reason',
      'a.description',
      'a.status',
      'a.created_at',
      'a.resolved_at',
      'f.rating',
      'f.comment',
      'f.created_at as feedback_created_at',
    ]);
}

/** Moves an open appeal to its outcome; false when it was no longer open (resolved meanwhile). */
export async function resolveOpenAppeal(
  db: Conn,
  shopId: number,
  appealId: number,
  outcome: Exclude<AppealStatus, 'open'>,
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('feedback_appeals')
    .set({ status: outcome, resolved_at: now })
    .where('shop_id', '=', shopId)
    .where('id', '=', appealId)
    .where('status', '=', 'open')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Whether an accepted appeal (other than `exceptAppealId`) already hides the feedback. */
export async function isWithdrawn(
  db: Conn,
  shopId: number,
  feedbackId: number,
  exceptAppealId?: number,
): Promise<boolean> {
  let query = db
    .selectFrom('feedback_appeals')
    .select('id')
    .where('shop_id', '=', shopId)
    .where('feedback_id', '=', feedbackId)
    .where('status', '=', 'accepted');
  if (exceptAppealId !== undefined) query = query.where('id', '<>', exceptAppealId);
  return (await query.executeTakeFirst()) !== undefined;
}
