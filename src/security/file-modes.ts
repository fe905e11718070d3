import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * DATA_DIR holds the SQLite database (every shop's orders, customers and delivered keys), the
 * generated secret key and the uploads: only the user the service runs as may read it. New
 * directories are made 0700 and the database 0600; SQLite gives the database's -wal and -shm
 * files the database file's own mode, so they follow it.
 */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Creates `dir` (and any missing parent) readable by this user only; an existing one is left as it is. */
export function makePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
}

/**
 * Creates an empty `file` readable by this user only, unless it exists: SQLite would create a
 * new database file 0644 (less the umask), and an empty file is a new database to it.
 */
export function createPrivateFile(file: string): void {
  closeSync(openSync(file, 'a', PRIVATE_FILE_MODE));
}

/**
 * Installs made before modes were set have a world-readable database (and its WAL). At start,
 * DATA_DIR, the SQLite files and `secret.key` that other users may read are tightened to
 * 0700/0600; answers the paths changed, for the log. Only paths this user owns are touched, and
 * never a directory with the sticky bit (a shared one such as /tmp, given as DATA_DIR).
 */
export function tightenDataModes(dataDir: string, sqliteFile: string | undefined): string[] {
  const changed: string[] = [];
  const tighten = (path: string, mode: number) => {
    let stat: ReturnType<typeof statSync>;
    try {
      stat = statSync(path);
    } catch {
      return; // not there (yet): it is created with the right mode
    }
    if ((stat.mode & 0o077) === 0 || (stat.mode & 0o1000) !== 0) return;
    if (typeof process.getuid === 'function' && stat.uid !== process.getuid()) return;
    chmodSync(path, mode);
    changed.push(path);
  };
  tighten(dataDir, PRIVATE_DIR_MODE);
  tighten(join(dataDir, 'secret.key'), PRIVATE_FILE_MODE);
  if (sqliteFile) for (const suffix of ['', '-wal', '-shm']) tighten(`${sqliteFile}${suffix}`, PRIVATE_FILE_MODE);
  return changed;
}
