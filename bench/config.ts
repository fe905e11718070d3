import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { DatabaseConfig } from '../src/config.js';

/**
 * Where the benchmark keeps its database and what the seed recorded about it. The bench never
 * touches the development database under ./data: everything lives under ./data/bench.
 */
export type Engine = 'sqlite' | 'postgres';

/**
 * The protection of the bench's shops (PUT settings/protection): every client limit and mail
 * budget at its maximum rather than off, so the checks still run and their cost is measured,
 * while the one client a bench is (every request from 127.0.0.1) never meets them.
 */
export const BENCH_PROTECTION = {
  holdMinutesHosted: 10_080,
  unitsPerClient: 10_000_000,
  pendingPerClient: 10_000_000,
  hostedCheckoutsPerHour: 10_000_000,
  mailPerRecipientHour: 10_000_000,
  mailPerClientHour: 10_000_000,
  mailPerShopDay: 10_000_000,
  // One client taking thousands of actions would be asked for a challenge past any threshold (and
  // count a growing hour of actions each time): the bench measures the shop without it.
  challenge: 'off',
} as const;

export const BENCH_DIR = resolve('data/bench');
export const RESULTS_DIR = resolve('bench/results');
export const PG_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
export const PG_BENCH_URL = 'postgres://postgres@127.0.0.1:5432/shopd_bench';
/** Fixed so the gateway credentials the seed sealed can be read by every later server run. */
const BENCH_SECRET_KEY = 'shopd-bench-secret-key-not-for-production';

export const sqliteFile = resolve(BENCH_DIR, 'shopd-bench.sqlite');

export function databaseUrl(engine: Engine): string {
  return engine === 'sqlite' ? `sqlite:${sqliteFile}` : PG_BENCH_URL;
}

export function databaseConfig(engine: Engine): DatabaseConfig {
  return engine === 'sqlite' ? { dialect: 'sqlite', file: sqliteFile } : { dialect: 'postgres', url: PG_BENCH_URL };
}

/** The seed's record, next to the database (for PostgreSQL, in the same folder). */
export function metaPath(engine: Engine): string {
  return resolve(BENCH_DIR, `${engine}-seed.json`);
}

/**
 * The environment of the server under test: rate limits very high but on (the plugin stays in
 * the stack), no mail or webhook worker, warnings only.
 */
export function serverEnv(engine: Engine): Record<string, string> {
  return {
    DATA_DIR: BENCH_DIR,
    DATABASE_URL: databaseUrl(engine),
    SECRET_KEY: BENCH_SECRET_KEY,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_OWNER_MAX: '1000000000',
    RATE_LIMIT_PUBLIC_MAX: '1000000000',
    MAIL_WORKER_ENABLED: 'false',
    WEBHOOK_WORKER_ENABLED: 'false',
    // The seed's newest pending invoices come due in the hour after seeding (and checkouts leave
    // more): the expiry worker would expire them in the middle of a measurement, each expiry
    // returning stock and so changing the public pages (T1's 304 run got 200s). The server
    // expires what is overdue at start, and checkouts still expire their shop's overdue invoices.
    INVOICE_EXPIRY_INTERVAL_MS: '2000000000',
    HOST: '127.0.0.1',
    PORT: '0',
    // `METRICS_TOKEN=… npm run bench` measures with the operator's metrics on (off by default, as in production).
    ...(process.env.METRICS_TOKEN ? { METRICS_TOKEN: process.env.METRICS_TOKEN } : {}),
  };
}

/** What the seed created, for the runner and the server. */
export interface SeedMeta {
  engine: Engine;
  database: string;
  seededAt: string;
  seedSeconds: number;
  /** Migrations applied when the seed ran: when the code has others, the runner seeds again. */
  migrations: string[];
  /** The derived-table rebuilders that ran after the bulk insert (see seed.ts). */
  rebuilt: string[];
  shopId: number;
  apiKey: string;
  utcOffsetMinutes: number;
  counts: {
    listings: number;
    products: number;
    customers: number;
    invoices: number;
    parts: number;
    serials: number;
    feedbacks: number;
  };
  /** Listing paths: a serials product with feedbacks, a group. */
  paths: { product: string; group: string };
  /** A service product whose title the T2 check edits: its full input body, variant ids included. */
  editable: { productId: number; body: Record<string, unknown> };
  /** The unlisted serials product checkouts buy, with a large stock. */
  checkout: { productId: number; variantId: number; path: string; serials: number; gateway: string };
  gateways: string[];
  /** T5: a filtered list, and a broad one with the cursor that opens its page 10,000. */
  invoiceList: {
    filtered: { status: string; gateway: string; fromDate: string; toDate: string };
    broad: { status: string };
    page10000Cursor: string;
  };
  /** Dashboards: the days the history covers (shop-local dates). */
  history: { firstDay: string; lastDay: string };
}

export function readMeta(engine: Engine): SeedMeta | undefined {
  const path = metaPath(engine);
  if (!existsSync(path)) return undefined;
  return JSON.parse(readFileSync(path, 'utf8')) as SeedMeta;
}

/** The migrations the code has now (their file names), to tell whether a seed predates one. */
export function currentMigrations(): string[] {
  return readdirSync(resolve('src/db/migrations'))
    .filter((f) => /^\d{4}-.+\.ts$/.test(f))
    .map((f) => f.replace(/\.ts$/, ''))
    .sort();
}
