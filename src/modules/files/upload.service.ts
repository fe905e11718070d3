import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Context } from '../../domain/context.js';
import { AppError, ConflictError, NotFoundError, ValidationError } from '../../http/errors.js';
import type { Job } from '../../jobs/runner.js';
import { type ChunkedUpload, ChunkSizeError, type FileStore, newStorageKey, type StoredChunk } from './file-store.js';
import type { FileRow, FileUploadRow } from './files.table.js';
import { chooseContentType, cleanFileName, HEAD_BYTES, payloadTooLarge } from './intake.js';
import * as repo from './repository.js';
import type { FileView, StartUploadBody, UploadProgress } from './schema.js';
import { newFileId } from './service.js';
import { toFileView, toUploadProgress } from './views.js';

/**
 * Resumable uploads (docs/api/files.md): the owner announces the file (name, size), then sends
 * it in chunks of `chunkBytes`, each `PUT` with the offset it starts at; the last chunk makes it
 * a file. Progress is a row (`file_uploads.received`), so any instance can take the next chunk;
 * the bytes are one partial file on disk, or one S3 multipart upload whose parts are the chunks.
 *
 * A chunk counts whole or not at all: it is stored first, then `received` moves from its offset
 * to its end in one conditional update. Two requests carrying the same chunk (a client's retry
 * while the first is still arriving) write the same bytes at the same place; one of them counts
 * it, the other is told the upload has moved on (409 with the offset).
 */

const MiB = 1024 * 1024;
/** 8 MiB: above S3's 5 MiB minimum part, small enough that a lost chunk costs little. */
const CHUNK_BYTES = 8 * MiB;
/** S3's limit of parts per multipart upload. */
const MAX_PARTS = 10_000;
/** An upload untouched this long is dropped by the sweep. */
export const UPLOAD_TTL_MS = 24 * 60 * 60 * 1000;

/** Every chunk but the last has this many bytes: 8 MiB, or whole MiBs enough to fit 10,000 parts. */
export function chunkBytesFor(size: number): number {
  return Math.max(CHUNK_BYTES, Math.ceil(size / MAX_PARTS / MiB) * MiB);
}

/** 409 for a chunk sent at another offset than the upload's; the route also answers it as `Upload-Offset`. */
export class UploadOffsetConflict extends ConflictError {
  constructor(readonly received: number) {
    super(`The upload has received ${received} bytes: send the chunk that starts there.`, [
      `upload-offset: must be ${received}, the bytes received so far`,
    ]);
  }
}

function progressOf(row: FileUploadRow): UploadProgress {
  return toUploadProgress(row, chunkBytesFor(row.size));
}

function chunkedUpload(row: FileUploadRow): ChunkedUpload {
  return { key: row.storage_key, multipartId: row.multipart_id, parts: JSON.parse(row.parts) as StoredChunk[] };
}

async function requireUpload(ctx: Context, shopId: number, uploadId: string): Promise<FileUploadRow> {
  const row = await repo.findUpload(ctx.db, shopId, uploadId);
  if (!row)
    throw new NotFoundError('Upload', [
      'uploadId: is not an upload in progress of this shop (a completed upload is a file with its id)',
    ]);
  return row;
}

export async function startUpload(
  ctx: Context,
  store: FileStore,
  shopId: number,
  body: StartUploadBody,
): Promise<UploadProgress> {
  const name = cleanFileName(body.name);
  if (!name)
    throw ValidationError.field('name', 'has no characters left once its path and control characters are removed');
  const { maxBytes } = ctx.config.files;
  if (body.size > maxBytes) throw payloadTooLarge(maxBytes);
  const contentType = await chooseContentType(Buffer.alloc(0), body.contentType);
  const key = newStorageKey();
  const multipartId = await store.beginChunks(key, contentType);
  const now = ctx.clock.now();
  try {
    const row = await repo.insertUpload(ctx.db, {
      id: newFileId(),
      shop_id: shopId,
      name,
      size: body.size,
      content_type: contentType,
      storage: store.kind,
      storage_key: key,
      multipart_id: multipartId,
      created_at: now,
      updated_at: now,
    });
    return progressOf(row);
  } catch (err) {
    await store.abortChunks({ key, multipartId, parts: [] });
    throw err;
  }
}

export async function uploadProgress(ctx: Context, shopId: number, uploadId: string): Promise<UploadProgress> {
  return progressOf(await requireUpload(ctx, shopId, uploadId));
}

/** What a chunk request carries besides its bytes. */
export interface ChunkRequest {
  offset: number;
  /** The request's Content-Length, when it has one. */
  contentLength: number | undefined;
  /** Whether the body is `application/octet-stream` (anything goes for the empty body that retries a completion). */
  octetStream: boolean;
}

export type ChunkResult = { complete: false; upload: UploadProgress } | { complete: true; file: FileView };

/**
 * Stores the chunk at `offset` and counts it; the chunk that brings `received` to `size`
 * completes the upload into a file. A chunk at any other offset than `received` is a 409; one of
 * another length than expected (`chunkBytes`, or the rest for the last) a 400; either way nothing
 * changes. An upload whose completion failed after its last chunk counted (`received` = `size`)
 * completes on a request with that offset and an empty body.
 */
export async function receiveChunk(
  ctx: Context,
  store: FileStore,
  shopId: number,
  uploadId: string,
  chunk: ChunkRequest,
  body: Readable | undefined,
): Promise<ChunkResult> {
  const row = await requireUpload(ctx, shopId, uploadId);
  if (chunk.offset !== row.received) throw new UploadOffsetConflict(row.received);
  const chunkBytes = chunkBytesFor(row.size);
  const expected = Math.min(chunkBytes, row.size - chunk.offset);
  if (expected === 0) return { complete: true, file: await complete(ctx, store, row) };
  if (!chunk.octetStream || !body) {
    throw new AppError(415, 'unsupported_media_type', 'Send the chunk as application/octet-stream.', [
      'body: must be application/octet-stream',
    ]);
  }
  const wrongLength = () =>
    ValidationError.field('body', `must have exactly ${expected} bytes, the chunk from byte ${chunk.offset}`);
  if (chunk.contentLength !== undefined && chunk.contentLength !== expected) throw wrongLength();
  const upload = chunkedUpload(row);
  const partNumber = chunk.offset / chunkBytes + 1;
  let part: StoredChunk;
  try {
    part = await store.putChunk(upload, { partNumber, offset: chunk.offset, bytes: expected }, body);
  } catch (err) {
    if (err instanceof ChunkSizeError) throw wrongLength();
    throw err;
  }
  const parts = [...upload.parts.filter((p) => p.partNumber !== partNumber), part];
  const received = chunk.offset + expected;
  const now = ctx.clock.now();
  const counted = await repo.advanceUpload(ctx.db, shopId, uploadId, {
    offset: chunk.offset,
    received,
    parts: JSON.stringify(parts),
    now,
  });
  if (!counted) throw new UploadOffsetConflict((await requireUpload(ctx, shopId, uploadId)).received);
  const advanced = { ...row, received, parts: JSON.stringify(parts), updated_at: now };
  if (received < row.size) return { complete: false, upload: progressOf(advanced) };
  return { complete: true, file: await complete(ctx, store, advanced) };
}

/**
 * Joins the chunks into the file's object, reads it back once to hash it (and to recognise its
 * format from its first bytes), then writes the file row and drops the upload row together. The
 * file takes the upload's id, so a completion done twice (a retry racing the first) ends in the
 * one file.
 */
async function complete(ctx: Context, store: FileStore, row: FileUploadRow): Promise<FileView> {
  await store.completeChunks(chunkedUpload(row), row.size);
  const { sha256, head, size } = await digestStored(store, row.storage_key);
  if (size !== row.size) throw new Error(`upload ${row.id}: ${size} bytes stored, ${row.size} expected`);
  const contentType = await chooseContentType(head, row.content_type);
  try {
    const file = await ctx.db.transaction().execute(async (trx) => {
      const inserted = await repo.insertFile(trx, {
        id: row.id,
        shop_id: row.shop_id,
        name: row.name,
        size,
        sha256,
        content_type: contentType,
        storage: row.storage,
        storage_key: row.storage_key,
        created_at: ctx.clock.now(),
      });
      await repo.deleteUpload(trx, row.shop_id, row.id);
      return inserted;
    });
    return toFileView(file);
  } catch (err) {
    const done: FileRow | undefined = await repo.findFile(ctx.db, row.shop_id, row.id);
    if (done) return toFileView(done);
    throw err;
  }
}

/** SHA-256, size and first bytes of a stored object, read once as a stream. */
async function digestStored(store: FileStore, key: string): Promise<{ sha256: string; head: Buffer; size: number }> {
  const stream = await store.read(key);
  if (!stream) throw new Error(`stored object ${key} is missing after completion`);
  const hash = createHash('sha256');
  const headChunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    if (size < HEAD_BYTES) headChunks.push(chunk.subarray(0, HEAD_BYTES - size));
    hash.update(chunk);
    size += chunk.length;
  }
  return { sha256: hash.digest('hex'), head: Buffer.concat(headChunks), size };
}

/** Drops an upload in progress and what it stored. */
export async function abortUpload(ctx: Context, store: FileStore, shopId: number, uploadId: string) {
  const row = await requireUpload(ctx, shopId, uploadId);
  if (await repo.deleteUpload(ctx.db, shopId, uploadId)) await store.abortChunks(chunkedUpload(row));
  return { id: row.id, deleted: true as const };
}

/** Drops uploads untouched for UPLOAD_TTL_MS (100 per pass); answers how many. */
export async function sweepUploads(ctx: Context, store: FileStore, now: number): Promise<number> {
  const before = now - UPLOAD_TTL_MS;
  const stale = await repo.staleUploads(ctx.db, before, 100);
  let swept = 0;
  for (const row of stale) {
    if (!(await repo.deleteStaleUpload(ctx.db, row.shop_id, row.id, before))) continue;
    await store.abortChunks(chunkedUpload(row));
    swept++;
  }
  return swept;
}

/** Hourly: the abandoned uploads' rows and chunks go (sweepUploads). */
export function fileUploadSweepJob(ctx: Context, store: FileStore): Job {
  return {
    name: 'file-upload-sweep',
    intervalMs: 60 * 60 * 1000,
    scheduled: true,
    drains: true,
    run: (now) => sweepUploads(ctx, store, now),
  };
}
