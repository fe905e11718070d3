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
  const name = `shopd_t_${process.pid}_${randomName()}`;
  const template = await migratedTemplate();
  await onServer(pgUrl, (c) => c.query(`create database ${name} template ${template}`));
  onEnd(t, () => dropDatabase(name));
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
let template: Promise<string> | undefined;

/** This process's migrated template database, made at the first call. */
function migratedTemplate(): Promise<string> {
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
    return name;
  })();
  return template;
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
