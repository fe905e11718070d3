import { type ExpressionBuilder, type Insertable, type Kysely, sql } from 'kysely';
import { isPostgres } from '../../db/database.js';
import type { Database } from '../../db/schema.js';
import { containsText } from '../../db/sql-helpers.js';
import { type KeysetPosition, pageOf } from '../../http/pagination.js';
import type {
  LicenseActivationRow,
  LicenseActivationsTable,
  LicenseRow,
  LicenseState,
  LicensesTable,
} from './licenses.table.js';
import type { LicenseStatus } from './status.js';

type Conn = Kysely<Database>;

// --- licences ---------------------------------------------------------------------------------

/** Inserts the licences; a key the shop already licensed keeps its row (a serial sold again). */
export async function insertLicenses(db: Conn, rows: Insertable<LicensesTable>[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('licenses')
    .values(rows)
    .onConflict((oc) => oc.columns(['shop_id', 'license_key']).doNothing())
    .execute();
}

export function findLicenseByKey(db: Conn, shopId: number, licenseKey: string): Promise<LicenseRow | undefined> {
  return db
    .selectFrom('licenses')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('license_key', '=', licenseKey)
    .executeTakeFirst();
}

export function findLicense(db: Conn, shopId: number, licenseId: number): Promise<LicenseRow | undefined> {
  return db
    .selectFrom('licenses')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('id', '=', licenseId)
    .executeTakeFirst();
}

/**
 * What a validate needs, in one read (it is the hot path: every running copy of a program asks):
 * the licence of the key, the instance asked about when it is one of the licence's, and the shop's
 * current signing key (null before the shop's first).
 */
export async function licenseForValidation(db: Conn, shopId: number, licenseKey: string, instanceId: string | null) {
  const row = await db
    .selectFrom('licenses as l')
    .leftJoin('license_activations as a', (join) =>
      join
        .onRef('a.license_id', '=', 'l.id')
        .on('a.shop_id', '=', shopId)
        // No instance asked about: a condition no instance meets.
        .on('a.id', '=', instanceId ?? ''),
    )
    .leftJoin('license_signing_keys as k', (join) => join.on('k.shop_id', '=', shopId).on('k.retired_at', 'is', null))
    .selectAll('l')
    .select([
      'a.id as instance_id',
      'a.name as instance_name',
      'a.created_at as instance_created_at',
      'a.deactivated_at as instance_deactivated_at',
      'a.ip as instance_ip',
      'a.user_agent as instance_user_agent',
      'k.kid as key_kid',
      'k.sealed_private_key as key_sealed',
    ])
    .where('l.shop_id', '=', shopId)
    .where('l.license_key', '=', licenseKey)
    .executeTakeFirst();
  if (!row) return undefined;
  const {
    instance_id,
    instance_name,
    instance_created_at,
    instance_deactivated_at,
    instance_ip,
    instance_user_agent,
    key_kid,
    key_sealed,
    ...license
  } = row;
  return {
    license: license as LicenseRow,
    instance:
      instance_id === null
        ? undefined
        : ({
            id: instance_id,
            shop_id: shopId,
            license_id: license.id,
            name: instance_name!,
            created_at: instance_created_at!,
            deactivated_at: instance_deactivated_at,
            ip: instance_ip,
            user_agent: instance_user_agent,
          } satisfies LicenseActivationRow),
    signingKey: key_kid === null ? undefined : { kid: key_kid, sealed_private_key: key_sealed! },
  };
}

/** The licence, locked until the transaction ends (PostgreSQL; SQLite transactions are already serial). */
export function lockLicense(db: Conn, shopId: number, licenseId: number): Promise<LicenseRow | undefined> {
  return db
    .selectFrom('licenses')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('id', '=', licenseId)
    .$if(isPostgres(db), (q) => q.forUpdate())
    .executeTakeFirst();
}

export function licensesOfInvoice(db: Conn, shopId: number, invoiceId: string): Promise<LicenseRow[]> {
  return db
    .selectFrom('licenses')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('invoice_id', '=', invoiceId)
    .orderBy('id')
    .execute();
}

/** A buyer's licences (by the lower-case address they bought with), newest first. */
export function licensesOfEmail(db: Conn, shopId: number, email: string): Promise<LicenseRow[]> {
  return db
    .selectFrom('licenses')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('email', '=', email)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/**
 * Takes one activation of the licence in a single conditional update: only while it is enabled,
 * not expired and under its limit. Concurrent activations queue on the row (PostgreSQL re-checks
 * the condition after the one before commits; SQLite runs them one at a time), so no more than
 * the limit ever succeed. Answers the licence as updated, or undefined when it was refused.
 */
export function takeActivation(
  db: Conn,
  shopId: number,
  licenseId: number,
  now: number,
): Promise<LicenseRow | undefined> {
  return db
    .updateTable('licenses')
    .set((eb) => ({ activation_usage: eb('activation_usage', '+', 1), updated_at: now }))
    .where('shop_id', '=', shopId)
    .where('id', '=', licenseId)
    .where('state', '=', 'enabled')
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .where((eb) => eb.or([eb('activation_limit', 'is', null), eb('activation_usage', '<', eb.ref('activation_limit'))]))
    .returningAll()
    .executeTakeFirst();
}

/** Gives back `count` activations (instances the caller just deactivated); answers the usage left. */
export async function releaseActivations(
  db: Conn,
  shopId: number,
  licenseId: number,
  count: number,
  now: number,
): Promise<number | undefined> {
  const row = await db
    .updateTable('licenses')
    .set((eb) => ({ activation_usage: eb('activation_usage', '-', count), updated_at: now }))
    .where('shop_id', '=', shopId)
    .where('id', '=', licenseId)
    .where('activation_usage', '>=', count)
    .returning('activation_usage')
    .executeTakeFirst();
  return row?.activation_usage;
}

export async function setLicenseState(
  db: Conn,
  shopId: number,
  licenseId: number,
  state: LicenseState,
  now: number,
): Promise<void> {
  await db
    .updateTable('licenses')
    .set({ state, updated_at: now })
    .where('shop_id', '=', shopId)
    .where('id', '=', licenseId)
    .execute();
}

export async function setLicenseExpiry(
  db: Conn,
  shopId: number,
  licenseId: number,
  expiresAt: number | null,
  now: number,
): Promise<void> {
  await db
    .updateTable('licenses')
    .set({ expires_at: expiresAt, updated_at: now })
    .where('shop_id', '=', shopId)
    .where('id', '=', licenseId)
    .execute();
}

/** Revokes the invoice's licences not revoked yet; answers those it revoked. */
export function revokeLicensesOfInvoice(
  db: Conn,
  shopId: number,
  invoiceId: string,
  now: number,
): Promise<LicenseRow[]> {
  return db
    .updateTable('licenses')
    .set({ state: 'revoked', updated_at: now })
    .where('shop_id', '=', shopId)
    .where('invoice_id', '=', invoiceId)
    .where('state', '<>', 'revoked')
    .returningAll()
    .execute();
}

export interface LicenseFilter {
  status?: LicenseStatus | undefined;
  productId?: number | undefined;
  email?: string | undefined;
  search?: string | undefined;
}

/** The status filter in SQL, the same rule as licenseStatus (status.ts). */
function hasStatus(eb: ExpressionBuilder<Database, 'licenses'>, status: LicenseStatus, now: number) {
  if (status === 'revoked' || status === 'disabled') return eb('state', '=', status);
  const enabled = eb('state', '=', 'enabled');
  const expired = eb.and([eb('expires_at', 'is not', null), eb('expires_at', '<=', now)]);
  if (status === 'expired') return eb.and([enabled, expired]);
  const running = eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]);
  return eb.and([enabled, running, eb('activation_usage', status === 'active' ? '>' : '=', 0)]);
}

function filtered(db: Conn, shopId: number, f: LicenseFilter, now: number) {
  let query = db.selectFrom('licenses').where('shop_id', '=', shopId);
  const { status, search } = f;
  if (status) query = query.where((eb) => hasStatus(eb, status, now));
  if (f.productId !== undefined) query = query.where('product_id', '=', f.productId);
  if (f.email !== undefined) query = query.where('email', '=', f.email);
  if (search) query = query.where((eb) => eb.or([containsText('license_key', search), containsText('email', search)]));
  return query;
}

/** Newest first (created_at, then id); after a keyset position when given, else from the offset. */
export function listLicenses(
  db: Conn,
  shopId: number,
  filter: LicenseFilter,
  now: number,
  page: { limit: number; offset: number; after?: KeysetPosition | undefined },
): Promise<LicenseRow[]> {
  return pageOf(
    filtered(db, shopId, filter, now).selectAll(),
    { sortColumn: 'created_at', idColumn: 'id' },
    page,
  ).execute();
}

export async function countLicenses(db: Conn, shopId: number, filter: LicenseFilter, now: number): Promise<number> {
  const row = await filtered(db, shopId, filter, now)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

// --- activations ------------------------------------------------------------------------------

export async function insertActivation(db: Conn, row: Insertable<LicenseActivationsTable>): Promise<void> {
  await db.insertInto('license_activations').values(row).execute();
}

/** The instance of the licence, live or deactivated. */
export function findActivation(
  db: Conn,
  shopId: number,
  licenseId: number,
  instanceId: string,
): Promise<LicenseActivationRow | undefined> {
  return db
    .selectFrom('license_activations')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('license_id', '=', licenseId)
    .where('id', '=', instanceId)
    .executeTakeFirst();
}

/**
 * Deactivates one live instance of the licence: answers whether this call did it. Of concurrent
 * calls for the same instance exactly one does (the update is conditional on `deactivated_at`).
 */
export async function deactivateInstance(
  db: Conn,
  shopId: number,
  licenseId: number,
  instanceId: string,
  now: number,
): Promise<boolean> {
  const result = await db
    .updateTable('license_activations')
    .set({ deactivated_at: now })
    .where('shop_id', '=', shopId)
    .where('license_id', '=', licenseId)
    .where('id', '=', instanceId)
    .where('deactivated_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Deactivates every live instance of the licence; answers those this call deactivated. */
export function deactivateAllInstances(
  db: Conn,
  shopId: number,
  licenseId: number,
  now: number,
): Promise<LicenseActivationRow[]> {
  return db
    .updateTable('license_activations')
    .set({ deactivated_at: now })
    .where('shop_id', '=', shopId)
    .where('license_id', '=', licenseId)
    .where('deactivated_at', 'is', null)
    .returningAll()
    .execute();
}

/** The instances of these licences, newest first; only live ones when `liveOnly`. */
export function activationsOf(
  db: Conn,
  shopId: number,
  licenseIds: number[],
  liveOnly = false,
): Promise<LicenseActivationRow[]> {
  if (licenseIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('license_activations')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('license_id', 'in', licenseIds)
    .$if(liveOnly, (q) => q.where('deactivated_at', 'is', null))
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .execute();
}

/**
 * Moves an order's licences to the time it was delivered, for imported or demo history: their
 * issue time and, when `endFromSale` (a validity in days), their end by as much.
 */
export async function backdateLicensesOfInvoice(
  db: Conn,
  shopId: number,
  invoiceId: string,
  issuedAt: number,
  endFromSale: boolean,
): Promise<void> {
  await db
    .updateTable('licenses')
    .set({
      ...(endFromSale ? { expires_at: sql<number | null>`expires_at - (created_at - ${issuedAt})` } : {}),
      created_at: issuedAt,
      updated_at: issuedAt,
    })
    .where('shop_id', '=', shopId)
    .where('invoice_id', '=', invoiceId)
    .execute();
}

/** Every activation (live or ended) of the invoice's licences, oldest first: evidence in a dispute. */
export function activationsOfInvoice(db: Conn, shopId: number, invoiceId: string) {
  return db
    .selectFrom('license_activations as a')
    .innerJoin('licenses as l', (join) => join.onRef('l.id', '=', 'a.license_id').onRef('l.shop_id', '=', 'a.shop_id'))
    .select(['a.license_id', 'l.product_id', 'a.name', 'a.created_at', 'a.deactivated_at', 'a.ip', 'a.user_agent'])
    .where('l.shop_id', '=', shopId)
    .where('l.invoice_id', '=', invoiceId)
    .orderBy('a.created_at')
    .execute();
}
