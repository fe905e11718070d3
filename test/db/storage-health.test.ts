import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StorageHealth, storageFailureOf } from '../../src/db/storage-health.js';
import { toAppError } from '../../src/http/error-handler.js';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

test('storage failures of both engines are told apart from everything else', () => {
  const cases: [Error, string | undefined][] = [
    [withCode('SQLITE_FULL', 'database or disk is full'), 'disk_full'],
    [withCode('SQLITE_READONLY_DBMOVED'), 'read_only'],
    [withCode('SQLITE_IOERR_WRITE'), 'io_error'],
    [withCode('SQLITE_BUSY'), 'locked'],
    [withCode('53100'), 'disk_full'],
    [withCode('25006'), 'read_only'],
    [withCode('57P01', 'terminating connection due to administrator command'), 'unreachable'],
    [withCode('08006'), 'unreachable'],
    [withCode('ECONNREFUSED'), 'unreachable'],
    [new Error('Connection terminated unexpectedly'), 'unreachable'],
    [new Error('timeout exceeded when trying to connect'), 'unreachable'],
    [withCode('23505'), undefined],
    [withCode('SQLITE_CONSTRAINT_UNIQUE'), undefined],
    [new TypeError('a bug'), undefined],
  ];
  for (const [err, cause] of cases) assert.equal(storageFailureOf(err)?.cause, cause, err.message);
});

test('a database outage is a 503 with Retry-After naming the cause, not a 500', () => {
  const refused = toAppError(withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'));
  assert.equal(refused.statusCode, 503);
  assert.deepEqual(refused.errors, ['database: the database does not answer']);
  assert.equal((refused as unknown as { retryAfterSeconds: number }).retryAfterSeconds, 5);
  assert.equal(toAppError(new TypeError('a bug')).statusCode, 500);
});

test('the failure is logged once when it starts and once when a write ends it; reads do not end it', () => {
  const lines: string[] = [];
  const health = new StorageHealth();
  health.log = { warn: (_o, msg) => void lines.push(`warn ${msg}`), info: (_o, msg) => void lines.push(`info ${msg}`) };
  for (let i = 0; i < 5; i++) health.report(withCode('SQLITE_FULL'));
  assert.equal(health.failure?.cause, 'disk_full');
  health.succeeded('select * from shops');
  assert.equal(health.failure?.cause, 'disk_full', 'a read says nothing of the disk');
  health.succeeded('insert into storage_probes ...');
  assert.equal(health.failure, null);
  assert.deepEqual(
    lines.map((l) => l.split(':')[0]),
    ['warn database failure', 'info database failure over'],
  );
  health.report(withCode('57P01'));
  health.succeeded('select 1');
  assert.equal(health.failure, null, 'a server that answers again ends an outage');
});
