import assert from 'node:assert/strict';
import { test } from 'node:test';
import { offsetLabel, shopDates } from '../../web/admin/src/ui/format.js';

// The admin's dates on the shop's clock (web/admin/src/ui/format.ts): a time zone's wall clock,
// daylight saving included, or a fixed offset's, never the browser's (here, the test process's).
// (The dashboard's range.ts is not imported: its imports are the bundler's, without extensions;
// its todayAt is the wall day below, and e2e/admin-time-zone.test.ts checks it in the browser.)

/** Today on a shop's clock, as the dashboard's todayAt reads it. */
const todayAt = (clock: { timezone: string | null; utcTimezoneOffset: number }, now: number) =>
  shopDates(clock).wallInput(now).slice(0, 10);

const write = (iso: string, timeZone: string, options: Intl.DateTimeFormatOptions) =>
  new Intl.DateTimeFormat(undefined, { ...options, timeZone }).format(new Date(iso));
const dateTime = { dateStyle: 'medium', timeStyle: 'short' } as const;

test("a zoned shop's dates are its zone's wall clock, daylight saving included", () => {
  const berlin = shopDates({ timezone: 'Europe/Berlin', utcTimezoneOffset: 60 });
  for (const iso of ['2026-01-15T22:30:00Z', '2026-07-15T22:30:00Z']) {
    assert.equal(berlin.dateTime(iso), write(iso, 'Europe/Berlin', dateTime));
    assert.equal(berlin.date(iso), write(iso, 'Europe/Berlin', { dateStyle: 'medium' }));
  }
  // 22:30 UTC is 23:30 in Berlin in winter, 00:30 the next day in summer.
  assert.equal(berlin.wallInput('2026-01-15T22:30:00Z'), '2026-01-15T23:30');
  assert.equal(berlin.wallInput('2026-07-15T22:30:00Z'), '2026-07-16T00:30');
  assert.equal(berlin.zone, 'Europe/Berlin');
  assert.equal(berlin.known, true);
});

test("a fixed offset shop's dates are the instant moved by the offset", () => {
  const india = shopDates({ timezone: null, utcTimezoneOffset: 330 });
  const iso = '2026-03-01T20:00:00Z';
  // India keeps UTC+05:30 all year: the same wall clock as the fixed offset.
  assert.equal(india.dateTime(iso), write(iso, 'Asia/Kolkata', dateTime));
  assert.equal(india.time(Date.parse(iso)), write(iso, 'Asia/Kolkata', { timeStyle: 'short' }));
  assert.equal(india.wallInput(iso), '2026-03-02T01:30');
  assert.equal(india.zone, 'UTC+05:30');
  assert.equal(shopDates({ timezone: null, utcTimezoneOffset: -180 }).zone, 'UTC−03:00');
  assert.equal(offsetLabel(0), 'UTC+00:00');
});

test('no instant reads —; an unknown shop reads … until it is loaded; a zone this browser lacks falls back to the offset', () => {
  const utc = shopDates({ timezone: null, utcTimezoneOffset: 0 });
  assert.equal(utc.dateTime(null), '—');
  assert.equal(utc.date(undefined), '—');
  assert.equal(utc.wallInput(null), '');
  const pending = shopDates(null);
  assert.equal(pending.known, false);
  assert.equal(pending.dateTime('2026-03-01T20:00:00Z'), '…');
  assert.equal(pending.dateTime(null), '—');
  const unknown = shopDates({ timezone: 'Mars/Olympus_Mons', utcTimezoneOffset: 120 });
  assert.equal(unknown.zone, 'UTC+02:00');
  assert.equal(unknown.wallInput('2026-03-01T20:00:00Z'), '2026-03-01T22:00');
});

test('one remembered object per clock', () => {
  assert.equal(
    shopDates({ timezone: 'Asia/Tokyo', utcTimezoneOffset: 540 }),
    shopDates({ timezone: 'Asia/Tokyo', utcTimezoneOffset: 540 }),
  );
  assert.notEqual(
    shopDates({ timezone: null, utcTimezoneOffset: 540 }),
    shopDates({ timezone: 'Asia/Tokyo', utcTimezoneOffset: 540 }),
  );
});

test("the dashboard's today is the shop's day", () => {
  // 16:30 UTC on 2026-03-05: already the 6th in Tokyo, still the 5th in New York.
  const now = Date.parse('2026-03-05T16:30:00Z');
  const tokyo = { timezone: 'Asia/Tokyo', utcTimezoneOffset: 540 };
  assert.equal(todayAt(tokyo, now), '2026-03-06');
  assert.equal(todayAt({ timezone: 'America/New_York', utcTimezoneOffset: -300 }, now), '2026-03-05');
  assert.equal(todayAt({ timezone: null, utcTimezoneOffset: 480 }, now), '2026-03-06');
  // Berlin's clocks go forward on 2026-03-29 at 01:00 UTC: 23:30 UTC on the 29th is the 30th there.
  assert.equal(
    todayAt({ timezone: 'Europe/Berlin', utcTimezoneOffset: 60 }, Date.parse('2026-03-29T22:30:00Z')),
    '2026-03-30',
  );
});

test("a licence ending 'at the end of this day' ends at the shop's midnight, on the day the shop shows", () => {
  const berlin = shopDates({ timezone: 'Europe/Berlin', utcTimezoneOffset: 60 });
  assert.equal(berlin.endOfDay('2026-01-15'), '2026-01-15T22:59:59.999Z', 'winter: UTC+1');
  assert.equal(berlin.endOfDay('2026-07-15'), '2026-07-15T21:59:59.999Z', 'summer: UTC+2');
  // The day clocks go back ends at 23:00 UTC (a 25-hour day), the day they go forward at 21:59.
  assert.equal(berlin.endOfDay('2026-10-25'), '2026-10-25T22:59:59.999Z');
  assert.equal(berlin.endOfDay('2026-03-28'), '2026-03-28T22:59:59.999Z');
  assert.equal(berlin.day(berlin.endOfDay('2026-07-15')), '2026-07-15', 'shown again as the same day');
  const kolkata = shopDates({ timezone: null, utcTimezoneOffset: 330 });
  assert.equal(kolkata.endOfDay('2026-07-15'), '2026-07-15T18:29:59.999Z');
  assert.equal(kolkata.day('2026-07-15T18:29:59.999Z'), '2026-07-15');
  assert.equal(kolkata.day('2026-07-15T18:30:00Z'), '2026-07-16');
  assert.equal(kolkata.endOfDay('15/07/2026'), '15/07/2026', 'not a day: sent as typed, for the API to name');
});
