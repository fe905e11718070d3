import { randomBytes } from 'node:crypto';
import { readdirSync, rmSync, statSync } from 'node:fs';
import { type FileHandle, open, rename, rm, stat, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { makePrivateDir, PRIVATE_FILE_MODE } from '../../security/file-modes.js';
import { ByteMeter, checkedStorageKey, type FileStore, isStorageKey } from './file-store.js';

function isMissing(err: unknown): boolean {
  return (err as NodeJS.ErrnoException).code === 'ENOENT';
}

/**
 * Writes `body` through `meter` into the file at `path` (opened with `flags`) from byte `start`.
 * The stream owns the file handle: it flushes it to the disk before closing it (so a file renamed
 * into place, or a chunk counted as received, is whole after a crash too), and closes it when it
 * is done or destroyed.
 */
async function writeThrough(path: string, flags: 'wx' | 'r+', body: Readable, meter: ByteMeter, start = 0) {
  const handle = await open(path, flags, PRIVATE_FILE_MODE);
  await pipeline(body, meter, handle.createWriteStream({ start, flush: true }));
}

/** Nothing under `.partial` stays untouched this long while in use (the upload sweep drops uploads after a day). */
const ABANDONED_MS = 2 * 24 * 60 * 60 * 1000;

/**
 * What a stopped process left in `.partial` (a crash in the middle of an upload): removed at
 * start once it is old enough that nothing can still be writing it.
 */
function removeAbandoned(partialDir: string): void {
  const before = Date.now() - ABANDONED_MS;
  for (const name of readdirSync(partialDir)) {
    const path = join(partialDir, name);
    try {
      if (statSync(path).mtimeMs < before) rmSync(path, { force: true });
    } catch {
      // Gone meanwhile, or not ours to remove: left as it is.
    }
  }
}

/**
 * Files on local disk, `dir/<key>`, readable by this user only. A file being written (a single
 * upload, or the chunks of a resumable one) lives under `dir/.partial` and is renamed into place
 * once whole: a key never names half a file.
 */
export function createDiskFileStore(dir: string): FileStore {
  makePrivateDir(dir);
  const partialDir = join(dir, '.partial');
  makePrivateDir(partialDir);
  removeAbandoned(partialDir);
  const pathOf = (key: string) => join(dir, checkedStorageKey(key));
  const chunksOf = (key: string) => join(partialDir, `${checkedStorageKey(key)}.upload`);

  return {
    kind: 'disk',

    async put(key, body, { maxBytes }) {
      const target = pathOf(key);
      const temp = join(partialDir, `${key}.${randomBytes(6).toString('hex')}.tmp`);
      const meter = new ByteMeter({ maxBytes });
      try {
        await writeThrough(temp, 'wx', body, meter);
        await rename(temp, target);
      } catch (err) {
        body.destroy();
        await rm(temp, { force: true });
        throw meter.failure ?? err;
      }
      return { size: meter.bytes, sha256: meter.sha256() };
    },

    async read(key, range) {
      if (!isStorageKey(key)) return undefined;
      let handle: FileHandle;
      try {
        handle = await open(join(dir, key), 'r');
      } catch (err) {
        if (isMissing(err)) return undefined;
        throw err;
      }
      // The stream closes the handle when it ends or is destroyed.
      return handle.createReadStream(range ? { start: range.start, end: range.end } : {});
    },

    async remove(key) {
      await rm(pathOf(key), { force: true });
    },

    async beginChunks(key) {
      const handle = await open(chunksOf(key), 'wx', PRIVATE_FILE_MODE);
      await handle.close();
      return null;
    },

    async putChunk(upload, chunk, body) {
      // Written in place: a chunk that failed half-way is overwritten when it is sent again.
      const meter = new ByteMeter({ maxBytes: chunk.bytes, exactBytes: chunk.bytes, hash: false });
      try {
        await writeThrough(chunksOf(upload.key), 'r+', body, meter, chunk.offset);
      } catch (err) {
        body.destroy();
        throw meter.failure ?? err;
      }
      return { partNumber: chunk.partNumber, etag: '', size: chunk.bytes };
    },

    async completeChunks(upload, size) {
      const chunks = chunksOf(upload.key);
      const target = pathOf(upload.key);
      try {
        // Never longer (a chunk writes no byte past its own end); cut to the size all the same.
        await truncate(chunks, size);
        await rename(chunks, target);
      } catch (err) {
        // Completed before (the answer was lost): the file is in place.
        if (isMissing(err) && (await stat(target).catch(() => undefined))?.size === size) return;
        throw err;
      }
    },

    async abortChunks(upload) {
      await rm(chunksOf(upload.key), { force: true });
    },
  };
}
