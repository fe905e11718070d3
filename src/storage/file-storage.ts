import { access, mkdir, open, readFile, rename, rm, unlink, writeFile } from 'node:fs/promises';
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
  /**
   * A stored image's derived copy (`variant`: `w640.webp`, see src/http/uploads.ts), kept beside
   * it until the image is removed; undefined when none was kept yet or the image is gone.
   */
  readVariant(name: string, variant: string): Promise<Buffer | undefined>;
  /** Keeps a derived copy of a stored image (a later identical one replaces it). */
  putVariant(name: string, variant: string, data: Buffer): Promise<void>;
}

/** A derived copy's name: a width and a format. */
const VARIANT_NAME = /^w[0-9]{2,4}\.(webp|avif)$/;

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
  // Derived copies live in a hidden folder of the uploads' (made on the first), one folder per image,
  // removed with it, so none outlives its original. No upload name starts with a dot.
  const variantsDir = join(dir, '.variants');
  const variantPath = (name: string, variant: string) => {
    if (!VARIANT_NAME.test(variant)) throw new Error(`invalid variant name: ${JSON.stringify(variant)}`);
    return join(variantsDir, checkedName(name), variant);
  };
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
      await rm(join(variantsDir, name), { recursive: true, force: true });
    },
    async readVariant(name, variant) {
      if (!isUploadName(name) || !VARIANT_NAME.test(variant)) return undefined;
      try {
        // Only while the image itself is there: a copy made as it was being removed is never served.
        await access(join(dir, name));
        return await readFile(variantPath(name, variant));
      } catch (err) {
        if (isMissing(err)) return undefined;
        throw err;
      }
    },
    async putVariant(name, variant, data) {
      const path = variantPath(name, variant);
      await mkdir(join(variantsDir, name), { recursive: true, mode: 0o700 });
      // Written aside and renamed: a reader never sees half a file.
      const temp = `${path}.${process.pid}.tmp`;
      await writeFile(temp, data, { mode: 0o600 });
      await rename(temp, path);
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
