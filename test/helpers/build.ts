import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { buildApp } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config.js';
import { createApiKey, type Scope } from '../../src/modules/accounts/service.js';
import { multipartForm } from './multipart.js';

/** Which engine the suite runs on: `DB=postgres npm test` switches to PostgreSQL. */
export const engine = process.env.DB === 'postgres' ? 'postgres' : 'sqlite';
const pgUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/**
 * A fresh database for one test: a new SQLite file in a temp dir, or a new PostgreSQL schema
 * (dropped afterwards). Returns the config to build the app with.
 */
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

export async function freshConfig(t: TestContext, env: Record<string, string> = {}): Promise<Config> {
  const dataDir = mkdtempSync(join(tmpdir(), 'shopd-test-'));
  // Background workers are off unless a test turns them on: tests flush them deterministically (runOnce).
  const base = loadConfig({
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    SECRET_KEY: 'test-secret-key-0123456789',
    MAIL_WORKER_ENABLED: 'false',
    WEBHOOK_WORKER_ENABLED: 'false',
    ALLOW_PRIVATE_WEBHOOKS: 'true',
    ...env,
  });
  onEnd(t, () => rmSync(dataDir, { recursive: true, force: true }));
  if (engine === 'sqlite') return base;
  const schema = `t_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  onEnd(t, async () => {
    const cleanup = new pg.Client({ connectionString: pgUrl });
    await cleanup.connect();
    await cleanup.query(`drop schema if exists ${schema} cascade`);
    await cleanup.end();
  });
  return { ...base, database: { dialect: 'postgres', url: pgUrl, schema } };
}

/**
 * A fresh database as both the config to build the app with and the environment a child
 * process (CLI, server) reads, pointing at the same database.
 */
export async function processEnv(t: TestContext): Promise<{ config: Config; env: Record<string, string> }> {
  const config = await freshConfig(t);
  const db = config.database;
  const url =
    db.dialect === 'sqlite'
      ? `sqlite:${db.file}`
      : `${db.url}?options=${encodeURIComponent(`-c search_path=${db.schema}`)}`;
  return { config, env: { DATA_DIR: config.dataDir, DATABASE_URL: url, SECRET_KEY: 'test-secret-key-0123456789' } };
}

/** The production app on a fresh database, closed when the test ends. */
export async function build(t: TestContext, env: Record<string, string> = {}): Promise<FastifyInstance> {
  const app = await buildApp({ config: await freshConfig(t, env), logger: false });
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
  const { key } = await createApiKey(app.db.kysely, { email, scopes: opts.scopes });
  return client(app, key);
}
