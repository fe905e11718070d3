import { open, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makePrivateDir } from '../security/file-modes.js';

/**
 * Where uploaded files live. Behind an interface so an object store can replace the disk;
 * callers only ever see names the upload code generated.
 */
export interface FileStorage {
  put(name: string, data: Buffer): Promise<void>;
  /** No-op for null/undefined or a file that is already gone. */
  remove(name: string | null | undefined): Promise<void>;
  /** undefined when there is no such file (a malformed name cannot exist). */
  open(name: string): Promise<{ stream: NodeJS.ReadableStream; size: number } | undefined>;
}

/** Names are random with a known extension, so nothing a client sends can reach outside the directory. */
const UPLOAD_NAME = /^[A-Za-z0-9_-]{10,64}\.(png|jpg|webp|gif|ico)$/;

function isUploadName(name: string): boolean {
  return UPLOAD_NAME.test(name);
}

function checkedName(name: string): string {
  if (!isUploadName(name)) throw new Error(`invalid upload name: ${JSON.stringify(name)}`);
  return name;
}

function isMissing(err: unknown): boolean {
  return (err as NodeJS.ErrnoException).code === 'ENOENT';
}

export function createDiskStorage(dir: string): FileStorage {
  makePrivateDir(dir);
  return {
    async put(name, data) {
      // Names are never reused: refusing to overwrite turns a collision into an error, not lost data.
      await writeFile(join(dir, checkedName(name)), data, { flag: 'wx' });
    },
    async remove(name) {
      if (name === null || name === undefined) return;
      try {
        await unlink(join(dir, checkedName(name)));
      } catch (err) {
        if (!isMissing(err)) throw err;
      }
    },
    async open(name) {
      if (!isUploadName(name)) return undefined;
      // One handle for size and stream, so a concurrent remove cannot split them.
      const handle = await open(join(dir, name), 'r').catch((err: unknown) => {
        if (isMissing(err)) return undefined;
        throw err;
      });
      if (!handle) return undefined;
      try {
        const { size } = await handle.stat();
        return { stream: handle.createReadStream(), size };
      } catch (err) {
        await handle.close();
        throw err;
      }
    },
  };
}

/**
 * Stores a new file and points a row at it: `point` writes the new name (in its own
 * transaction) and answers the name it replaced. The new file is removed if that write fails;
 * the old one only once it has committed, outside the failure path, since the row now points at
 * the new file whatever happens next.
 */
export async function replaceStoredFile(
  storage: FileStorage,
  receive: () => Promise<string>,
  point: (name: string) => Promise<string | null | undefined>,
): Promise<string> {
  const name = await receive();
  let previous: string | null | undefined;
  try {
    previous = await point(name);
  } catch (err) {
    await storage.remove(name);
    throw err;
  }
  await storage.remove(previous);
  return name;
}
