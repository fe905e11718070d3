import type { Insertable, Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { containsText } from '../../db/sql-helpers.js';
import { type KeysetPosition, pageOf } from '../../http/pagination.js';
import type { FileRow, FilesTable, FileUploadRow, FileUploadsTable } from './files.table.js';

type Conn = Kysely<Database>;

export function insertFile(db: Conn, row: Insertable<FilesTable>): Promise<FileRow> {
  return db.insertInto('files').values(row).returningAll().executeTakeFirstOrThrow();
}

export function findFile(db: Conn, shopId: number, fileId: string): Promise<FileRow | undefined> {
  return db.selectFrom('files').selectAll().where('shop_id', '=', shopId).where('id', '=', fileId).executeTakeFirst();
}

function filtered(db: Conn, shopId: number, search: string | undefined) {
  let query = db.selectFrom('files').where('shop_id', '=', shopId);
  if (search) query = query.where(containsText('name', search));
  return query;
}

/** Newest first (created_at, then id); after a keyset position when given, else from the offset. */
export function listFiles(
  db: Conn,
  shopId: number,
  search: string | undefined,
  page: { limit: number; offset: number; after?: KeysetPosition | undefined },
): Promise<FileRow[]> {
  return pageOf(filtered(db, shopId, search).selectAll(), { sortColumn: 'created_at', idColumn: 'id' }, page).execute();
}

export async function countFiles(db: Conn, shopId: number, search: string | undefined): Promise<number> {
  const row = await filtered(db, shopId, search)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function deleteFile(db: Conn, shopId: number, fileId: string): Promise<boolean> {
  const result = await db.deleteFrom('files').where('shop_id', '=', shopId).where('id', '=', fileId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** The variants (ids, lowest first) a file is attached to. */
export async function variantsUsing(db: Conn, shopId: number, fileId: string): Promise<number[]> {
  const rows = await db
    .selectFrom('file_attachments')
    .select('variant_id')
    .where('shop_id', '=', shopId)
    .where('file_id', '=', fileId)
    .orderBy('variant_id')
    .execute();
  return rows.map((r) => r.variant_id);
}

/** Which of `fileIds` are files of this shop. */
export async function existingFileIds(db: Conn, shopId: number, fileIds: string[]): Promise<Set<string>> {
  if (fileIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('files')
    .select('id')
    .where('shop_id', '=', shopId)
    .where('id', 'in', fileIds)
    .execute();
  return new Set(rows.map((r) => r.id));
}

export async function deleteAttachments(db: Conn, shopId: number, variantIds: number[]): Promise<void> {
  if (variantIds.length === 0) return;
  await db.deleteFrom('file_attachments').where('shop_id', '=', shopId).where('variant_id', 'in', variantIds).execute();
}

export async function insertAttachments(db: Conn, shopId: number, variantId: number, fileIds: string[]): Promise<void> {
  if (fileIds.length === 0) return;
  await db
    .insertInto('file_attachments')
    .values(fileIds.map((fileId, position) => ({ shop_id: shopId, variant_id: variantId, file_id: fileId, position })))
    .execute();
}

/** The files attached to these variants, each variant's in position order. */
export function attachedFileRows(
  db: Conn,
  shopId: number,
  variantIds: number[],
): Promise<(FileRow & { variant_id: number })[]> {
  if (variantIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('file_attachments as a')
    .innerJoin('files as f', (join) => join.onRef('f.id', '=', 'a.file_id').onRef('f.shop_id', '=', 'a.shop_id'))
    .selectAll('f')
    .select('a.variant_id')
    .where('a.shop_id', '=', shopId)
    .where('a.variant_id', 'in', variantIds)
    .orderBy('a.variant_id')
    .orderBy('a.position')
    .execute();
}

// Resumable uploads.

export function insertUpload(db: Conn, row: Insertable<FileUploadsTable>): Promise<FileUploadRow> {
  return db.insertInto('file_uploads').values(row).returningAll().executeTakeFirstOrThrow();
}

export function findUpload(db: Conn, shopId: number, uploadId: string): Promise<FileUploadRow | undefined> {
  return db
    .selectFrom('file_uploads')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('id', '=', uploadId)
    .executeTakeFirst();
}

/**
 * Counts a chunk: `received` moves from `offset` to `received` only if it is still at `offset`,
 * so of two requests that sent the same chunk one counts it and the other learns the new offset.
 */
export async function advanceUpload(
  db: Conn,
  shopId: number,
  uploadId: string,
  change: { offset: number; received: number; parts: string; now: number },
): Promise<boolean> {
  const result = await db
    .updateTable('file_uploads')
    .set({ received: change.received, parts: change.parts, updated_at: change.now })
    .where('shop_id', '=', shopId)
    .where('id', '=', uploadId)
    .where('received', '=', change.offset)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function deleteUpload(db: Conn, shopId: number, uploadId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('file_uploads')
    .where('shop_id', '=', shopId)
    .where('id', '=', uploadId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Deletes an upload if it is still untouched since `before` (a chunk that just arrived keeps it). */
export async function deleteStaleUpload(db: Conn, shopId: number, uploadId: string, before: number): Promise<boolean> {
  const result = await db
    .deleteFrom('file_uploads')
    .where('shop_id', '=', shopId)
    .where('id', '=', uploadId)
    .where('updated_at', '<', before)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Uploads of any shop untouched since `before`, oldest first. */
export function staleUploads(db: Conn, before: number, limit: number): Promise<FileUploadRow[]> {
  return db
    .selectFrom('file_uploads')
    .selectAll()
    .where('updated_at', '<', before)
    .orderBy('updated_at')
    .limit(limit)
    .execute();
}
