import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from 'kysely';
import { isPostgres } from './database.js';
import * as m0001 from './migrations/0001-foundation.js';
import * as m0002 from './migrations/0002-catalog.js';
import * as m0003 from './migrations/0003-orders.js';
import * as m0004 from './migrations/0004-storefront.js';
import * as m0005 from './migrations/0005-webhooks.js';
import * as m0006 from './migrations/0006-rollups.js';
import * as m0007 from './migrations/0007-storefront-totals.js';
import * as m0008 from './migrations/0008-visit-views.js';
import * as m0009 from './migrations/0009-feedback-products-order.js';
import * as m0010 from './migrations/0010-variant-serial-stock.js';
import * as m0011 from './migrations/0011-rollup-covering-indexes.js';
import * as m0012 from './migrations/0012-invoice-chat-user.js';
import * as m0013 from './migrations/0013-mail-dropped.js';
import * as m0014 from './migrations/0014-webhook-ordering.js';
import * as m0015 from './migrations/0015-search-indexes.js';
import * as m0016 from './migrations/0016-rollup-deltas.js';
import * as m0017 from './migrations/0017-custom-domains.js';
import * as m0018 from './migrations/0018-mail-html-ticket-links.js';
import * as m0019 from './migrations/0019-customer-sessions.js';
import * as m0020 from './migrations/0020-owner-sessions.js';
import * as m0021 from './migrations/0021-list-orders.js';
import * as m0022 from './migrations/0022-payments.js';

/**
 * Migrations are listed here, in order, rather than read from a folder: the list is part of
 * the build, so a missing or misnamed file fails type checking instead of a deployment.
 */
const migrations: Record<string, Migration> = {
  '0001-foundation': m0001,
  '0002-catalog': m0002,
  '0003-orders': m0003,
  '0004-storefront': m0004,
  '0005-webhooks': m0005,
  '0006-rollups': m0006,
  '0007-storefront-totals': m0007,
  '0008-visit-views': m0008,
  '0009-feedback-products-order': m0009,
  '0010-variant-serial-stock': m0010,
  '0011-rollup-covering-indexes': m0011,
  '0012-invoice-chat-user': m0012,
  '0013-mail-dropped': m0013,
  '0014-webhook-ordering': m0014,
  '0015-search-indexes': m0015,
  '0016-rollup-deltas': m0016,
  '0017-custom-domains': m0017,
  '0018-mail-html-ticket-links': m0018,
  '0019-customer-sessions': m0019,
  '0020-owner-sessions': m0020,
  '0021-list-orders': m0021,
  '0022-payments': m0022,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

export async function migrateToLatest<DB>(db: Kysely<DB>): Promise<string[]> {
  // On PostgreSQL, Kysely would look for its bookkeeping tables in every schema: name the one
  // the connection's search_path resolves to.
  const schema = isPostgres(db)
    ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
    : undefined;
  const migrator = new Migrator({ db, provider, ...(schema ? { migrationTableSchema: schema } : {}) });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
