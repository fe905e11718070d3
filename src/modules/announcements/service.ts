import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Context } from '../../domain/context.js';
import { ConflictError, NotFoundError } from '../../http/errors.js';
import { pageWindow, toPage } from '../../http/pagination.js';
import { slugify } from '../../http/slug.js';
import type { ShopRow } from '../shops/index.js';
import { lockShop } from '../shops/index.js';
import * as repo from './repository.js';
import type { AnnouncementInput, AnnouncementListQuery } from './schema.js';
import { toAnnouncement } from './views.js';

type Conn = Kysely<Database>;

/** The columns an input sets (all but the path): texts trimmed, empty optional texts cleared. */
function fieldsOf(input: AnnouncementInput) {
  const title = input.title.trim();
  const optional = (text: string | null | undefined) => text?.trim() || null;
  return {
    title,
    short_description: optional(input.shortDescription),
    description: input.description ?? '',
    unlisted: input.unlisted ? 1 : 0,
    private: input.private ? 1 : 0,
    button_text: optional(input.buttonText),
    button_link: input.buttonLink ?? null,
  };
}

/**
 * The path of an announcement: the given one (409 when another announcement of the shop has
 * it) or one derived from the title, made unique with a numeric suffix. Call it with the shop
 * locked, so two writers cannot pick the same one (the unique index backs this up).
 */
async function claimAnnouncementPath(
  db: Conn,
  shopId: number,
  input: { path?: string | undefined; title: string },
  exceptId?: number,
): Promise<string> {
  if (input.path !== undefined) {
    if (await repo.announcementPathTaken(db, shopId, input.path, exceptId)) {
      throw new ConflictError('This path is already used by another announcement.', ['path: is already taken']);
    }
    return input.path;
  }
  const base = slugify(input.title, 90) || 'announcement';
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? base : `${base}-${n}`;
    if (!(await repo.announcementPathTaken(db, shopId, candidate, exceptId))) return candidate;
  }
}

export async function listAnnouncements(ctx: Context, shop: ShopRow, query: AnnouncementListQuery) {
  const { db } = ctx;
  const { limit, offset } = pageWindow(query);
  const [rows, totalCount] = await Promise.all([
    repo.listAnnouncements(db, shop.id, { search: query.searchString, limit, offset }),
    repo.countAnnouncements(db, shop.id, query.searchString),
  ]);
  return toPage(rows.map(toAnnouncement), totalCount, query);
}

export async function createAnnouncement(ctx: Context, shop: ShopRow, input: AnnouncementInput) {
  const fields = fieldsOf(input);
  const row = await ctx.db.transaction().execute(async (trx) => {
    await lockShop(trx, shop.id);
    const path = await claimAnnouncementPath(trx, shop.id, { path: input.path ?? undefined, title: fields.title });
    const now = ctx.clock.now();
    return repo.insertAnnouncement(trx, { shop_id: shop.id, path, ...fields, created_at: now, updated_at: now });
  });
  return toAnnouncement(row);
}

/** Full update; the path stays unless a new one is given (409 when another announcement has it). */
export async function updateAnnouncement(
  ctx: Context,
  shop: ShopRow,
  announcementId: number,
  input: AnnouncementInput,
) {
  const fields = fieldsOf(input);
  const row = await ctx.db.transaction().execute(async (trx) => {
    await lockShop(trx, shop.id);
    const current = await repo.findAnnouncement(trx, shop.id, announcementId);
    if (!current) throw new NotFoundError('Announcement');
    const path =
      input.path == null
        ? current.path
        : await claimAnnouncementPath(trx, shop.id, { path: input.path, title: fields.title }, announcementId);
    return repo.updateAnnouncement(trx, shop.id, announcementId, { path, ...fields, updated_at: ctx.clock.now() });
  });
  if (!row) throw new NotFoundError('Announcement');
  return toAnnouncement(row);
}

export async function deleteAnnouncement(ctx: Context, shop: ShopRow, announcementId: number) {
  if ((await repo.deleteAnnouncement(ctx.db, shop.id, announcementId)) === 0) throw new NotFoundError('Announcement');
  return { id: announcementId, deleted: true as const };
}
