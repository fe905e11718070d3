import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { buildApp } from '../../src/app.js';
import type { Config } from '../../src/config.js';
import { build, engine, freshConfig, onEnd, owner } from '../helpers/build.js';
import { assertError, assertOk, sellingShop } from '../helpers/factories.js';
import { waitUntil } from '../helpers/wait.js';

// What the operator's worst day does to one instance (issue 33): its database's storage fills up,
// its PostgreSQL connections are cut. Each request that meets it is a 503 naming the cause, the
// process stays up, /ready tells, and everything works again once the storage does.

/** A tmpfs of `size` mounted for the test, or null where this machine does not let the test mount one. */
function smallFileSystem(t: import('node:test').TestContext, size: string): string | null {
  const dir = mkdtempSync(join(tmpdir(), 'shopd-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir], { stdio: 'ignore' });
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return null;
  }
  onEnd(t, () => {
    execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

/** Writes zeros into `file` until the file system refuses (ENOSPC): nothing is left free. */
function fillUp(file: string): void {
  const fd = openSync(file, 'w');
  const chunk = Buffer.alloc(64 * 1024);
  try {
    for (let size = chunk.length; size >= 512; ) {
      try {
        writeSync(fd, chunk, 0, size);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
        size = Math.floor(size / 2);
      }
    }
  } finally {
    closeSync(fd);
  }
}

test('a full disk: writes are a 503 naming it, /ready says so until a write succeeds, then all works again', async (t) => {
  if (engine !== 'sqlite') return t.skip('the database file is on the machine only with SQLite');
  const dir = smallFileSystem(t, '8m');
  if (dir === null) return t.skip('this machine does not let the test mount a tmpfs');
  const config: Config = await freshConfig(t, { DATA_DIR: dir });
  const app = await buildApp({ config, logger: false });
  onEnd(t, () => app.close());
  const api = await owner(app);
  const { shopId, productId, keysVariant } = await sellingShop(api);
  const order = {
    customerEmail: 'full@example.com',
    gateway: 'tipjar',
    parts: [{ productId, productVariantId: keysVariant, quantity: 1 }],
  };
  const checkout = () => api.post(`/v2/public/shops/${shopId}/invoices`, order);
  assertOk(await checkout());

  // The write-ahead log emptied first: SQLite then holds no space a write could reuse, so the next
  // one needs more of the disk, whatever the size of the pages the writes before it left.
  const [{ busy }] = (await sql<{ busy: number }>`PRAGMA wal_checkpoint(TRUNCATE)`.execute(app.db.kysely)).rows as [
    { busy: number },
  ];
  assert.equal(busy, 0, 'the log was emptied');
  fillUp(join(dir, 'filler'));
  const refused = await checkout();
  assertError(refused, 503, 'service_unavailable');
  assert.deepEqual(refused.body.errors, ['database: the database disk is full']);
  assert.equal(refused.headers['retry-after'], '30');
  const ready = await api.get('/ready');
  assertError(ready, 503, 'service_unavailable');
  assert.match(ready.body.errors.join(), /database: the database disk is full \(SQLITE_FULL\)/);
  // Reads go on: the catalogue and the invoices written before are there.
  assert.equal(assertOk(await api.get(`/self/${shopId}/invoices`)).totalCount, 1);
  assertError(await checkout(), 503, 'service_unavailable');

  rmSync(join(dir, 'filler'));
  // /ready writes by itself while the failure lasts: it turns ready without any other traffic.
  assert.equal(assertOk(await api.get('/ready')).status, 'ready');
  assertOk(await checkout());
  // Nothing of the refused checkouts was kept: two orders, two keys sold.
  assert.equal(assertOk(await api.get(`/self/${shopId}/invoices`)).totalCount, 2);
  const product = assertOk(await api.get(`/self/${shopId}/v2/products/${productId}`));
  assert.equal(product.variants[0].stock, 3);
});

test('another process holding the write lock past its bound is a 503 naming it, and /ready turns ready once a write succeeds', async (t) => {
  if (engine !== 'sqlite') return t.skip('SQLite file locks');
  const app = await build(t);
  const api = await owner(app);
  const { shopId } = await sellingShop(api);
  const config = app.config.database as { file: string };
  const Sqlite = (await import('better-sqlite3')).default;
  const other = new Sqlite(config.file);
  onEnd(t, () => other.close());
  other.exec('begin immediate');
  const refused = await api.put(`/self/${shopId}/settings/name`, { newName: 'Locked out' });
  assertError(refused, 503, 'service_unavailable');
  assert.deepEqual(refused.body.errors, ['database: the database is locked by another process']);
  other.exec('rollback');
  assert.equal(assertOk(await api.get('/ready')).status, 'ready');
  assertOk(await api.put(`/self/${shopId}/settings/name`, { newName: 'Unlocked' }));
});

test('a PostgreSQL connection cut in the middle of a transaction fails its own request with a 503; the process and the pool go on', async (t) => {
  if (engine !== 'postgres') return t.skip('PostgreSQL connections');
  const app = await build(t);
  const api = await owner(app);
  const { shopId, productId, keysVariant } = await sellingShop(api);
  const placed = assertOk(
    await api.post(`/v2/public/shops/${shopId}/invoices`, {
      customerEmail: 'cut@example.com',
      gateway: 'tipjar',
      parts: [{ productId, productVariantId: keysVariant, quantity: 1 }],
    }),
  );
  const customerId = assertOk(await api.get(`/self/${shopId}/invoices/${placed.id}`)).customerId;
  const database = app.config.database as { url: string; schema: string };
  const admin = new pg.Client({ connectionString: database.url, options: `-c search_path=${database.schema}` });
  await admin.connect();
  onEnd(t, () => admin.end());

  // Another session holds the customer's row: the balance credit's transaction begins, then waits for it.
  await admin.query('begin');
  await admin.query('select id from customers where id = $1 for update', [customerId]);
  const credit = api.post(`/self/${shopId}/customers/${customerId}/balance/add`, { amount: 5 });
  let waiting: number | undefined;
  await waitUntil(async () => {
    const { rows } = await admin.query<{ pid: number }>(
      `select pid from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid() and wait_event_type = 'Lock'`,
    );
    waiting = rows[0]?.pid;
    return waiting !== undefined;
  }, 'the credit to wait for the row lock');
  // The server ends that connection while its transaction waits, as a restart or failover does.
  await admin.query('select pg_terminate_backend($1)', [waiting]);
  const cut = await credit;
  assertError(cut, 503, 'service_unavailable');
  assert.deepEqual(cut.body.errors, ['database: the database does not answer']);
  assert.equal(cut.headers['retry-after'], '5');
  await admin.query('rollback');

  // Every idle connection of the pool is cut as well: the pool drops each as its socket ends, and opens new ones.
  const { rows } = await admin.query<{ cut: number }>(
    `select count(pg_terminate_backend(pid))::int as cut from pg_stat_activity
      where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend'`,
  );
  assert.ok(rows[0]!.cut > 0);
  await waitUntil(() => app.db.poolStats()!.total === 0, 'the pool to drop the connections the server ended');
  assert.equal(assertOk(await api.get('/ready')).status, 'ready');
  const credited = assertOk(await api.post(`/self/${shopId}/customers/${customerId}/balance/add`, { amount: 5 }));
  assert.equal(credited.balance, 5, 'the cut credit was not kept; this one was');
});
