import type { Context } from '../../domain/context.js';
import { NotFoundError } from '../../http/errors.js';
import { pageWindow, toPage } from '../../http/pagination.js';
import type { ShopRow } from '../shops/index.js';
import { lockShop } from '../shops/index.js';
import * as repo from './repository.js';
import type { FaqInput, FaqListQuery } from './schema.js';
import { toFaq } from './views.js';

/** Trimmed question and answer (the schema refuses blank ones). */
function cleanTexts(input: FaqInput): { question: string; answer: string } {
  return { question: input.question.trim(), answer: input.answer.trim() };
}

/** A page of the shop's FAQs in storefront order (position, then id). */
export async function listFaqs(ctx: Context, shop: ShopRow, query: FaqListQuery) {
  const { db } = ctx;
  const { limit, offset } = pageWindow(query);
  const [rows, totalCount] = await Promise.all([
    repo.listFaqs(db, shop.id, { search: query.searchString, limit, offset }),
    repo.countFaqs(db, shop.id, query.searchString),
  ]);
  return toPage(rows.map(toFaq), totalCount, query);
}

/** Creates an FAQ; without a position it goes after the last one. */
export async function createFaq(ctx: Context, shop: ShopRow, input: FaqInput) {
  const texts = cleanTexts(input);
  const faq = await ctx.db.transaction().execute(async (trx) => {
    // Two FAQs created at once must not both take "after the last".
    await lockShop(trx, shop.id);
    const position = input.position ?? (await repo.nextFaqPosition(trx, shop.id));
    const now = ctx.clock.now();
    return repo.insertFaq(trx, { shop_id: shop.id, ...texts, position, created_at: now, updated_at: now });
  });
  return toFaq(faq);
}

/** Full update of question and answer; an omitted position keeps the FAQ where it is. */
export async function updateFaq(ctx: Context, shop: ShopRow, faqId: number, input: FaqInput) {
  const { db } = ctx;
  const texts = cleanTexts(input);
  const current = await repo.findFaq(db, shop.id, faqId);
  if (!current) throw new NotFoundError('FAQ');
  const faq = await repo.updateFaq(
    db,
    shop.id,
    faqId,
    { ...texts, position: input.position ?? current.position },
    ctx.clock.now(),
  );
  if (!faq) throw new NotFoundError('FAQ');
  return toFaq(faq);
}

export async function deleteFaq(ctx: Context, shop: ShopRow, faqId: number) {
  if ((await repo.deleteFaq(ctx.db, shop.id, faqId)) === 0) throw new NotFoundError('FAQ');
  return { id: faqId, deleted: true as const };
}
