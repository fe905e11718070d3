import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Context } from '../../domain/context.js';
import { ConflictError, NotFoundError, ValidationError } from '../../http/errors.js';
import { decodeCursor, keysetPage, pageWindow, toPage } from '../../http/pagination.js';
import { type FileStore, FileTooLargeError, newStorageKey } from './file-store.js';
import {
  chooseContentType,
  cleanFileName,
  type IncomingFile,
  IncomingStreamError,
  notMultipart,
  payloadTooLarge,
  peekHead,
} from './intake.js';
import * as repo from './repository.js';
import type { FileListQuery, FileView } from './schema.js';
import { type FileSummary, toFileSummary, toFileView } from './views.js';

type Conn = Kysely<Database>;

/** File (and upload) ids: 16 random bytes, base64url. */
export function newFileId(): string {
  return randomBytes(16).toString('base64url');
}

/**
 * Stores an uploaded file: named after the part's file name, typed by its first bytes, streamed
 * to the store with its SHA-256 computed on the way. Over `config.files.maxBytes`: 413, and
 * neither bytes nor row are left. The row is written once the bytes are whole.
 */
export async function storeUpload(
  ctx: Context,
  store: FileStore,
  shopId: number,
  file: IncomingFile,
): Promise<FileView> {
  const name = cleanFileName(file.filename);
  if (!name) {
    file.stream.resume();
    throw ValidationError.field('file', 'needs a file name (the part’s filename)');
  }
  const { head, body } = await peekHead(file.stream).catch((err: unknown) => {
    throw err instanceof IncomingStreamError ? notMultipart() : err;
  });
  if (head.length === 0) throw ValidationError.field('file', 'is empty');
  const contentType = await chooseContentType(head, file.mimetype);
  const key = newStorageKey();
  const { maxBytes } = ctx.config.files;
  let stored: { size: number; sha256: string };
  try {
    stored = await store.put(key, body, { maxBytes, contentType });
  } catch (err) {
    if (err instanceof FileTooLargeError) throw payloadTooLarge(maxBytes);
    if (err instanceof IncomingStreamError) throw notMultipart();
    throw err;
  }
  try {
    const row = await repo.insertFile(ctx.db, {
      id: newFileId(),
      shop_id: shopId,
      name,
      size: stored.size,
      sha256: stored.sha256,
      content_type: contentType,
      storage: store.kind,
      storage_key: key,
      created_at: ctx.clock.now(),
    });
    return toFileView(row);
  } catch (err) {
    await store.remove(key);
    throw err;
  }
}

export async function listFiles(ctx: Context, shopId: number, query: FileListQuery) {
  const { limit, offset } = pageWindow(query);
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor, 'number', 'string');
  const search = query.searchString || undefined;
  const [rows, totalCount] = await Promise.all([
    repo.listFiles(ctx.db, shopId, search, { limit: limit + 1, offset, after }),
    repo.countFiles(ctx.db, shopId, search),
  ]);
  const { items, nextCursor } = keysetPage(rows, limit, (f) => ({ value: f.created_at, id: f.id }));
  return { ...toPage(items.map(toFileView), totalCount, query), nextCursor };
}

export async function getFile(ctx: Context, shopId: number, fileId: string): Promise<FileView> {
  const row = await repo.findFile(ctx.db, shopId, fileId);
  if (!row) throw new NotFoundError('File');
  return toFileView(row);
}

/**
 * Deletes a file no variant delivers (409 naming the variants otherwise): its row, with the
 * download grants of past orders (the migration's cascade), then its bytes. The bytes go after
 * the row has: a failure in between leaves unreferenced bytes, never a row without them.
 */
export async function deleteFile(ctx: Context, store: FileStore, shopId: number, fileId: string) {
  const row = await ctx.db.transaction().execute(async (trx) => {
    const file = await repo.findFile(trx, shopId, fileId);
    if (!file) throw new NotFoundError('File');
    const variants = await repo.variantsUsing(trx, shopId, fileId);
    if (variants.length > 0) {
      throw new ConflictError(
        `The file is attached to ${variants.length === 1 ? 'a product variant' : `${variants.length} product variants`}; remove it from ${variants.length === 1 ? 'that variant' : 'them'} first.`,
        [`fileId: is attached to variant${variants.length === 1 ? '' : 's'} ${variants.join(', ')}`],
      );
    }
    await repo.deleteFile(trx, shopId, fileId);
    return file;
  });
  await store.remove(row.storage_key);
  return { id: row.id, deleted: true as const };
}

/**
 * Makes `fileIds` (in this order) the files variant `variantId` delivers, replacing what it had.
 * An id that is not a file of this shop is a 400 naming it under `field`. Run in the caller's
 * transaction (a product write).
 */
export async function attachFiles(
  db: Conn,
  shopId: number,
  variantId: number,
  fileIds: string[],
  field = 'fileIds',
): Promise<void> {
  const unique = [...new Set(fileIds)];
  if (unique.length !== fileIds.length) throw ValidationError.field(field, 'names a file more than once');
  const known = await repo.existingFileIds(db, shopId, unique);
  const unknown = unique.filter((id) => !known.has(id));
  if (unknown.length > 0) {
    throw new ValidationError(
      unknown.map((id) => `${field}: ${id} is not a file of this shop`),
      `Not a file of this shop: ${unknown.join(', ')}.`,
    );
  }
  await repo.deleteAttachments(db, shopId, [variantId]);
  await repo.insertAttachments(db, shopId, variantId, unique);
}

/** Removes every file from these variants (a variant deleted, or no longer a `file` variant). */
export async function detachFiles(db: Conn, shopId: number, variantIds: number[]): Promise<void> {
  await repo.deleteAttachments(db, shopId, variantIds);
}

/** The files each of these variants delivers, in order; variants without files are not in the map. */
export async function attachedFiles(
  db: Conn,
  shopId: number,
  variantIds: number[],
): Promise<Map<number, FileSummary[]>> {
  const rows = await repo.attachedFileRows(db, shopId, [...new Set(variantIds)]);
  const files = new Map<number, FileSummary[]>();
  for (const row of rows) {
    const list = files.get(row.variant_id) ?? [];
    list.push(toFileSummary(row));
    files.set(row.variant_id, list);
  }
  return files;
}
