import type { Insertable, Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { DownloadGrantRow, DownloadLogTable, FileRow } from './files.table.js';

type Conn = Kysely<Database>;

/** A grant with what a download needs of its file. */
export type GrantWithFile = DownloadGrantRow &
  Pick<FileRow, 'name' | 'size' | 'sha256' | 'content_type' | 'storage' | 'storage_key'> & { file_created_at: number };

/** The files attached to a variant, in their order. */
export async function attachedFileIds(db: Conn, shopId: number, variantId: number): Promise<string[]> {
  const rows = await db
    .selectFrom('file_attachments')
    .select('file_id')
    .where('shop_id', '=', shopId)
    .where('variant_id', '=', variantId)
    .orderBy('position')
    .execute();
  return rows.map((r) => r.file_id);
}

/** One grant per file; a grant the invoice already has for a file is kept as it is. */
export async function insertGrants(
  db: Conn,
  shopId: number,
  invoiceId: string,
  fileIds: string[],
  terms: { downloadLimit: number; linkHours: number },
  now: number,
): Promise<void> {
  if (fileIds.length === 0) return;
  await db
    .insertInto('download_grants')
    .values(
      fileIds.map((fileId) => ({
        shop_id: shopId,
        invoice_id: invoiceId,
        file_id: fileId,
        download_limit: terms.downloadLimit,
        link_hours: terms.linkHours,
        created_at: now,
      })),
    )
    .onConflict((oc) => oc.columns(['shop_id', 'invoice_id', 'file_id']).doNothing())
    .execute();
}

function grantsWithFiles(db: Conn, shopId: number) {
  return db
    .selectFrom('download_grants as g')
    .innerJoin('files as f', (join) => join.onRef('f.id', '=', 'g.file_id').onRef('f.shop_id', '=', 'g.shop_id'))
    .selectAll('g')
    .select([
      'f.name',
      'f.size',
      'f.sha256',
      'f.content_type',
      'f.storage',
      'f.storage_key',
      'f.created_at as file_created_at',
    ])
    .where('g.shop_id', '=', shopId);
}

/** The invoice's grants not revoked, in the order they were granted (the variant's file order). */
export function liveGrantsOfInvoice(db: Conn, shopId: number, invoiceId: string): Promise<GrantWithFile[]> {
  return grantsWithFiles(db, shopId)
    .where('g.invoice_id', '=', invoiceId)
    .where('g.revoked_at', 'is', null)
    .orderBy('g.id')
    .execute();
}

export function findGrant(db: Conn, shopId: number, grantId: number): Promise<GrantWithFile | undefined> {
  return grantsWithFiles(db, shopId).where('g.id', '=', grantId).executeTakeFirst();
}

/**
 * Counts one download, as one conditional update: only while the grant is not revoked and has
 * downloads left (a limit of 0 is unlimited). Concurrent requests cannot both take the last one:
 * SQLite runs writes one at a time, and PostgreSQL re-checks the condition on the row it waited for.
 */
export async function countDownload(db: Conn, shopId: number, grantId: number): Promise<boolean> {
  const result = await db
    .updateTable('download_grants')
    .set((eb) => ({ downloads: eb('downloads', '+', 1) }))
    .where('shop_id', '=', shopId)
    .where('id', '=', grantId)
    .where('revoked_at', 'is', null)
    .where((eb) => eb.or([eb('download_limit', '=', 0), eb('downloads', '<', eb.ref('download_limit'))]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Whether the grant is revoked now (read after a refused count, to say why). */
export async function grantRevoked(db: Conn, shopId: number, grantId: number): Promise<boolean> {
  const row = await db
    .selectFrom('download_grants')
    .select('revoked_at')
    .where('shop_id', '=', shopId)
    .where('id', '=', grantId)
    .executeTakeFirst();
  return row?.revoked_at != null;
}

export async function revokeGrantsOfInvoice(db: Conn, shopId: number, invoiceId: string, now: number): Promise<void> {
  await db
    .updateTable('download_grants')
    .set({ revoked_at: now })
    .where('shop_id', '=', shopId)
    .where('invoice_id', '=', invoiceId)
    .where('revoked_at', 'is', null)
    .execute();
}

export async function insertLogEntry(db: Conn, row: Insertable<DownloadLogTable>): Promise<number> {
  const inserted = await db.insertInto('download_log').values(row).returning('id').executeTakeFirstOrThrow();
  return inserted.id;
}

export async function setLoggedBytes(db: Conn, shopId: number, logId: number, bytes: number): Promise<void> {
  await db.updateTable('download_log').set({ bytes }).where('shop_id', '=', shopId).where('id', '=', logId).execute();
}

/** The invoice's downloads, newest first, with the file's name (null once the file is deleted). */
export function logOfInvoice(db: Conn, shopId: number, invoiceId: string) {
  return db
    .selectFrom('download_log as l')
    .leftJoin('files as f', (join) => join.onRef('f.id', '=', 'l.file_id').onRef('f.shop_id', '=', 'l.shop_id'))
    .select(['l.file_id', 'f.name', 'l.at', 'l.ip', 'l.user_agent', 'l.bytes', 'l.counted'])
    .where('l.shop_id', '=', shopId)
    .where('l.invoice_id', '=', invoiceId)
    .orderBy('l.id', 'desc')
    .execute();
}
