import type { Insertable, Kysely, Updateable } from 'kysely';
import type { Database } from '../../db/schema.js';
import { containsText } from '../../db/sql-helpers.js';
import type { AnnouncementRow, AnnouncementsTable } from './announcements.table.js';

type Conn = Kysely<Database>;

export function findAnnouncement(
  db: Conn,
  shopId: number,
  announcementId: number,
): Promise<AnnouncementRow | undefined> {
  return db
    .selectFrom('announcements')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('id', '=', announcementId)
    .executeTakeFirst();
}

/** Whether another announcement of the shop already uses this path. */
export async function announcementPathTaken(
  db: Conn,
  shopId: number,
  path: string,
  exceptId?: number,
): Promise<boolean> {
  let query = db.selectFrom('announcements').select('id').where('shop_id', '=', shopId).where('path', '=', path);
  if (exceptId !== undefined) query = query.where('id', '!=', exceptId);
  return (await query.executeTakeFirst()) !== undefined;
}

export function insertAnnouncement(db: Conn, row: Insertable<AnnouncementsTable>): Promise<AnnouncementRow> {
  return db.insertInto('announcements').values(row).returningAll().executeTakeFirstOrThrow();
}

export function updateAnnouncement(
  db: Conn,
  shopId: number,
  announcementId: number,
  patch: Omit<Updateable<AnnouncementsTable>, 'id' | 'shop_id' | 'created_at'>,
): Promise<AnnouncementRow | undefined> {
  return db
    .updateTable('announcements')
    .set(patch)
    .where('shop_id', '=', shopId)
    .where('id', '=', announcementId)
    .returningAll()
    .executeTakeFirst();
}

export async function deleteAnnouncement(db: Conn, shopId: number, announcementId: number): Promise<number> {
  const result = await db
    .deleteFrom('announcements')
    .where('shop_id', '=', shopId)
    .where('id', '=', announcementId)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

function filtered(db: Conn, shopId: number, search: string | undefined) {
  let query = db.selectFrom('announcements').where('shop_id', '=', shopId);
  if (search)
    query = query.where((eb) =>
      eb.or([containsText('title', search), containsText('path', search), containsText('short_description', search)]),
    );
  return query;
}

/** One page of the shop's announcements, newest first. */
export function listAnnouncements(
  db: Conn,
  shopId: number,
  options: { search?: string | undefined; limit: number; offset: number },
): Promise<AnnouncementRow[]> {
  return filtered(db, shopId, options.search)
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(options.limit)
    .offset(options.offset)
    .execute();
}

export async function countAnnouncements(db: Conn, shopId: number, search: string | undefined): Promise<number> {
  const row = await filtered(db, shopId, search)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
