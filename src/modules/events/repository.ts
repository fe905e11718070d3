import type { Insertable, Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { EventsTable } from './events.table.js';

export async function insertEvent(db: Kysely<Database>, row: Insertable<EventsTable>): Promise<void> {
  await db.insertInto('events').values(row).execute();
}
