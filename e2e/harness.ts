import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, type TestContext, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import {
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  chromium,
  type Locator,
  type Page,
} from 'playwright-core';
import { buildApp } from '../src/app.js';
import { setPassword } from '../src/modules/accounts/index.js';
import { type Client, freshConfig, onEnd, owner } from '../test/helpers/build.js';
import { RELAXED_PROTECTION } from '../test/helpers/factories.js';

/**
 * End-to-end tests: the real app on a fresh database (SQLite, or PostgreSQL with DB=postgres),
 * listening on a loopback port, driven by Debian's chromium through playwright-core. One browser
 * per test file, a fresh context (cookies, storage) per test; every page a test looks at is saved
 * as a full-page screenshot under `test-output/e2e/<test name>/`.
 *
 * Without a chromium binary the tests are skipped with a message, unless E2E_REQUIRED=1 (CI),
 * then they fail.
 */

const INSTALL_HINT = 'no chromium found: install it with `apt-get install -y chromium` (or set CHROMIUM_PATH)';

/** Runs `path --version`; a wrapper script that cannot start the browser here fails this. */
function runs(path: string): boolean {
  try {
    execFileSync(path, ['--version'], { stdio: 'pipe', timeout: 30_000 });
    return true;
  } catch {
    return false;
  }
}

/** The browser binary: CHROMIUM_PATH when set, else Debian's wrapper, else the binary behind it. */
function findChromium(): string | undefined {
  const given = process.env.CHROMIUM_PATH;
  if (given) return given;
  return ['/usr/bin/chromium', '/usr/lib/chromium/chromium', '/usr/bin/chromium-browser'].find(runs);
}

export const chromiumPath = findChromium();
const required = process.env.E2E_REQUIRED === '1';

/**
 * Chromium talks to nothing but the app: no sync, updates, field trials, QUIC or prefetching,
 * and every host name but the loopback resolves to nothing (a shop's web font, say).
 */
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
];

let browser: Promise<Browser> | undefined;
function sharedBrowser(): Promise<Browser> {
  browser ??= chromium.launch({ executablePath: chromiumPath!, args: ARGS, headless: true, timeout: 120_000 });
  return browser;
}
after(async () => {
  if (browser) await (await browser).close();
});

/**
 * A browser test: skipped (saying how to install chromium) when there is none, failed instead
 * when E2E_REQUIRED=1. The timeout only bounds a hang on a busy machine.
 */
export function e2eTest(
  name: string,
  fn: (t: TestContext) => Promise<void>,
  options: {
    /**
     * What the test checks does not depend on the database engine (a layout, the page without
     * script, the admin's formatting, the API reference): the PostgreSQL pass skips it, saving CI
     * its time; the paths to the database it takes are tested on both engines elsewhere.
     */
    sqlitePassOnly?: boolean;
  } = {},
): void {
  if (options.sqlitePassOnly && process.env.DB === 'postgres') {
    test(name, { skip: 'engine-independent: runs in the SQLite pass' }, () => {});
    return;
  }
  if (!chromiumPath && required) {
    test(name, () => assert.fail(`E2E_REQUIRED=1 but ${INSTALL_HINT}`));
    return;
  }
  test(name, { skip: chromiumPath ? false : INSTALL_HINT, timeout: 300_000 }, fn);
}

/** The app, listening on a loopback port, and an owner with a key. */
export interface Server {
  app: FastifyInstance;
  /** `http://127.0.0.1:{port}` */
  url: string;
  api: Client;
}

export async function startServer(t: TestContext, env: Record<string, string> = {}): Promise<Server> {
  const app = await buildApp({ config: await freshConfig(t, env), logger: false });
  onEnd(t, () => app.close());
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return { app, url: `http://127.0.0.1:${port}`, api: await owner(app) };
}

/** Asserts an owner API answer is OK and returns its data. */
export function ok(res: { status: number; body: any }): any {
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data;
}

/** The password the e2e owners sign in to the admin with. */
export const OWNER_PASSWORD = 'correct horse battery staple';

/** The account behind the test server's API key, given OWNER_PASSWORD; answers its e-mail. */
export async function ownerWithPassword(server: Server): Promise<string> {
  const row = await server.app.db.kysely
    .selectFrom('accounts')
    .select('email')
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow();
  await setPassword(server.app.ctx, row.email, OWNER_PASSWORD);
  return row.email;
}

/** Fills and sends the admin's sign-in form (the answer is the caller's to wait for). */
export async function signInToAdmin(page: Page, server: Server, email: string, password = OWNER_PASSWORD) {
  await page.goto(`${server.url}/admin/`);
  await page.getByRole('heading', { name: 'Sign in to shopd' }).waitFor();
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

export interface Browsing {
  context: BrowserContext;
  page: Page;
  /**
   * Saves a full-page screenshot of the page as `test-output/e2e/<test>/<nn>-<step>.png`, and
   * checks the page with axe-core: a serious or critical violation fails the test when it ends.
   */
  shot(step: string, page?: Page): Promise<void>;
}

/** axe-core's browser build, evaluated in each page checked (as DevTools would, past the page's CSP). */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * The serious and critical WCAG 2.x A/AA violations axe-core finds on the page as it is now, one
 * line each with the elements concerned.
 */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: unknown, options: unknown): Promise<any> } }).axe;
    const result = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] },
      resultTypes: ['violations'],
    });
    return (result.violations as { id: string; impact: string; help: string; nodes: { target: string[] }[] }[]).map(
      (v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.map((n) => n.target.join(' ')) }),
    );
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id} (${v.help}) on ${page.url()}: ${v.targets.slice(0, 5).join(', ')}`);
}

/** `test-output/e2e/` at the top of the repository, wherever the tests are started from. */
const OUTPUT = fileURLToPath(new URL('../test-output/e2e/', import.meta.url));

const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, 80)
    .replace(/^-|-$/g, '');

const testShots = new WeakMap<TestContext, { dir: string; step: number }>();

/** The test's screenshot folder (emptied of an earlier run's) and its step counter, shared by its browsers. */
function shotsOf(t: TestContext): { dir: string; step: number } {
  let shots = testShots.get(t);
  if (!shots) {
    const dir = join(OUTPUT, `${slug(t.name)}${process.env.DB === 'postgres' ? '-postgres' : ''}`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    shots = { dir, step: 0 };
    testShots.set(t, shots);
  }
  return shots;
}

/**
 * A new browser context (its own cookies and storage, like a fresh profile) and page for this
 * test, closed when the test ends. `label` tells apart several buyers in one test. Any script
 * error on a page, or a console error (a Content-Security-Policy violation, a failed load), fails
 * the test when it ends.
 */
export async function browse(
  t: TestContext,
  options: BrowserContextOptions & {
    label?: string;
    /** Answers the test asks for (a refused sign-in, a call without a session): not faults. */
    expected?: (url: URL, status: number) => boolean;
  } = {},
): Promise<Browsing> {
  const { label, expected, ...contextOptions } = options;
  const context = await (await sharedBrowser()).newContext({ locale: 'en-US', timezoneId: 'UTC', ...contextOptions });
  context.setDefaultTimeout(60_000);
  const problems: string[] = [];
  const watch = (page: Page) => {
    page.on('pageerror', (err) => problems.push(`script error on ${page.url()}: ${err.message}`));
    // A page answered 401/404/422 on purpose logs "Failed to load resource"; a broken
    // stylesheet, script, image or request of the script is caught below instead.
    page.on('console', (msg) => {
      if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource'))
        problems.push(`console error on ${page.url()}: ${msg.text()}`);
    });
    page.on('response', (res) => {
      const type = res.request().resourceType();
      const url = new URL(res.url());
      if (
        res.status() >= 400 &&
        type !== 'document' &&
        url.pathname !== '/favicon.ico' &&
        !expected?.(url, res.status())
      )
        problems.push(`${type} ${res.url()} answered ${res.status()}`);
    });
    // Leaving a page aborts what it still had in flight (a status poll, say): that is no fault.
    page.on('requestfailed', (req) => {
      const why = req.failure()?.errorText ?? '';
      if (why !== 'net::ERR_ABORTED') problems.push(`${req.resourceType()} ${req.url()} failed: ${why}`);
    });
  };
  context.on('page', watch);
  const page = await context.newPage();
  onEnd(t, async () => {
    await context.close();
    assert.deepEqual(problems, [], 'the pages ran without script or console errors');
  });
  const shots = shotsOf(t);
  return {
    context,
    page,
    shot: async (name, which = page) => {
      shots.step += 1;
      const file = `${String(shots.step).padStart(2, '0')}-${label ? `${slug(label)}-` : ''}${slug(name)}.png`;
      await which.screenshot({ path: join(shots.dir, file), fullPage: true });
      // Only pages of our own making: a provider's page (the Stripe double's) and the API reference
      // (Swagger UI's markup, for developers) are not checked.
      if (/^\/(stripe|docs)(\/|$)/.test(new URL(which.url()).pathname)) return;
      // Nor can a browser without JavaScript run axe; its pages are the same HTML a scripted one checks.
      if (contextOptions.javaScriptEnabled === false) return;
      for (const problem of await accessibilityProblems(which)) problems.push(`${name}: ${problem}`);
    },
  };
}

/** Whether this element has the keyboard focus. */
export function focused(locator: Locator): Promise<boolean> {
  return locator.evaluate((el) => el === document.activeElement);
}

/**
 * Presses Tab (Shift+Tab with `back`) until `target` has the focus, as a keyboard user does;
 * fails after `max` presses, naming the target.
 */
export async function tabTo(page: Page, target: Locator, what: string, { max = 60, back = false } = {}) {
  for (let i = 0; i < max; i++) {
    if (await focused(target)) return;
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
  }
  assert.ok(await focused(target), `${what} is reachable with the Tab key`);
}

/** Whether anything on the page makes it scroll sideways. */
export function overflowsHorizontally(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
}

/** The mail the app wrote to this address (newest last): the test config keeps the mail worker off. */
export async function mailTo(app: FastifyInstance, address: string) {
  return app.db.kysely
    .selectFrom('mail_outbox')
    .select(['to_address', 'subject', 'body_text'])
    .where('to_address', '=', address)
    .orderBy('id')
    .execute();
}

export interface SeededShop {
  shopId: number;
  subdomain: string;
  /** `{server url}/s/{subdomain}` */
  home: string;
  productId: number;
  variantId: number;
}

/**
 * A shop seeded through the owner API as an owner would: the tipjar gateway on (a manual
 * gateway: the buyer gets instructions, the owner marks the invoice paid), with `balance` the
 * store balance too, and one product, "Game Key", selling exactly these serial keys.
 */
export async function seedShop(
  server: Server,
  opts: { name?: string; keys?: string[]; terms?: string; balance?: boolean } = {},
): Promise<SeededShop> {
  const { api, url } = server;
  const shop = ok(await api.post('/self/shops', { name: opts.name ?? 'Pixel Keys' }));
  // One browser is one client: the walks place more orders and posts than a shop's defaults let one client.
  ok(await api.put(`/self/${shop.id}/settings/protection`, RELAXED_PROTECTION));
  ok(await api.put(`/self/${shop.id}/settings/payments/tipjar`, { enabled: true, handle: 'pixeljar' }));
  if (opts.terms) ok(await api.put(`/self/${shop.id}/settings/terms`, { terms: opts.terms }));
  if (opts.balance) ok(await api.put(`/self/${shop.id}/settings/payments/balance`, { enabled: true }));
  const product = ok(
    await api.post(`/self/${shop.id}/v2/products`, {
      title: 'Game Key',
      description: 'A key for the game, delivered by e-mail and on the order page.',
      variants: [
        {
          title: 'Standard edition',
          priceDetails: { amount: 9.99 },
          productType: 'serials',
          asSerials: { serials: opts.keys ?? ['KEY-AAAA-1111', 'KEY-BBBB-2222', 'KEY-CCCC-3333'] },
        },
      ],
    }),
  );
  const subdomain = ok(await api.get(`/self/${shop.id}/settings`)).subdomain as string;
  return {
    shopId: shop.id,
    subdomain,
    home: `${url}/s/${subdomain}`,
    productId: product.id,
    variantId: product.variants[0].id,
  };
}

/** The first link in a mail's text whose path contains `path`. */
export function linkIn(text: string, path: string): string {
  const link = text.match(/https?:\/\/[^\s<>"]+/g)?.find((l) => new URL(l).pathname.includes(path));
  assert.ok(link, `the mail carries a link to ${path}: ${text}`);
  return link;
}

/**
 * A link shopd wrote (under PUBLIC_URL, which the test server does not know its port for) as
 * the same page on this test server.
 */
export function onThisServer(server: Server, link: string): string {
  const url = new URL(link);
  assert.equal(url.origin, new URL(server.app.config.publicUrl).origin, 'links use PUBLIC_URL');
  return `${server.url}${url.pathname}${url.search}`;
}
