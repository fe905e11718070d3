import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import type { Config } from '../config.js';
import { createPrivateFile, makePrivateDir } from '../security/file-modes.js';

/**
 * `shopd backup <file>` and `shopd restore <file>`.
 *
 * SQLite: a copy of `shopd.sqlite` made while the server runs misses everything still in its
 * WAL (recent shops, orders, feedbacks). The backup goes through SQLite's online backup API
 * instead, in one step: every page is read inside one read transaction, so the copy holds
 * everything committed when it began, WAL included, while other processes go on writing (a
 * backup made in several steps starts over whenever another connection writes). It is written
 * under a temporary name, checked, and renamed, so a file at the given name is always a whole
 * backup. Restore copies a backup into the configured database through the same API, only while
 * no other process has the database open: a running server would keep serving what it cached.
 *
 * PostgreSQL: its own tools do this better than shopd could; the commands to run are printed,
 * built from DATABASE_URL without its password (pg_dump and pg_restore read PGPASSWORD or
 * ~/.pgpass).
 */
export class BackupError extends Error {}

/** Pages per backup step: all of them, so the copy is made in one read transaction. */
const ALL_PAGES = 0x7fffffff;

export async function backupDatabase(config: Config, target: string): Promise<string[]> {
  const file = resolve(target);
  if (config.database.dialect === 'postgres')
    return postgresCommands('backup', config.database.url, file, keepAlongside(config));
  const live = config.database.file;
  if (existsSync(file))
    throw new BackupError(`${file} already exists: a backup never overwrites a file; give a new name`);
  if (!existsSync(dirname(file))) throw new BackupError(`the directory ${dirname(file)} does not exist`);
  if (!existsSync(live)) throw new BackupError(`there is no database at ${live} (DATABASE_URL, DATA_DIR)`);
  const partial = `${file}.partial-${process.pid}`;
  const source = new SqliteDatabase(live, { fileMustExist: true });
  try {
    source.pragma('busy_timeout = 5000');
    createPrivateFile(partial);
    await source.backup(partial, { progress: () => ALL_PAGES });
    // A backup file stands alone: out of WAL mode, with no -wal beside it to lose.
    const copy = new SqliteDatabase(partial, { fileMustExist: true });
    try {
      copy.pragma('journal_mode = DELETE');
      const summary = describe(copy);
      renameSync(partial, file);
      return [`Backed up ${live} to ${file}: ${summary}.`, ...keepAlongside(config)];
    } finally {
      copy.close();
    }
  } finally {
    source.close();
    rmSync(partial, { force: true });
  }
}

export async function restoreDatabase(config: Config, from: string): Promise<string[]> {
  const file = resolve(from);
  if (config.database.dialect === 'postgres') return postgresCommands('restore', config.database.url, file, []);
  const live = config.database.file;
  if (!existsSync(file) || !statSync(file).isFile()) throw new BackupError(`there is no backup file at ${file}`);
  if (file === resolve(live)) throw new BackupError(`${file} is the configured database itself`);
  let backup: SqliteDatabase.Database;
  try {
    backup = new SqliteDatabase(file, { readonly: true, fileMustExist: true });
  } catch (err) {
    throw new BackupError(`${file} cannot be opened as a SQLite database: ${(err as Error).message}`);
  }
  try {
    const summary = describe(backup);
    makePrivateDir(dirname(live));
    refuseIfInUse(live);
    createPrivateFile(live);
    await backup.backup(live, { progress: () => ALL_PAGES });
    return [
      `Restored ${live} from ${file}: ${summary}.`,
      'Start the server with the secret key this backup was made with (DATA_DIR/secret.key or SECRET_KEY); pending migrations run at start.',
    ];
  } finally {
    backup.close();
  }
}

/** Checks a database file and sums it up for the operator: `3 shops, 140 invoices, 1.2 MB, migrations up to 0011-…`. */
function describe(db: SqliteDatabase.Database): string {
  let check: unknown;
  try {
    check = db.pragma('quick_check', { simple: true });
  } catch (err) {
    throw new BackupError(`not a readable SQLite database: ${(err as Error).message}`);
  }
  if (check !== 'ok') throw new BackupError(`the database fails SQLite's integrity check: ${String(check)}`);
  const hasTable = (name: string) =>
    db.prepare(`select 1 from sqlite_master where type = 'table' and name = ?`).get(name) !== undefined;
  if (!hasTable('kysely_migration') || !hasTable('shops'))
    throw new BackupError('this is not a shopd database (no migrations or shops table)');
  const count = (table: string) => (db.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n;
  const last = db.prepare('select name from kysely_migration order by name desc limit 1').get() as
    | { name: string }
    | undefined;
  const pages = Number(db.pragma('page_count', { simple: true })) * Number(db.pragma('page_size', { simple: true }));
  return `${count('shops')} shops, ${count('invoices')} invoices, ${(pages / 1024 / 1024).toFixed(1)} MB, migrations up to ${last?.name ?? 'none'}`;
}

/**
 * A process that has the database open (a server, another CLI command) holds a shared lock on
 * it; an exclusive transaction in exclusive locking mode needs there to be none, and never waits.
 */
function refuseIfInUse(live: string): void {
  if (!existsSync(live)) return;
  const probe = new SqliteDatabase(live, { fileMustExist: true });
  try {
    probe.pragma('busy_timeout = 0');
    probe.pragma('locking_mode = EXCLUSIVE');
    probe.exec('begin exclusive');
    probe.exec('rollback');
  } catch (err) {
    if ((err as { code?: string }).code?.startsWith('SQLITE_BUSY')) {
      throw new BackupError(
        `the database at ${live} is in use by another process: stop the server (and any other shopd command) before restoring`,
      );
    }
    throw err;
  } finally {
    probe.close();
  }
}

/** What else an operator must keep with the database: without the key, stored payment credentials are lost. */
function keepAlongside(config: Config): string[] {
  const key = config.secretKey ? 'the SECRET_KEY value' : join(config.dataDir, 'secret.key');
  return [
    `Keep ${key} with it (it decrypts the payment credentials stored in the database), and ${join(config.dataDir, 'uploads')} (uploaded images).`,
  ];
}

const shellQuote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

/**
 * The pg_dump / pg_restore command for DATABASE_URL, password left out. A URL whose `options`
 * set a search_path (a shop in a schema of its own) is dumped as that schema only.
 */
function postgresCommands(kind: 'backup' | 'restore', databaseUrl: string, file: string, keep: string[]): string[] {
  const url = new URL(databaseUrl);
  // libpq takes a password in the user part and as the `password` (or `sslpassword`) parameter.
  const secretParams = [...url.searchParams.keys()].filter((name) => /^(ssl)?password$/i.test(name));
  const hadPassword = url.password !== '' || secretParams.length > 0;
  url.password = '';
  for (const name of secretParams) url.searchParams.delete(name);
  const schema = /search_path\s*=\s*([A-Za-z_][\w$]*)/.exec(url.searchParams.get('options') ?? '')?.[1];
  const dbname = shellQuote(url.toString());
  const command =
    kind === 'backup'
      ? `pg_dump --format=custom ${schema ? `--schema=${schema} ` : ''}--file=${shellQuote(file)} --dbname=${dbname}`
      : `pg_restore --no-owner --exit-on-error --single-transaction --dbname=${dbname} ${shellQuote(file)}`;
  return [
    kind === 'backup'
      ? 'shopd leaves PostgreSQL backups to pg_dump, which takes a consistent snapshot while the server runs. Run:'
      : 'shopd leaves PostgreSQL restores to pg_restore, into an empty database: stop the server, drop the database and ' +
        'create it again (restoring over tables that later migrations added fails), then run:',
    '',
    `  ${command}`,
    '',
    ...(hadPassword
      ? [
          'The password in DATABASE_URL is left out: give it in PGPASSWORD or ~/.pgpass (mode 0600), not on the command line.',
        ]
      : []),
    ...keep,
  ];
}
