import type { Kysely } from 'kysely';
import { constraintViolation } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import type { Context } from '../../domain/context.js';
import { writeTransaction } from '../../domain/dispatcher.js';
import { domainEvents } from '../../domain/events.js';
import { ConflictError, NotFoundError } from '../../http/errors.js';
import { decodeCursor, keysetPage, pageWindow, toPage } from '../../http/pagination.js';
import { toIso } from '../../schemas/common.js';
import { type InvoiceFeedbacksReader, invoiceOfLink, productIdsOfInvoices } from '../orders/index.js';
import type { ShopRow } from '../shops/index.js';
import type { AppealStatus, FeedbackAppealRow, FeedbackRow } from './feedbacks.table.js';
import * as repo from './repository.js';
import type { AnswerBody, AppealBody, AppealListQuery, FeedbackBody, FeedbackListQuery } from './schema.js';
import { toAppealListItem, toOwnerFeedback, toPublicFeedback } from './views.js';

type Conn = Kysely<Database>;

/** Owner views of feedbacks of one shop, each with its products and latest appeal. */
async function ownerViews(db: Conn, shopId: number, rows: FeedbackRow[]) {
  const [products, appeals] = await Promise.all([
    productIdsOfInvoices(
      db,
      shopId,
      rows.map((f) => f.invoice_id),
    ),
    repo.listAppealsOfFeedbacks(
      db,
      shopId,
      rows.map((f) => f.id),
    ),
  ]);
  const latest = new Map<number, FeedbackAppealRow>();
  for (const appeal of appeals) if (!latest.has(appeal.feedback_id)) latest.set(appeal.feedback_id, appeal);
  return rows.map((f) => toOwnerFeedback(f, products.get(f.invoice_id) ?? [], latest.get(f.id)));
}

async function requireFeedback(db: Conn, shopId: number, feedbackId: number): Promise<FeedbackRow> {
  const feedback = await repo.findFeedback(db, shopId, feedbackId);
  if (!feedback) throw new NotFoundError('Feedback');
  return feedback;
}

/**
 * The feedbacks left on these invoices, for the owner's invoice views (the orders module's reader
 * of them, which the composition root gives it: orders cannot import this module, which builds on
 * them). Withdrawn ones too: the owner sees every feedback left.
 */
export const feedbacksOfInvoices: InvoiceFeedbacksReader = async (db, shopId, invoiceIds) => {
  if (invoiceIds.length === 0) return [];
  const rows = await repo.listFeedbacksOfInvoices(db, shopId, invoiceIds);
  return rows.map((f) => ({
    id: f.id,
    invoiceId: f.invoice_id,
    rating: f.rating,
    comment: f.comment,
    answer: f.answer,
    createdAt: f.created_at,
  }));
};

/** The public feedback left on this invoice, if any (the invoice page shows it instead of the form). */
export async function feedbackOfInvoice(ctx: Context, shopId: number, invoiceId: string) {
  const { db } = ctx;
  const feedback = await repo.findFeedbackOfInvoice(db, shopId, invoiceId);
  if (!feedback) return undefined;
  return toPublicFeedback(feedback, (await productIdsOfInvoices(db, shopId, [invoiceId])).get(invoiceId) ?? []);
}

const alreadyRated = () => new ConflictError('This invoice already has feedback.', ['invoiceId: already has feedback']);

/**
 * The customer rates a completed invoice, once. The invoice id (unguessable) is the only key;
 * its shop is then carried into every query. A pending (or expired, cancelled) invoice is a 409;
 * a second feedback is a 409, also when two arrive at once (the unique index on invoice_id
 * decides). The feedback and its `feedback.created` event are written in one transaction.
 */
export async function postFeedback(ctx: Context, invoiceId: string, body: FeedbackBody) {
  const { db } = ctx;
  const invoice = await invoiceOfLink(ctx, invoiceId);
  if (!invoice) throw new NotFoundError('Invoice');
  const { shopId } = invoice;
  if (invoice.status !== 'completed') {
    throw new ConflictError(`The invoice is ${invoice.status}; only completed invoices can be rated.`, [
      `invoiceId: is ${invoice.status}, not completed`,
    ]);
  }
  if (await repo.findFeedbackOfInvoice(db, shopId, invoice.id)) throw alreadyRated();
  const productIds = (await productIdsOfInvoices(db, shopId, [invoice.id])).get(invoice.id) ?? [];
  const comment = body.comment?.trim() || null;
  let feedback: FeedbackRow;
  try {
    feedback = await writeTransaction(ctx, async (tx) => {
      const now = ctx.clock.now();
      const row = await repo.insertFeedback(tx.db, {
        shop_id: shopId,
        invoice_id: invoice.id,
        customer_id: invoice.customerId,
        rating: body.rating,
        comment,
        created_at: now,
        updated_at: now,
      });
      await domainEvents.emit(tx, 'feedback.created', {
        feedback: { id: row.id, shopId, invoiceId: invoice.id, rating: row.rating, createdAt: row.created_at },
        webhook: {
          at: row.created_at,
          data: { feedbackId: row.id, invoiceId: invoice.id, productIds, rating: row.rating, comment },
        },
      });
      return row;
    });
  } catch (err) {
    if (constraintViolation(err) === 'unique') throw alreadyRated();
    throw err;
  }
  return toPublicFeedback(feedback, productIds);
}

/**
 * Moves the feedback left on an invoice to the time it was given, for imported or demo history
 * (see the orders module's history.service.ts): a buyer can rate only "now". What is derived
 * from its time (the storefront's feedback index, the dashboards' rollups) is not kept here: the
 * importer rebuilds it once the history is in place (`rebuildStorefrontTotals`, `rebuildRollups`).
 */
export function backdateFeedback(db: Conn, shopId: number, invoiceId: string, at: number): Promise<void> {
  return repo.moveFeedbackInTime(db, shopId, invoiceId, at);
}

/** Newest first, optionally of one rating; `cursor` (keyset) wins over `pageNumber`. */
export async function listFeedbacks(ctx: Context, shop: ShopRow, query: FeedbackListQuery) {
  const { db } = ctx;
  const filter = { rating: query.rating, search: query.searchString };
  const { limit, offset } = pageWindow(query);
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  const [rows, totalCount] = await Promise.all([
    repo.listFeedbacks(db, shop.id, filter, { limit: limit + 1, offset, after }),
    repo.countFeedbacks(db, shop.id, filter),
  ]);
  const { items, nextCursor } = keysetPage(rows, limit, (f) => ({ value: f.created_at, id: f.id }));
  return { ...toPage(await ownerViews(db, shop.id, items), totalCount, query), nextCursor };
}

export async function getFeedback(ctx: Context, shop: ShopRow, feedbackId: number) {
  const { db } = ctx;
  const [view] = await ownerViews(db, shop.id, [await requireFeedback(db, shop.id, feedbackId)]);
  return view!;
}

/** Sets the shop's public answer, replacing an earlier one. */
export async function answerFeedback(ctx: Context, shop: ShopRow, feedbackId: number, body: AnswerBody) {
  const { db } = ctx;
  const answer = body.answer.trim();
  const row = await repo.setFeedbackAnswer(db, shop.id, feedbackId, answer, ctx.clock.now());
  if (!row) throw new NotFoundError('Feedback');
  return getFeedback(ctx, shop, feedbackId);
}

/** Asks for a review of a feedback. One open appeal per feedback: another is a 409 (the partial unique index decides races). */
export async function appealFeedback(ctx: Context, shop: ShopRow, feedbackId: number, body: AppealBody) {
  const { db } = ctx;
  const description = body.description.trim();
  await requireFeedback(db, shop.id, feedbackId);
  if (await repo.isWithdrawn(db, shop.id, feedbackId)) {
    throw new ConflictError('An accepted appeal already hides this feedback.', [
      'feedbackId: is already hidden by an accepted appeal',
    ]);
  }
  const alreadyOpen = () =>
    new ConflictError('This feedback already has an open appeal.', ['feedbackId: already has an open appeal']);
  if (await repo.findOpenAppeal(db, shop.id, feedbackId)) throw alreadyOpen();
  try {
    await repo.insertAppeal(db, {
      shop_id: shop.id,
      feedback_id: feedbackId,
      reason: body.reason,
      description,
      created_at: ctx.clock.now(),
    });
  } catch (err) {
    if (constraintViolation(err) === 'unique') throw alreadyOpen();
    throw err;
  }
  return getFeedback(ctx, shop, feedbackId);
}

/** The shop's appeals, newest first, optionally in one status. */
export async function listAppeals(ctx: Context, shop: ShopRow, query: AppealListQuery) {
  const { db } = ctx;
  const filter = { status: query.status, search: query.searchString };
  const [rows, totalCount] = await Promise.all([
    repo.listAppeals(db, shop.id, filter, pageWindow(query)),
    repo.countAppeals(db, shop.id, filter),
  ]);
  return toPage(rows.map(toAppealListItem), totalCount, query);
}

/** An appeal as the operator reviews it: its shop, feedback (rating, comment) and outcome. */
function toOperatorAppeal(a: NonNullable<Awaited<ReturnType<typeof repo.findAppealById>>>) {
  return {
    id: a.id,
    shopId: a.shop_id,
    feedbackId: a.feedback_id,
    rating: a.rating,
    comment: a.comment,
    reason: a.reason,
    description: a.description,
    status: a.status,
    createdAt: toIso(a.created_at),
    resolvedAt: toIso(a.resolved_at),
  };
}
export type OperatorAppeal = ReturnType<typeof toOperatorAppeal>;

/** Every shop's appeals for the operator (`shopd appeals list`), oldest first, optionally of one status. */
export async function listAppealsForReview(ctx: Context, status: AppealStatus | undefined): Promise<OperatorAppeal[]> {
  const { db } = ctx;
  return (await repo.listAppealsOfAllShops(db, status)).map(toOperatorAppeal);
}

/**
 * The operator's verdict on an open appeal (`shopd appeals accept|reject`); any other status is
 * a 409. Accepting hides the owner's feedback wherever it shows or counts, in the same
 * transaction: storefront lists and statistics leave out feedbacks with an accepted appeal when
 * read, and the dashboard rollups take its rating out here. The shop's cached public pages are
 * then invalidated (in this process, and in every server sharing Redis with it).
 */
export async function resolveAppeal(
  ctx: Context,
  appealId: number,
  outcome: Exclude<AppealStatus, 'open'>,
): Promise<OperatorAppeal> {
  const { db } = ctx;
  const appeal = await repo.findAppealById(db, appealId);
  if (!appeal) throw new NotFoundError('Appeal');
  const notOpen = (status: string) =>
    new ConflictError(`The appeal is ${status}; only open appeals can be resolved.`, [`appealId: is ${status}`]);
  if (appeal.status !== 'open') throw notOpen(appeal.status);
  const shopId = appeal.shop_id;
  await writeTransaction(ctx, async (tx) => {
    const trx = tx.db;
    const now = ctx.clock.now();
    if (!(await repo.resolveOpenAppeal(trx, shopId, appeal.id, outcome, now))) throw notOpen('no longer open');
    // A feedback hidden once stays hidden once: a second accepted appeal changes no figure.
    if (outcome === 'accepted' && !(await repo.isWithdrawn(trx, shopId, appeal.feedback_id, appeal.id))) {
      await domainEvents.emit(tx, 'feedback.withdrawn', {
        shopId,
        feedback: { rating: appeal.rating, createdAt: appeal.feedback_created_at },
      });
    }
  });
  return toOperatorAppeal((await repo.findAppealById(db, appeal.id))!);
}
