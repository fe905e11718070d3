import { DEFAULT_MIGRATION_TABLE, type Kysely, type Migration, type MigrationProvider, Migrator, sql } from 'kysely';
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
import * as m0023 from './migrations/0023-mail-claims.js';
import * as m0024 from './migrations/0024-survive-failures.js';
import * as m0025 from './migrations/0025-rollup-blocks-of-8.js';
import * as m0026 from './migrations/0026-files-and-licenses.js';
import * as m0027 from './migrations/0027-shop-protection.js';
import * as m0028 from './migrations/0028-stock-holds.js';
import * as m0029 from './migrations/0029-mail-budgets.js';
import * as m0030 from './migrations/0030-payment-reference.js';
import * as m0031 from './migrations/0031-disputes.js';
import * as m0032 from './migrations/0032-released-subdomains.js';
import * as m0033 from './migrations/0033-challenge.js';
import * as m0034 from './migrations/0034-dispute-evidence.js';
import * as m0035 from './migrations/0035-payment-reminders.js';
import * as m0036 from './migrations/0036-languages.js';
import * as m0037 from './migrations/0037-product-images.js';
import * as m0038 from './migrations/0038-time-zones.js';

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
  '0023-mail-claims': m0023,
  '0024-survive-failures': m0024,
  '0025-rollup-blocks-of-8': m0025,
  '0026-files-and-licenses': m0026,
  '0027-shop-protection': m0027,
  '0028-stock-holds': m0028,
  '0029-mail-budgets': m0029,
  '0030-payment-reference': m0030,
  '0031-disputes': m0031,
  '0032-released-subdomains': m0032,
  '0033-challenge': m0033,
  '0034-dispute-evidence': m0034,
  '0035-payment-reminders': m0035,
  '0036-languages': m0036,
  '0037-product-images': m0037,
  '0038-time-zones': m0038,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

/** The names of every migration this version knows, in the order they run. */
export const migrationNames: readonly string[] = Object.keys(migrations);

/** What a migration to this version would do to a database: apply `pending`; `unknown` were applied by a newer version. */
export interface MigrationPlan {
  applied: string[];
  pending: string[];
  unknown: string[];
}

/** A database this version must not migrate; its message says why and what to do. */
export class MigrationStateError extends Error {}

/**
 * A database that a newer shopd migrated. Migrations only go forward (there is no `down`): an
 * older version never runs on it, since it cannot know what the newer migrations changed.
 */
export class NewerDatabaseError extends MigrationStateError {
  constructor(readonly unknown: string[]) {
    super(
      `The database was migrated by a newer version of shopd (migration${unknown.length > 1 ? 's' : ''} ` +
        `${unknown.join(', ')} unknown to this one). Migrations only go forward: run that newer version, or, to go back, ` +
        'restore the backup taken before the upgrade and run the version it was taken with.',
    );
  }
}

/** Refuses a plan that cannot be applied in order: a newer database, or a gap before the last applied migration. */
export function assertMigratable(plan: MigrationPlan): void {
  if (plan.unknown.length > 0) throw new NewerDatabaseError(plan.unknown);
  const last = plan.applied.at(-1);
  const skipped = last === undefined ? [] : plan.pending.filter((name) => name < last);
  if (skipped.length > 0)
    throw new MigrationStateError(
      `The database has migrations applied after ${skipped.join(', ')}, which ${skipped.length > 1 ? 'were' : 'was'} not: ` +
        'its migration table (kysely_migration) was changed by hand. Restore the backup taken before that change.',
    );
}

async function migrator<DB>(db: Kysely<DB>): Promise<{ migrator: Migrator; table: string; schema?: string }> {
  // On PostgreSQL, Kysely would look for its bookkeeping tables in every schema: name the one
  // the connection's search_path resolves to.
  const schema = isPostgres(db)
    ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
    : undefined;
  return {
    migrator: new Migrator({ db, provider, ...(schema ? { migrationTableSchema: schema } : {}) }),
    table: DEFAULT_MIGRATION_TABLE,
    ...(schema ? { schema } : {}),
  };
}

/**
 * Applies the migrations up to and including `name`, for tests that put rows in the shape an
 * older version left them before the migration under test runs (migrateToLatest then).
 */
export async function migrateUpTo<DB>(db: Kysely<DB>, name: string): Promise<void> {
  if (!(name in migrations)) throw new Error(`no migration named ${name}`);
  const { error } = await (await migrator(db)).migrator.migrateTo(name);
  if (error) throw error instanceof Error ? error : new Error(String(error));
}

/** Reads which migrations the database has and which this version would apply; changes nothing. */
export async function migrationPlan<DB>(db: Kysely<DB>): Promise<MigrationPlan> {
  const { migrator: m, table, schema } = await migrator(db);
  const known = await m.getMigrations();
  // getMigrations answers only for the migrations this version has; the others are read here.
  const tableExists = known.some((k) => k.executedAt !== undefined) || (await hasTable(db, table, schema));
  const executed = tableExists
    ? (
        await sql<{
          name: string;
        }>`select name from ${schema ? sql.table(`${schema}.${table}`) : sql.table(table)}`.execute(db)
      ).rows.map((r) => r.name)
    : [];
  return {
    applied: known.filter((k) => k.executedAt !== undefined).map((k) => k.name),
    pending: known.filter((k) => k.executedAt === undefined).map((k) => k.name),
    unknown: executed.filter((name) => !(name in migrations)).sort(),
  };
}

async function hasTable<DB>(db: Kysely<DB>, table: string, schema: string | undefined): Promise<boolean> {
  const tables = await db.introspection.getTables({ withInternalKyselyTables: true });
  return tables.some((t) => t.name === table && (schema === undefined || t.schema === schema));
}

/**
 * Applies every pending migration, in order, and answers their names. Kysely holds its migration
 * lock meanwhile, so instances starting at once apply each migration once; on PostgreSQL they run
 * in one transaction. Refuses a database a newer version migrated, or one with a gap
 * (MigrationStateError), before changing anything.
 */
export async function migrateToLatest<DB>(db: Kysely<DB>): Promise<string[]> {
  const plan = await migrationPlan(db);
  assertMigratable(plan);
  if (plan.pending.length === 0) return [];
  const { migrator: m } = await migrator(db);
  const { error, results } = await m.migrateToLatest();
  if (error) {
    // A newer version may have migrated between the plan and Kysely's lock: say so as above
    // rather than with Kysely's "corrupted migrations".
    assertMigratable(await migrationPlan(db));
    throw error instanceof Error ? error : new Error(String(error));
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
