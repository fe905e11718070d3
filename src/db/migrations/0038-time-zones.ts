import type { Kysely } from 'kysely';

/**
 * Time zones (issue 37, item 7): a shop may count its days in an IANA time zone, daylight saving
 * included (`shops.timezone`, e.g. `Europe/Berlin`), rather than only in the fixed UTC offset of
 * the original API (`utc_offset_minutes`, which such a shop keeps as its zone's offset when it was
 * set). Null, as for every shop so far: the fixed offset. The dashboards' rollups record the zone
 * their days are in beside the offset (`rollup_state.timezone`), and the one a rebuild is filling
 * the next generation in (`rebuild_timezone`, with `rebuild_offset_minutes`).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('shops').addColumn('timezone', 'text').execute();
  await db.schema.alterTable('rollup_state').addColumn('timezone', 'text').execute();
  await db.schema.alterTable('rollup_state').addColumn('rebuild_timezone', 'text').execute();
}
