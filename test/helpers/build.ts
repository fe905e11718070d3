import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, type TestContext } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { buildApp } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import type { Clock } from '../../src/domain/context.js';
import { createApiKey, type Scope } from '../../src/modules/accounts/service.js';
import { multipartForm } from './multipart.js';

/** Which engine the suite runs on: `DB=postgres npm test` switches to PostgreSQL. */
export const engine = process.env.DB === 'postgres' ? 'postgres' : 'sqlite';
const pgUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const endings = new WeakMap<TestContext, (() => unknown)[]>();

/**
 * Runs `fn` when the test ends, before everything registered earlier with `onEnd` (last in,
 * first out): an app built on a database closes before the database is dropped, so no flush or
 * worker of it is writing while its schema goes (PostgreSQL would see a deadlock). Every step
 * runs even when one fails; the first failure is the test's.
 */
export function onEnd(t: TestContext, fn: () => unknown): void {
  let stack = endings.get(t);
  if (!stack) {
    const steps: (() => unknown)[] = [];
    stack = steps;
    endings.set(t, stack);
    t.after(async () => {
      let failure: unknown;
      for (const step of steps.reverse()) {
        try {
          await step();
        } catch (err) {
          failure ??= err;
        }
      }
      if (failure !== undefined) throw failure;
    });
  }
  stack.push(fn);
}

export interface FreshOptions {
  /**
   * A database with no tables yet, for a test of migrating itself (the CLI's `migrate`). Only on
   * PostgreSQL does this change anything: a SQLite database is always a new, empty file.
   */
  empty?: boolean;
}

/**
 * A fresh database for one test, dropped when the test ends, and the config to build the app
 * with.
 *
 * SQLite: a new file in a temp dir, which `buildApp` migrates (a few milliseconds of CPU).
 *
 * PostgreSQL: a new database copied (`CREATE DATABASE … TEMPLATE`) from a template that this
 * process migrated once, with the same `migrateToLatest` as `buildApp`, so every migration in
 * src/db/migrate.ts is in it. The tables are in the schema `shop`, reached through the
 * connection's `search_path`, as they were in the schema of their own each test had before.
 * Migrating a new schema for every test (each table, index and constraint created again) took
 * most of the PostgreSQL suite's time once apps stopped compiling their schemas anew (see
 * src/http/validation.ts); copying the migrated database is mostly I/O and took about a third
 * of the wall time (eight PostgreSQL-heavy test files: 94–102 s migrating, 59–65 s copying).
 * `buildApp` still runs `migrateToLatest` on the copy and finds nothing to do. `{ empty: true }`
 * gives a new, empty schema instead, for tests of migrating itself.
 */
export async function freshConfig(
  t: TestContext,
  env: Record<string, string> = {},
  options: FreshOptions = {},
): Promise<Config> {
  const dataDir = mkdtempSync(join(tmpdir(), 'shopd-test-'));
  // Background workers are off unless a test turns them on: tests flush them deterministically (runOnce).
  const base = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    SECRET_KEY: 'test-secret-key-0123456789',
    MAIL_WORKER_ENABLED: 'false',
    WEBHOOK_WORKER_ENABLED: 'false',
    ALLOW_PRIVATE_WEBHOOKS: 'true',
    // /health and /ready wait as long as the database takes on a loaded machine; tests of the timeout set their own.
    PROBE_TIMEOUT_MS: '60000',
    // Custom-domain verification never asks a public resolver: a closed local port answers at once
    // (refused). Tests of the check run their own DNS server (test/helpers/dns-server.ts).
    DNS_SERVERS: '127.0.0.1:9',
    // A proof-of-work challenge a test solves in a few milliseconds (the default takes ~0.4 s of CPU).
    CHALLENGE_COST: '1',
    CHALLENGE_COUNTER_MAX: '20',
    ...env,
  });
  onEnd(t, () => rmSync(dataDir, { recursive: true, force: true }));
  if (engine === 'sqlite') return base;
  if (options.empty) {
    const schema = `t_${process.pid}_${randomName()}`;
    await onServer(pgUrl, (c) => c.query(`create schema ${schema}`));
    onEnd(t, () => onServer(pgUrl, (c) => c.query(`drop schema if exists ${schema} cascade`)));
    return { ...base, database: { dialect: 'postgres', url: pgUrl, schema } };
  }
  const template = await migratedTemplate();
  let name = emptiedDatabases.pop();
  if (name === undefined) {
    name = `shopd_t_${process.pid}_${randomName()}`;
    await onServer(pgUrl, (c) => c.query(`create database ${name} template ${template.name}`));
  } else leftToDrop.delete(name);
  const taken = name;
  onEnd(t, () => giveBack(taken));
  return { ...base, database: { dialect: 'postgres', url: databaseUrl(name), schema: TEMPLATE_SCHEMA } };
}

const randomName = () => Math.random().toString(36).slice(2, 10);

/** The URL of database `name` on the test server. */
function databaseUrl(name: string): string {
  const url = new URL(pgUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

/** Runs `fn` on a connection of its own to `url`, closed afterwards whatever happens. */
async function onServer<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

const TEMPLATE_SCHEMA = 'shop';

interface Template {
  name: string;
  /** What a database must still be to be emptied and used again (see `structureOf`). */
  structure: string;
  /** The statements that empty a copy: every table's rows but the migrations' record, every sequence restarted. */
  emptying: string;
}
let template: Promise<Template> | undefined;

/** This process's migrated template database, made at the first call. */
function migratedTemplate(): Promise<Template> {
  template ??= (async () => {
    const name = `shopd_template_${process.pid}_${randomName()}`;
    await onServer(pgUrl, (c) => c.query(`create database ${name}`));
    leftToDrop.add(name);
    await onServer(databaseUrl(name), (c) => c.query(`create schema ${TEMPLATE_SCHEMA}`));
    const db = openDatabase({ dialect: 'postgres', url: databaseUrl(name), schema: TEMPLATE_SCHEMA });
    try {
      await migrateToLatest(db.kysely);
    } finally {
      // A template may not be copied while anyone is connected to it.
      await db.destroy();
    }
    return onServer(databaseUrl(name), async (c) => {
      const tables = await c.query<{ name: string }>(
        `select format('%I.%I', schemaname, tablename) as name from pg_tables
          where schemaname = $1 and tablename not like 'kysely_migration%' order by 1`,
        [TEMPLATE_SCHEMA],
      );
      const sequences = await c.query<{ name: string }>(
        `select format('%I.%I', schemaname, sequencename) as name from pg_sequences order by 1`,
      );
      const emptying = [
        ...tables.rows.map((r) => `delete from ${r.name}`),
        ...sequences.rows.map((r) => `alter sequence ${r.name} restart`),
      ].join('; ');
      return { name, structure: await structureOf(c), emptying };
    });
  })();
  return template;
}

/**
 * Test databases used again. Copying the template for every test wrote each copy's ~11 MB
 * through the WAL and synced it, and dropping it synced again: about half a second of I/O per
 * test, most of the PostgreSQL suite's extra time over SQLite's. A test's database is instead
 * emptied when its test ends (every row deleted, in one transaction that skips the foreign-key
 * triggers, and every sequence restarted: about 20 ms) and given to the next test of this
 * process, which then sees what a fresh copy holds. It is used again only when nobody is still
 * connected to it and its structure (schemas, tables, columns, defaults, constraints, indexes,
 * triggers, functions, extensions, the migrations' record) is still the template's: a test that
 * dropped a table or a schema, or left a connection open, gets its database dropped as before.
 */
const emptiedDatabases: string[] = [];

async function giveBack(name: string): Promise<void> {
  const { structure, emptying } = await migratedTemplate();
  let reusable = false;
  try {
    reusable = await onServer(databaseUrl(name), async (c) => {
      const others = await c.query<{ n: number }>(
        'select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
      );
      if (others.rows[0]!.n > 0 || (await structureOf(c)) !== structure) return false;
      await c.query(`begin; set local session_replication_role = replica; ${emptying}; commit`);
      return true;
    });
  } catch {
    // Not reachable (connections refused), not permitted (session_replication_role needs a superuser): dropped instead.
  }
  if (!reusable) return dropDatabase(name);
  leftToDrop.add(name);
  emptiedDatabases.push(name);
}

/** A digest of a database's structure as `giveBack` compares it with the template's. */
async function structureOf(c: pg.Client): Promise<string> {
  const user = `n.nspname not like 'pg\\_%' and n.nspname <> 'information_schema'`;
  const { rows } = await c.query<{ digest: string }>(`
    select md5(coalesce(string_agg(x, '|' order by x), '')) as digest from (
      select 'n:' || n.nspname as x from pg_namespace n where ${user}
      union all
      select 'c:' || n.nspname || '.' || c.relname || ':' || c.relkind::text || ':' || a.attname || ':' ||
             format_type(a.atttypid, a.atttypmod) || ':' || a.attnotnull || ':' || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
        from pg_class c join pg_namespace n on n.oid = c.relnamespace
        join pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
        left join pg_attrdef d on d.adrelid = c.oid and d.adnum = a.attnum
       where ${user}
      union all
      select 'k:' || n.nspname || '.' || k.conname || ':' || pg_get_constraintdef(k.oid)
        from pg_constraint k join pg_namespace n on n.oid = k.connamespace where ${user}
      union all
      select 'i:' || pg_get_indexdef(i.indexrelid)
        from pg_index i join pg_class c on c.oid = i.indexrelid join pg_namespace n on n.oid = c.relnamespace where ${user}
      union all
      select 't:' || c.relname || ':' || g.tgname from pg_trigger g join pg_class c on c.oid = g.tgrelid where not g.tgisinternal
      union all
      select 'f:' || p.oid::regprocedure::text from pg_proc p join pg_namespace n on n.oid = p.pronamespace where ${user}
      union all
      select 'e:' || extname from pg_extension
      union all
      select 'm:' || name from ${TEMPLATE_SCHEMA}.kysely_migration
      union all
      select 'l:' || id || ':' || is_locked from ${TEMPLATE_SCHEMA}.kysely_migration_lock
    ) s`);
  return rows[0]!.digest;
}

/**
 * Databases dropped when this test file ends: the template, and any test's database that was
 * still in use when its test ended (PostgreSQL drops no database someone is connected to).
 */
const leftToDrop = new Set<string>();
after(async () => {
  for (const name of leftToDrop) await dropDatabase(name, { last: true });
});

async function dropDatabase(name: string, { last = false } = {}): Promise<void> {
  try {
    await onServer(pgUrl, (c) => c.query(`drop database if exists ${name}`));
    leftToDrop.delete(name);
  } catch (err) {
    // 55006 object_in_use: a connection of the test is still open; try again when the file ends.
    if ((err as { code?: string }).code !== '55006' || last) throw err;
    leftToDrop.add(name);
  }
}

/**
 * A fresh database as both the config to build the app with and the environment a child
 * process (CLI, server) reads, pointing at the same database.
 */
export async function processEnv(
  t: TestContext,
  options: FreshOptions = {},
): Promise<{ config: Config; env: Record<string, string> }> {
  const config = await freshConfig(t, {}, options);
  const db = config.database;
  const url =
    db.dialect === 'sqlite'
      ? `sqlite:${db.file}`
      : `${db.url}?options=${encodeURIComponent(`-c search_path=${db.schema}`)}`;
  return { config, env: { DATA_DIR: config.dataDir, DATABASE_URL: url, SECRET_KEY: 'test-secret-key-0123456789' } };
}

/** The production app on a fresh database, closed when the test ends. */
export async function build(
  t: TestContext,
  env: Record<string, string> = {},
  options: { clock?: Clock } = {},
): Promise<FastifyInstance> {
  const app = await buildApp({ config: await freshConfig(t, env), logger: false, clock: options.clock });
  onEnd(t, () => app.close());
  return app;
}

export interface Reply {
  status: number;
  body: any;
  headers: Record<string, string | string[] | undefined>;
}

/** A client for the app with one API key: `await client.put('/self/1/settings/name', { newName })`. */
export interface Client {
  key: string;
  request(method: string, url: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
  get(url: string): Promise<Reply>;
  post(url: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
  put(url: string, body?: unknown): Promise<Reply>;
  delete(url: string): Promise<Reply>;
  /** POST one file as the multipart part `file`. */
  upload(url: string, file: Buffer, filename?: string): Promise<Reply>;
}

export function client(app: FastifyInstance, key: string): Client {
  const request = async (
    method: string,
    url: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Reply> => {
    const res = await app.inject({
      method: method as 'GET',
      url,
      headers: { authorization: `Bearer ${key}`, ...headers },
      ...(body === undefined ? {} : { payload: body as object }),
    });
    return {
      status: res.statusCode,
      body: res.body ? res.json() : undefined,
      headers: res.headers as Reply['headers'],
    };
  };
  return {
    key,
    request,
    get: (url) => request('GET', url),
    post: (url, body, headers) => request('POST', url, body, headers),
    put: (url, body) => request('PUT', url, body),
    delete: (url) => request('DELETE', url),
    upload: async (url, file, filename = 'image.png') => {
      const form = multipartForm([{ name: 'file', data: file, filename, type: 'application/octet-stream' }]);
      const res = await app.inject({
        method: 'POST',
        url,
        payload: form.payload,
        headers: { authorization: `Bearer ${key}`, ...form.headers },
      });
      return {
        status: res.statusCode,
        body: res.body ? res.json() : undefined,
        headers: res.headers as Reply['headers'],
      };
    },
  };
}

let accountCounter = 0;

/** A new account with a key of these scopes, and a client for it. */
export async function owner(app: FastifyInstance, opts: { email?: string; scopes?: Scope[] } = {}): Promise<Client> {
  const email = opts.email ?? `owner${++accountCounter}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const { key } = await createApiKey(app.ctx, { email, scopes: opts.scopes });
  return client(app, key);
}
