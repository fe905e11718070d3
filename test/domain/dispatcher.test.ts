import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import type { WriteContext } from '../../src/domain/context.js';
import { Dispatcher, writeTransaction } from '../../src/domain/dispatcher.js';
import { domainEvents, domainEventTypes } from '../../src/domain/events.js';
import { build } from '../helpers/build.js';

interface TestEvents {
  'thing.made': { name: string };
  'thing.unwatched': { name: string };
}

test('handlers run in the transaction, in order, the `last` ones after the others; after-commit work runs once, after the commit', async (t) => {
  const app = await build(t);
  const bus = new Dispatcher<TestEvents>();
  const seen: string[] = [];
  const committed: string[] = [];
  bus.on('thing.made', async (_trx, e) => void seen.push(`rollups ${e.name}`), { last: true });
  const first = async (tx: WriteContext, e: { name: string }) => {
    seen.push(`first ${e.name}`);
    tx.afterCommit('pages', async () => void committed.push(e.name));
  };
  bus.on('thing.made', first);
  bus.on('thing.made', first); // registered twice: runs once
  bus.on('thing.made', async (tx, e) => {
    // In the emitter's transaction: it sees the row the emitter wrote before emitting.
    const { rows } = await sql<{ n: number }>`select count(*) as n from storage_probes where id = 424242`.execute(
      tx.db,
    );
    seen.push(`second ${e.name} ${Number(rows[0]!.n)}`);
    tx.afterCommit('pages', async () => void committed.push('again'));
  });

  await writeTransaction(app.ctx, async (tx) => {
    await sql`insert into storage_probes (id, written_at) values (424242, 1)`.execute(tx.db);
    await bus.emit(tx, 'thing.made', { name: 'a' });
    assert.deepEqual(committed, [], 'nothing after-commit runs before the commit');
  });
  assert.deepEqual(seen, ['first a', 'second a 1', 'rollups a']);
  assert.deepEqual(committed, ['a'], 'queued once per key, run after the commit');

  // A transaction that rolls back runs no after-commit work, and what its handlers wrote is gone.
  seen.length = 0;
  committed.length = 0;
  await assert.rejects(
    writeTransaction(app.ctx, async (tx) => {
      await bus.emit(tx, 'thing.made', { name: 'b' });
      throw new Error('rolled back');
    }),
    /rolled back/,
  );
  assert.deepEqual(seen, ['first b', 'second b 1', 'rollups b']);
  assert.deepEqual(committed, []);
});

test("an event nobody subscribed to is a bug that throws; the transaction's context carries the app's config and clock", async (t) => {
  const app = await build(t);
  const bus = new Dispatcher<TestEvents>();
  bus.on('thing.made', async () => undefined);
  await assert.rejects(
    writeTransaction(app.ctx, (tx) => bus.emit(tx, 'thing.unwatched', { name: 'x' })),
    /no subscriber of thing.unwatched/,
  );
  await writeTransaction(app.ctx, async (tx) => {
    assert.notEqual(tx.db, app.ctx.db, 'the transaction, not the app handle');
    assert.equal(tx.config, app.ctx.config);
    assert.equal(tx.clock, app.ctx.clock);
  });
});

test('the app wires a subscriber to every domain event, once however many apps are built', async (t) => {
  await build(t);
  await build(t);
  for (const type of domainEventTypes) {
    const count = domainEvents.subscriberCount(type);
    assert.ok(count >= 2, `${type}: ${count} subscriber(s)`);
  }
  const before = domainEventTypes.map((type) => domainEvents.subscriberCount(type));
  await build(t);
  assert.deepEqual(
    domainEventTypes.map((type) => domainEvents.subscriberCount(type)),
    before,
  );
});
