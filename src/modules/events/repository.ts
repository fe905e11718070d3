import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { EventsTable } from './events.table.js';

export async function insertEvent(db: Kysely<Database>, row: Insertable<EventsTable>): Promise<void> {
  await db.insertInto('events').values(row).execute();
}

export function findEventRow(
  db: Kysely<Database>,
  shopId: number,
  eventId: string,
): Promise<Selectable<EventsTable> | undefined> {
  return db.selectFrom('events').selectAll().where('shop_id', '=', shopId).where('id', '=', eventId).executeTakeFirst();
}
