import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { type Kysely, sql } from 'kysely';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import type { Database } from '../src/db/schema.js';
import { encodeCursor } from '../src/http/pagination.js';
import { createApiKey } from '../src/modules/accounts/service.js';
import { BENCH_DIR, databaseUrl, type Engine, metaPath, type SeedMeta, serverEnv, sqliteFile } from './config.js';
import { ensurePgDatabase } from './pg-admin.js';
import { apiClient, createCatalog, GATEWAYS, UTC_OFFSET_MINUTES } from './seed-catalog.js';
import { seededRandom } from './seed-data.js';
import { SIZES, seedHistory } from './seed-history.js';

/**
 * `npm run bench -- --seed`: a fresh benchmark database holding one large shop. The catalog
 * goes through the HTTP API; the history is bulk-inserted (see seed-history.ts). Writes what it
 * made to `<engine>-seed.json` next to the database.
 */
const DAY = 86_400_000;
type Conn = Kysely<Database>;

const localDate = (ms: number) => new Date(ms + UTC_OFFSET_MINUTES * 60_000).toISOString().slice(0, 10);

function log(line: string): void {
  process.stdout.write(`[seed] ${line}\n`);
}

/**
 * The derived data the services maintain as they write (the invoices' repeat-purchase flags,
 * which the rollups count, dashboard rollups, storefront totals), rebuilt from the bulk-inserted
 * rows by the modules' own functions, in this order. Each is optional: the modules are being
 * written alongside this benchmark, and a missing one is reported.
 */
const REBUILDERS = [
  { name: 'deriveRepeatPurchases', module: '../src/modules/orders/index.js' },
  { name: 'rebuildRollups', module: '../src/modules/rollups/index.js' },
  { name: 'rebuildStorefrontTotals', module: '../src/modules/storefront/index.js' },
] as const;

async function runRebuilders(db: Conn, shopId: number): Promise<string[]> {
  const done: string[] = [];
  for (const { name, module } of REBUILDERS) {
    let loaded: Record<string, unknown>;
    try {
      loaded = (await import(module)) as Record<string, unknown>;
    } catch (err) {
      if ((err as { code?: string }).code !== 'ERR_MODULE_NOT_FOUND') throw err;
      loaded = {};
    }
    const rebuild = loaded[name];
    if (typeof rebuild !== 'function') {
      log(`${name} (${module.replace('../', '').replace(/\.js$/, '.ts')}) is missing: not rebuilt`);
      continue;
    }
    const started = Date.now();
    await (rebuild as (db: Conn, shopId: number) => Promise<unknown>)(db, shopId);
    log(`${name}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
    done.push(name);
  }
  return done;
}

export async function appliedMigrations(db: Conn): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
  return rows.map((r) => r.name);
}

export async function seedBench(engine: Engine): Promise<SeedMeta> {
  const started = Date.now();
  mkdirSync(BENCH_DIR, { recursive: true });
  if (engine === 'sqlite') {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${sqliteFile}${suffix}`, { force: true });
  } else {
    await ensurePgDatabase(true);
  }
  rmSync(metaPath(engine), { force: true });
  log(`${engine}: ${databaseUrl(engine)}`);

  const base = loadConfig(serverEnv(engine));
  const app = await buildApp({
    config: {
      ...base,
      bodyLimitBytes: 64 * 1024 * 1024,
      rateLimit: { ...base.rateLimit, ownerMax: 0, publicMax: 0 },
      mail: { ...base.mail, workerEnabled: false },
    },
    logger: false,
  });
  try {
    const db = app.db.kysely;
    // The seed's own connection only: a larger page cache for a gigabyte of random-order index inserts.
    if (engine === 'sqlite') await sql`pragma cache_size = -262144`.execute(db);
    const random = seededRandom(20_260_101);
    const { key } = await createApiKey(app.ctx, { email: 'bench@localhost' });
    const catalog = await createCatalog(apiClient(app, key), random);
    log(
      `catalog: shop ${catalog.shopId}, ${catalog.products.length} products, ${catalog.listings} listings (${((Date.now() - started) / 1000).toFixed(1)} s)`,
    );

    const now = Date.now();
    const history = await seedHistory(db, catalog, random, now, { info: log });
    if (engine === 'postgres') {
      // What autovacuum does soon after a bulk load (statistics, visibility map), done now: the
      // rebuilders' queries are planned from these statistics.
      const vacuumStarted = Date.now();
      for (const table of [
        'customers',
        'customer_ips',
        'invoices',
        'invoice_parts',
        'serials',
        'feedbacks',
        'products',
      ]) {
        await sql`vacuum analyze ${sql.table(table)}`.execute(db);
      }
      log(`vacuum analyze: ${((Date.now() - vacuumStarted) / 1000).toFixed(1)} s`);
    }
    const rebuilt = await runRebuilders(db, catalog.shopId);
    if (engine === 'postgres') await sql`analyze`.execute(db);
    else await sql`pragma wal_checkpoint(truncate)`.execute(db);

    const broad = await db
      .selectFrom('invoices')
      .select(['created_at', 'id'])
      .where('shop_id', '=', catalog.shopId)
      .where('status', '=', 'completed')
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .offset(9_999 * 20 - 1)
      .executeTakeFirstOrThrow();
    const seconds = Math.round((Date.now() - started) / 100) / 10;
    const meta: SeedMeta = {
      engine,
      database: databaseUrl(engine),
      seededAt: new Date().toISOString(),
      seedSeconds: seconds,
      migrations: await appliedMigrations(db),
      rebuilt,
      shopId: catalog.shopId,
      apiKey: key,
      utcOffsetMinutes: UTC_OFFSET_MINUTES,
      counts: {
        listings: catalog.listings,
        products: catalog.products.length + 1,
        customers: SIZES.customers,
        invoices: history.invoices,
        parts: history.parts,
        serials: history.serials,
        feedbacks: history.feedbacks,
      },
      paths: {
        product: catalog.products.find((p) => p.kind === 'game' && p.popularity > 5)?.path ?? catalog.products[0]!.path,
        group: catalog.groupPath,
      },
      editable: catalog.editable,
      checkout: {
        productId: catalog.checkout.productId,
        variantId: catalog.checkout.variantId,
        path: catalog.checkout.path,
        serials: SIZES.checkoutSerials,
        gateway: 'tipjar',
      },
      gateways: [...GATEWAYS],
      invoiceList: {
        filtered: {
          status: 'completed',
          gateway: 'tipjar',
          fromDate: localDate(now - 89 * DAY),
          toDate: localDate(now),
        },
        broad: { status: 'completed' },
        page10000Cursor: encodeCursor({ value: Number(broad.created_at), id: broad.id }),
      },
      history: { firstDay: localDate(history.start), lastDay: localDate(history.end) },
    };
    writeFileSync(metaPath(engine), `${JSON.stringify(meta, null, 2)}\n`);
    log(`done in ${seconds} s: ${JSON.stringify(meta.counts)}`);
    return meta;
  } finally {
    await app.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  seedBench(process.argv.includes('--pg') ? 'postgres' : 'sqlite').catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
