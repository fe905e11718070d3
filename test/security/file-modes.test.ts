import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { type TestContext, test } from 'node:test';
import SqliteDatabase from 'better-sqlite3';
import { buildApp } from '../../src/app.js';
import type { Config } from '../../src/config.js';
import { openDatabase } from '../../src/db/database.js';
import { engine, freshConfig, onEnd, owner } from '../helpers/build.js';
import { createShop } from '../helpers/factories.js';

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);

/** A config whose DATA_DIR does not exist yet, without SECRET_KEY (so secret.key is generated), as on a first start. */
async function firstStartConfig(t: TestContext): Promise<Config> {
  const base = await freshConfig(t);
  const dataDir = join(base.dataDir, 'data');
  const database =
    base.database.dialect === 'sqlite'
      ? { dialect: 'sqlite' as const, file: join(dataDir, 'shopd.sqlite') }
      : base.database;
  return { ...base, dataDir, secretKey: undefined, database };
}

test('a first start creates DATA_DIR 0700, secret.key 0600 and, on SQLite, the database and its WAL files 0600', async (t) => {
  const config = await firstStartConfig(t);
  const app = await buildApp({ config, logger: false });
  onEnd(t, () => app.close());
  await createShop(await owner(app), 'Written');

  assert.equal(modeOf(config.dataDir), '700');
  assert.equal(modeOf(join(config.dataDir, 'secret.key')), '600');
  assert.equal(modeOf(join(config.dataDir, 'uploads')), '700');
  if (engine === 'sqlite') {
    for (const suffix of ['', '-wal', '-shm'])
      assert.equal(modeOf(`${join(config.dataDir, 'shopd.sqlite')}${suffix}`), '600', `shopd.sqlite${suffix}`);
  }
});

test("the CLI's connection creates a new SQLite database 0600 in a directory 0700", {
  skip: engine !== 'sqlite' && 'SQLite only',
}, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'shopd-modes-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'elsewhere', 'db.sqlite');
  const db = openDatabase({ dialect: 'sqlite', file });
  await db.kysely.schema.createTable('t').addColumn('id', 'integer').execute();
  assert.equal(modeOf(join(dir, 'elsewhere')), '700');
  for (const suffix of ['', '-wal', '-shm']) assert.equal(modeOf(`${file}${suffix}`), '600', `db.sqlite${suffix}`);
  await db.destroy();
});

test('an install made world-readable is tightened at start, and each change is logged', {
  skip: engine !== 'sqlite' && 'SQLite only',
}, async (t) => {
  const config = await firstStartConfig(t);
  const file = config.database.dialect === 'sqlite' ? config.database.file : '';
  // As an older version left it: everything readable by every user of the machine.
  mkdirSync(config.dataDir, { mode: 0o755 });
  chmodSync(config.dataDir, 0o755);
  writeFileSync(join(config.dataDir, 'secret.key'), `${Buffer.alloc(32, 7).toString('base64')}\n`, { mode: 0o644 });
  chmodSync(join(config.dataDir, 'secret.key'), 0o644);
  const old = new SqliteDatabase(file);
  old.pragma('journal_mode = WAL');
  old.exec('create table left_over (id integer)');
  for (const suffix of ['', '-wal', '-shm']) chmodSync(`${file}${suffix}`, 0o644);
  t.after(() => old.close());

  const lines: { level: number; msg: string; path?: string }[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      callback();
    },
  });
  const app = await buildApp({ config, logger: { level: 'warn', stream } });
  onEnd(t, () => app.close());

  assert.equal(modeOf(config.dataDir), '700');
  for (const name of ['secret.key', 'shopd.sqlite', 'shopd.sqlite-wal', 'shopd.sqlite-shm'])
    assert.equal(modeOf(join(config.dataDir, name)), '600', name);
  const logged = lines.filter((l) => /file mode tightened/.test(l.msg)).map((l) => l.path);
  assert.deepEqual(
    logged.sort(),
    [
      config.dataDir,
      ...['secret.key', 'shopd.sqlite', 'shopd.sqlite-shm', 'shopd.sqlite-wal'].map((n) => join(config.dataDir, n)),
    ].sort(),
  );
  assert.ok(
    lines.every((l) => l.level === 40 || !/file mode/.test(l.msg)),
    'logged as warnings',
  );
});
