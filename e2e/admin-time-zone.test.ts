import assert from 'node:assert/strict';
import type { Locator, Page } from 'playwright-core';
import { browse, e2eTest, ok, ownerWithPassword, seedShop, signInToAdmin, startServer } from './harness.js';

/**
 * Every date of the admin on the shop's clock ("make every date the shop's"): an owner whose
 * computer is in New York sets the shop's time zone to Tokyo in Settings → General, and the
 * order's date and time read Tokyo's wall clock in the orders list and on the order, the
 * dashboard's "Today" is Tokyo's day, and a fixed UTC offset is followed as well.
 */

/** The session probe before signing in, and the refused time zone the test sends on purpose. */
const expected = (url: URL, status: number) =>
  (url.pathname === '/self/session' && status === 401) ||
  (url.pathname.endsWith('/settings/timezone') && status === 400);

/** An instant as the admin writes it (the browser's locale, medium date, short time) in a time zone. */
function wallClock(page: Page, iso: string, timeZone: string): Promise<string> {
  return page.evaluate(
    ([at, zone]) =>
      new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short', timeZone: zone }).format(
        new Date(at!),
      ),
    [iso, timeZone],
  );
}

/** Opens the orders list and answers the order's row's date (its text, its instant, its tooltip). */
async function listedDate(page: Page, shopId: number, invoiceId: string) {
  await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Orders', exact: true }).click();
  await page.getByRole('heading', { name: 'Orders', level: 1 }).waitFor();
  await page.waitForURL(new RegExp(`/admin/${shopId}/orders`));
  const time = page.getByRole('row').filter({ hasText: invoiceId }).locator('time');
  await time.waitFor();
  return {
    text: await time.textContent(),
    instant: await time.getAttribute('datetime'),
    title: await time.getAttribute('title'),
  };
}

/** The order screen's "Created" date. */
async function orderCreated(page: Page, invoiceId: string): Promise<string | null> {
  await page.getByRole('link', { name: invoiceId }).click();
  await page.getByRole('heading', { name: 'Summary' }).waitFor();
  return page.locator('dl.orders-facts dt:text-is("Created") + dd').textContent();
}

/** Settings → General's time zone form. */
async function clockForm(page: Page) {
  await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'General', exact: true }).click();
  const form = page.getByRole('form', { name: 'Time zone settings' });
  await form.waitFor();
  return form;
}

/** Saves the form and waits for the server's answer. */
async function save(page: Page, form: Locator, status = 200) {
  const answered = page.waitForResponse(
    (res) => res.request().method() === 'PUT' && new URL(res.url()).pathname.endsWith('/settings/timezone'),
  );
  await form.getByRole('button', { name: 'Save' }).click();
  assert.equal((await answered).status(), status);
}

e2eTest(
  "an owner in New York sets the shop's time zone to Tokyo and every date reads Tokyo's clock",
  async (t) => {
    const server = await startServer(t);
    const shop = await seedShop(server, { name: 'Tokyo Keys' });
    const email = await ownerWithPassword(server);
    const placed = ok(
      await server.api.post(`/v2/public/shops/${shop.shopId}/invoices`, {
        customerEmail: 'night-owl@example.com',
        gateway: 'tipjar',
        parts: [{ productId: shop.productId, productVariantId: shop.variantId, quantity: 1 }],
      }),
    );
    const invoiceId = placed.id as string;
    const order = ok(await server.api.get(`/self/${shop.shopId}/invoices/${encodeURIComponent(invoiceId)}`));
    const createdAt = order.createdAt as string;

    const { page, shot } = await browse(t, { timezoneId: 'America/New_York', expected });
    assert.equal(
      await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone),
      'America/New_York',
      "the owner's computer is in New York",
    );
    const newYork = await wallClock(page, createdAt, 'America/New_York');
    const tokyo = await wallClock(page, createdAt, 'Asia/Tokyo');
    const utc = await wallClock(page, createdAt, 'UTC');
    assert.notEqual(tokyo, newYork);

    await signInToAdmin(page, server, email);
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();

    // A new shop keeps the fixed offset UTC+00:00: its dates are UTC's, not the computer's.
    const before = await listedDate(page, shop.shopId, invoiceId);
    assert.deepEqual(before, { text: utc, instant: createdAt, title: 'Times in UTC+00:00' });
    await page.getByText('Dates and times in UTC+00:00').waitFor();

    // Settings → General → Time zone: the computer's zone a click away, then Tokyo chosen.
    let form = await clockForm(page);
    assert.equal(await form.getByRole('radio', { name: 'Fixed UTC offset' }).isChecked(), true);
    await shot('time-zone-fixed-offset');
    await form.getByRole('radio', { name: 'Time zone (follows daylight saving)' }).check();
    const zone = form.getByLabel('Time zone', { exact: true });
    assert.equal(await zone.inputValue(), 'UTC', 'a shop without a zone starts from UTC');
    await form.getByRole('button', { name: "Use this computer's zone (America/New_York)" }).click();
    assert.equal(await zone.inputValue(), 'America/New_York');
    await zone.selectOption('Asia/Tokyo');
    assert.match(
      (await zone.locator('option:checked').textContent()) ?? '',
      /^Asia\/Tokyo \(UTC\+09:00\)$/,
      'a zone shows its offset',
    );
    // The server's refusal shows beside the field: here a zone no time zone list has, sent in Tokyo's place.
    const timezoneUrl = `**/self/${shop.shopId}/settings/timezone`;
    await page.route(timezoneUrl, (route) =>
      route.continue({ postData: JSON.stringify({ timezone: 'Mars/Olympus_Mons' }) }),
    );
    await save(page, form, 400);
    await page.unroute(timezoneUrl);
    await form.getByText('is not a time zone this server knows (an IANA name such as Europe/Berlin)').waitFor();
    assert.equal(await zone.getAttribute('aria-invalid'), 'true');
    await shot('time-zone-refused');
    await save(page, form);
    await shot('time-zone-tokyo');
    const saved = ok(await server.api.get(`/self/${shop.shopId}/settings`));
    assert.equal(saved.timezone, 'Asia/Tokyo');
    assert.equal(saved.utcTimezoneOffset, 540);

    // The order, listed and opened, is on Tokyo's clock.
    const listed = await listedDate(page, shop.shopId, invoiceId);
    assert.deepEqual(listed, { text: tokyo, instant: createdAt, title: 'Times in Asia/Tokyo' });
    await page.getByText('Dates and times in Asia/Tokyo').waitFor();
    await shot('orders-in-tokyo');
    assert.equal(await orderCreated(page, invoiceId), tokyo);
    await shot('order-in-tokyo');

    // The dashboard's "Today" is Tokyo's day: at 16:30 UTC it is already tomorrow in Tokyo and
    // still today in New York.
    const now = Date.now();
    const at = Math.floor((now - 16.5 * 3_600_000) / 86_400_000) * 86_400_000 + 16.5 * 3_600_000;
    const tokyoDay = new Date(at + 9 * 3_600_000).toISOString().slice(0, 10);
    assert.notEqual(tokyoDay, new Date(at).toISOString().slice(0, 10));
    await page.clock.setFixedTime(at);
    const asked = page.waitForRequest((req) => new URL(req.url()).pathname.endsWith('/dashboard/general'));
    await page.goto(`${server.url}/admin/${shop.shopId}?range=today`);
    const query = new URL((await asked).url()).searchParams;
    assert.deepEqual([query.get('fromDate'), query.get('toDate')], [tokyoDay, tokyoDay]);
    const dayText = await page.evaluate(
      (day) =>
        new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeZone: 'UTC' }).format(
          Date.parse(`${day}T00:00:00Z`),
        ),
      tokyoDay,
    );
    await page.locator('.dash-range-label', { hasText: `${dayText} · days in Asia/Tokyo` }).waitFor();
    await shot('dashboard-today-in-tokyo');

    // Back to a fixed offset, UTC+05:30 (India's, which keeps no daylight saving): the order follows.
    form = await clockForm(page);
    await form.getByRole('radio', { name: 'Fixed UTC offset' }).check();
    await form.getByLabel('UTC offset', { exact: true }).selectOption({ label: 'UTC+05:30' });
    await shot('time-zone-fixed-0530');
    await save(page, form);
    const fixed = ok(await server.api.get(`/self/${shop.shopId}/settings`));
    assert.deepEqual([fixed.timezone, fixed.utcTimezoneOffset], [null, 330]);
    const india = await wallClock(page, createdAt, 'Asia/Kolkata');
    assert.deepEqual(await listedDate(page, shop.shopId, invoiceId), {
      text: india,
      instant: createdAt,
      title: 'Times in UTC+05:30',
    });
    assert.equal(await orderCreated(page, invoiceId), india);
  },
  // The admin's formatting and settings screen; the clock's database paths: test/modules/time-zones.test.ts, both engines.
  { sqlitePassOnly: true },
);
