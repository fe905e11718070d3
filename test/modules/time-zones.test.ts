import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { langOf } from '../../src/i18n/lang.js';
import { rebuildRollups, runRollupRebuild } from '../../src/modules/rollups/rollups.js';
import { zoneClock } from '../../src/shared/shop-clock.js';
import { build, owner } from '../helpers/build.js';
import { assertError, assertOk, sellingShop } from '../helpers/factories.js';

/**
 * A shop's IANA time zone (issue 37, item 7): the setting and its refusals, and days counted on it
 * with daylight saving: dashboards (rollups kept by the writes and rebuilt alike), date filters,
 * the hour of day, the dates buyers read. Europe/Berlin: UTC+1 in winter, UTC+2 from 29 March
 * 2026 02:00 (a 23-hour day) to 25 October 2026 03:00 (a 25-hour day).
 */

async function setup(t: TestContext) {
  const app = await build(t, { RATE_LIMIT_PUBLIC_MAX: '0' });
  const api = await owner(app);
  const shop = await sellingShop(api, { serials: Array.from({ length: 10 }, (_, i) => `SER-${i}`) });
  return { app, api, ...shop };
}

test('the time zone setting: an IANA zone or a fixed offset, exactly one; refusals change nothing', async (t) => {
  const { app, api, shopId } = await setup(t);
  const settings = async () => assertOk(await api.get(`/self/${shopId}/settings`));

  const zoned = assertOk(await api.put(`/self/${shopId}/settings/timezone`, { timezone: 'europe/berlin' }));
  assert.equal(zoned.timezone, 'Europe/Berlin', 'stored as the time zone list spells it');
  const expected = zoneClock('Europe/Berlin').offsetAt(Date.now());
  assert.equal(zoned.utcTimezoneOffset, expected, "the offset reads the zone's at the time of the answer");
  assert.equal((await settings()).timezone, 'Europe/Berlin');
  const listed = assertOk(await api.get('/self/shops')).find((s: { id: number }) => s.id === shopId);
  assert.equal(listed.timezone, 'Europe/Berlin');

  for (const [body, field] of [
    [{ timezone: 'CET' }, 'timezone'],
    [{ timezone: 'Mars/Olympus_Mons' }, 'timezone'],
    [{ timezone: '+01:00' }, 'timezone'],
    [{ timezone: 'Europe/Berlin', utcTimezoneOffset: 60 }, 'utcTimezoneOffset'],
    [{ timezone: null }, 'utcTimezoneOffset'],
    [{}, 'utcTimezoneOffset'],
    [{ utcTimezoneOffset: 900 }, 'utcTimezoneOffset'],
  ] as const) {
    const res = await api.put(`/self/${shopId}/settings/timezone`, body);
    assertError(res, 400, 'validation_error');
    assert.ok(
      res.body.errors.some((e: string) => e.startsWith(`${field}:`)),
      `${JSON.stringify(body)} names ${field}: ${res.body.errors}`,
    );
  }
  assert.equal((await settings()).timezone, 'Europe/Berlin', 'a refused body changes nothing');

  // Another account's key: 404, nothing changed.
  const other = await owner(app);
  assertError(await other.put(`/self/${shopId}/settings/timezone`, { utcTimezoneOffset: 0 }), 404, 'not_found');
  assert.equal((await settings()).timezone, 'Europe/Berlin');

  const fixed = assertOk(await api.put(`/self/${shopId}/settings/timezone`, { utcTimezoneOffset: -330 }));
  assert.deepEqual([fixed.timezone, fixed.utcTimezoneOffset], [null, -330], 'the original body: a fixed offset');
});

test('dashboards, date filters and hours of day count days on the zone across daylight saving', async (t) => {
  const { app, api, shopId, productId, keysVariant } = await setup(t);
  const db = app.db.kysely;
  assertOk(await api.put(`/self/${shopId}/settings/timezone`, { timezone: 'Europe/Berlin' }));
  await runRollupRebuild(db, shopId);

  // Orders placed now: the rollups their writes keep are those a rebuild makes, on the zone.
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const res = await app.inject({
      method: 'POST',
      url: `/v2/public/shops/${shopId}/invoices`,
      payload: {
        customerEmail: `tz${i}@example.com`,
        gateway: 'tipjar',
        parts: [{ productId, productVariantId: keysVariant, quantity: 1 }],
      },
    });
    const id = assertOk({ status: res.statusCode, body: res.json() }).id as string;
    assertOk(await api.post(`/self/${shopId}/invoices/${id}/process`));
    ids.push(id);
  }
  const today = assertOk(await api.get(`/self/${shopId}/dashboard/advanced`));
  const general = assertOk(await api.get(`/self/${shopId}/dashboard/general`));
  await rebuildRollups(db, shopId);
  assert.deepEqual(assertOk(await api.get(`/self/${shopId}/dashboard/advanced`)), today, 'kept = rebuilt');
  assert.deepEqual(assertOk(await api.get(`/self/${shopId}/dashboard/general`)), general, 'kept = rebuilt');

  // The same orders moved to instants around the changes of clock.
  const at = [
    Date.UTC(2026, 2, 28, 23, 30), // 29 Mar 00:30 CET
    Date.UTC(2026, 2, 29, 1, 30), // 29 Mar 03:30 CEST (02:00–03:00 never happened)
    Date.UTC(2026, 2, 29, 22, 30), // 30 Mar 00:30 CEST: on a fixed UTC+1, still 29 Mar
    Date.UTC(2026, 9, 25, 0, 30), // 25 Oct 02:30 CEST
    Date.UTC(2026, 9, 25, 1, 30), // 25 Oct 02:30 CET, the hour again
  ];
  for (const [i, ms] of at.entries()) {
    await db
      .updateTable('invoices')
      .set({ created_at: ms, completed_at: ms, updated_at: ms })
      .where('id', '=', ids[i]!)
      .execute();
  }
  await rebuildRollups(db, shopId);
  const spring = assertOk(await api.get(`/self/${shopId}/dashboard/general?fromDate=2026-03-29&toDate=2026-03-30`));
  assert.deepEqual(
    spring.series.map((d: { date: string; orders: number }) => [d.date, d.orders]),
    [
      ['2026-03-29', 2],
      ['2026-03-30', 1],
    ],
  );
  const autumn = assertOk(await api.get(`/self/${shopId}/dashboard/advanced?fromDate=2026-10-25&toDate=2026-10-25`));
  assert.equal(autumn.ordersByHour[2], 2, 'both 02:30s are the hour 2');
  assert.equal(
    autumn.ordersByHour.reduce((a: number, b: number) => a + b, 0),
    2,
  );
  // A range that ends inside a day reads that day's hours from the invoices themselves, across the
  // change of clock: 02:45 is the first of the two (CEST), so only the first order is before it.
  const hoursTo = async (to: string) =>
    assertOk(await api.get(`/self/${shopId}/dashboard/advanced?fromDate=2026-10-25T00:00&toDate=${to}`)).ordersByHour;
  assert.equal((await hoursTo('2026-10-25T02:45'))[2], 1);
  assert.equal((await hoursTo('2026-10-25T03:00'))[2], 2);
  // Date filters: the 23-hour day holds two orders, the next day one.
  const count = async (from: string, to: string) =>
    assertOk(await api.get(`/self/${shopId}/invoices?fromDate=${from}&toDate=${to}`)).totalCount;
  assert.equal(await count('2026-03-29', '2026-03-29'), 2);
  assert.equal(await count('2026-03-30', '2026-03-30'), 1);
  assert.equal(await count('2026-03-29T03:00', '2026-03-29T03:59'), 1, 'a local time after the jump');

  // Back to a fixed UTC+1: the rebuilt days are that offset's.
  assertOk(await api.put(`/self/${shopId}/settings/timezone`, { utcTimezoneOffset: 60 }));
  await runRollupRebuild(db, shopId);
  const fixed = assertOk(await api.get(`/self/${shopId}/dashboard/general?fromDate=2026-03-29&toDate=2026-03-30`));
  assert.equal(fixed.rollupsRebuilding, false);
  assert.deepEqual(
    fixed.series.map((d: { date: string; orders: number }) => [d.date, d.orders]),
    [
      ['2026-03-29', 3],
      ['2026-03-30', 0],
    ],
  );
});

test("buyers read dates on the shop's zone, with the offset of that day named", () => {
  const berlin = zoneClock('Europe/Berlin');
  assert.equal(langOf('en', berlin).dayTime(Date.UTC(2026, 0, 15, 12, 0)), '15 Jan 2026, 13:00 UTC+01:00');
  assert.equal(langOf('en', berlin).dayTime(Date.UTC(2026, 6, 15, 12, 0)), '15 Jul 2026, 14:00 UTC+02:00');
  assert.equal(langOf('de', berlin).day(Date.UTC(2026, 2, 28, 23, 30)), '29. März 2026');
  assert.equal(langOf('en', 60).day(Date.UTC(2026, 6, 14, 22, 30)), '14 Jul 2026', 'a fixed offset: no summer time');
});
