import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { performance } from 'node:perf_hooks';
import type { InjectOptions } from 'fastify';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { type Engine, readMeta, serverEnv } from './config.js';

/**
 * Where a hot path's time goes, in process (no HTTP client on the same cores): each path is
 * injected `n` times after a warm-up; prints the mean time per request and the statements it
 * ran, slowest total first. `node --import tsx bench/profile.ts [--pg] [path ...]`.
 * With `CPU_PROFILE=dir`, each scenario's measured requests (not its warm-up) are also written
 * as `dir/<scenario>.cpuprofile` (open it in Chrome's DevTools).
 */
const engine: Engine = process.argv.includes('--pg') ? 'postgres' : 'sqlite';
const meta = readMeta(engine);
if (!meta) throw new Error('no seeded database: run npm run bench -- --seed first');
const app = await buildApp({ config: loadConfig(serverEnv(engine)), logger: false });
const stats = new Map<string, { n: number; ms: number }>();
let observing = false;
app.db.observeQueries((e) => {
  if (!observing) return;
  const s = stats.get(e.sql) ?? { n: 0, ms: 0 };
  s.n++;
  s.ms += e.durationMs;
  stats.set(e.sql, s);
});
const shop = meta.shopId;
const auth = { authorization: `Bearer ${meta.apiKey}` };
let buyer = 0;
const f = meta.invoiceList.filtered;
const scenarios: Record<string, () => InjectOptions> = {
  main: () => ({ url: `/v2/public/shops/${shop}/main` }),
  'main-cached': () => ({ url: `/v2/public/shops/${shop}/main` }),
  product: () => ({ url: `/v2/public/shops/${shop}/listings/${meta.paths.product}` }),
  'product-cached': () => ({ url: `/v2/public/shops/${shop}/listings/${meta.paths.product}` }),
  checkout: () => ({
    method: 'POST',
    url: `/v2/public/shops/${shop}/invoices`,
    payload: {
      customerEmail: `bench.buyer${buyer++ % 5000}@example.com`,
      gateway: meta.checkout.gateway,
      parts: [{ productId: meta.checkout.productId, productVariantId: meta.checkout.variantId, quantity: 1 }],
    },
  }),
  invoices: () => ({
    url: `/self/${shop}/invoices?status=${f.status}&gateway=${f.gateway}&fromDate=${f.fromDate}&toDate=${f.toDate}`,
    headers: auth,
  }),
  general: () => ({ url: `/self/${shop}/dashboard/general?fromDate=2026-01-01&toDate=2026-09-30`, headers: auth }),
  advanced: () => ({ url: `/self/${shop}/dashboard/advanced?fromDate=2026-01-01&toDate=2026-09-30`, headers: auth }),
};
const invalidating = { main: true, product: true } as Record<string, boolean>;
// The static baseline of the bench server (bench/server.ts): the main page's own bytes.
let staticBody: Buffer = Buffer.alloc(0);
app.get('/__static', { config: { rateLimit: false } }, async (_request, reply) =>
  reply.type('application/json; charset=utf-8').send(staticBody),
);
scenarios.static = () => ({ url: '/__static' });
// The fixed costs: a bare route, and the cheapest owner read (API key and rate limit, no shop).
app.get('/__hello', { config: { rateLimit: false } }, async () => ({ hello: 'world' }));
scenarios.hello = () => ({ url: '/__hello' });
scenarios.owner = () => ({ url: '/self/shops', headers: auth });
// T13's licence check: the newest activated licence of the bench shop (T13 leaves one).
const activated = await app.db.kysely
  .selectFrom('license_activations')
  .innerJoin('licenses', 'licenses.id', 'license_activations.license_id')
  .select(['licenses.license_key as key', 'license_activations.id as instanceId'])
  .where('licenses.shop_id', '=', shop)
  .where('license_activations.deactivated_at', 'is', null)
  .orderBy('license_activations.created_at', 'desc')
  .executeTakeFirst();
if (activated)
  scenarios.validate = () => ({
    method: 'POST',
    url: `/v2/public/shops/${shop}/licenses/validate`,
    payload: { licenseKey: activated.key, instanceId: activated.instanceId },
  });
staticBody = (await app.inject(scenarios['main-cached']!())).rawPayload;
const wanted = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const n = Number(process.env.N ?? 300);
const profiler = process.env.CPU_PROFILE ? new Session() : undefined;
if (profiler) {
  profiler.connect();
  await profiler.post('Profiler.enable');
}
for (const name of wanted.length ? wanted : Object.keys(scenarios)) {
  const make = scenarios[name]!;
  // A miss on demand: the shop's pages are dropped before each request of an invalidating scenario.
  const request = async () => {
    if (invalidating[name]) await app.pageCache.invalidate(shop);
    return app.inject(make());
  };
  for (let i = 0; i < 30; i++) {
    const res = await request();
    if (res.statusCode !== 200) throw new Error(`${name}: ${res.statusCode} ${res.body.slice(0, 300)}`);
  }
  stats.clear();
  if (profiler) await profiler.post('Profiler.start');
  observing = true;
  const started = performance.now();
  for (let i = 0; i < n; i++) await request();
  const total = performance.now() - started;
  observing = false;
  if (profiler)
    writeFileSync(
      `${process.env.CPU_PROFILE}/${name}.cpuprofile`,
      JSON.stringify((await profiler.post('Profiler.stop')).profile),
    );
  const rows = [...stats.entries()].sort((a, b) => b[1].ms - a[1].ms);
  const dbMs = rows.reduce((s, [, v]) => s + v.ms, 0);
  const count = rows.reduce((s, [, v]) => s + v.n, 0);
  console.log(
    `\n## ${name}${invalidating[name] ? ' (miss)' : ''}: ${(total / n).toFixed(3)} ms/request, db ${(dbMs / n).toFixed(3)} ms in ${(count / n).toFixed(1)} statements`,
  );
  for (const [q, v] of rows.slice(0, Number(process.env.TOP ?? 12)))
    console.log(`${(v.ms / n).toFixed(3)} ms  ×${(v.n / n).toFixed(2)}  ${q.replace(/\s+/g, ' ').slice(0, 220)}`);
}
await app.close();
