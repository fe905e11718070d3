import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DateFilter, parseDateBound } from '../../src/schemas/dates.js';
import { canonicalTimeZone, fixedClock, zoneClock } from '../../src/shared/shop-clock.js';

/** The pattern the document publishes is the whole rule: what it accepts parses, what it refuses never reaches the parser. */
const accepted = (value: string) => new RegExp(DateFilter.pattern!, 'u').test(value);

test('date filters: only real calendar dates and times match the published pattern', () => {
  for (const good of [
    '2026-11-21',
    '2028-02-29',
    '2000-02-29',
    '2026-12-31T23:59:59.999Z',
    '2026-01-01T00:00',
    '2026-06-01T10:00+05:30',
    '0050-01-01',
  ]) {
    assert.ok(accepted(good), good);
  }
  for (const bad of [
    '0000-00-00',
    '2026-02-29',
    '1900-02-29',
    '2026-04-31',
    '2026-13-01',
    '2026-00-10',
    '2026-01-01T24:00',
    '2026-01-01T10:60',
    '2026-01-01T10:00:60Z',
    '2026-01-01T10:00+25:00',
    '2026-1-1',
    '2026-01-01 10:00',
  ]) {
    assert.ok(!accepted(bad), bad);
  }
});

test('date bounds parse every accepted value exactly, years 0–99 included', () => {
  assert.equal(parseDateBound('2026-11-21', 'fromDate', fixedClock(0), false), Date.UTC(2026, 10, 21));
  assert.equal(parseDateBound('2026-11-21', 'toDate', fixedClock(0), true), Date.UTC(2026, 10, 22) - 1);
  assert.equal(
    parseDateBound('2026-11-21', 'fromDate', fixedClock(60), false),
    Date.UTC(2026, 10, 20, 23),
    'a bare date is a day in the shop timezone',
  );
  assert.equal(
    parseDateBound('2026-11-21T10:00', 'fromDate', fixedClock(60), false),
    Date.UTC(2026, 10, 21, 9),
    'no offset: the shop timezone',
  );
  assert.equal(
    parseDateBound('2026-11-21T10:00:05.5+05:30', 'fromDate', fixedClock(60), false),
    Date.UTC(2026, 10, 21, 4, 30, 5, 500),
  );
  assert.equal(parseDateBound('2028-02-29T00:00Z', 'fromDate', fixedClock(0), false), Date.UTC(2028, 1, 29));
  // Date.UTC reads 50 as 1950; the year 50 is what was sent.
  assert.equal(
    new Date(parseDateBound('0050-03-01', 'fromDate', fixedClock(0), false)).toISOString(),
    '0050-03-01T00:00:00.000Z',
  );
  assert.throws(
    () => parseDateBound('2026-02-30', 'fromDate', fixedClock(0), false),
    (err: { errors: string[] }) => err.errors[0]!.startsWith('fromDate: must be a real date'),
  );
});

test("a time zone's days follow daylight saving: 23 and 25 hours, skipped and repeated times", () => {
  const berlin = zoneClock('Europe/Berlin');
  const bound = (value: string, end = false) => parseDateBound(value, 'fromDate', berlin, end);
  // Winter (UTC+1), summer (UTC+2): the same bare date starts at another UTC hour.
  assert.equal(bound('2026-01-15'), Date.UTC(2026, 0, 14, 23));
  assert.equal(bound('2026-07-15'), Date.UTC(2026, 6, 14, 22));
  // 29 March 2026 lasts 23 hours (clocks go 02:00 → 03:00), 25 October 25 hours (03:00 → 02:00).
  assert.equal(bound('2026-03-29', true) + 1 - bound('2026-03-29'), 23 * 3_600_000);
  assert.equal(bound('2026-10-25', true) + 1 - bound('2026-10-25'), 25 * 3_600_000);
  // A time the clock skips is read after the jump; one it shows twice, as the first.
  assert.equal(bound('2026-03-29T02:30'), Date.UTC(2026, 2, 29, 1, 30));
  assert.equal(bound('2026-10-25T02:30'), Date.UTC(2026, 9, 25, 0, 30));
  // An explicit offset is taken as written, whatever the zone.
  assert.equal(bound('2026-10-25T02:30Z'), Date.UTC(2026, 9, 25, 2, 30));
  assert.equal(berlin.hourOf(Date.UTC(2026, 9, 25, 0, 30)), 2);
  assert.equal(berlin.hourOf(Date.UTC(2026, 9, 25, 1, 30)), 2, 'the repeated hour counts as that hour');
  assert.equal(berlin.dayOf(Date.UTC(2026, 2, 28, 23)), Date.UTC(2026, 2, 29) / 86_400_000);
  // A zone whose clocks change at midnight: the day starts at 01:00 when 00:00 is skipped.
  const santiago = zoneClock('America/Santiago');
  const start = santiago.dayStart(Date.UTC(2026, 8, 6) / 86_400_000);
  assert.equal(santiago.dayOf(start), Date.UTC(2026, 8, 6) / 86_400_000);
  assert.equal(santiago.dayOf(start - 1), Date.UTC(2026, 8, 5) / 86_400_000);
});

test('time zone names: IANA names as the list spells them, never offsets or abbreviations', () => {
  assert.equal(canonicalTimeZone('Europe/Berlin'), 'Europe/Berlin');
  assert.equal(canonicalTimeZone('europe/berlin'), 'Europe/Berlin');
  assert.equal(canonicalTimeZone('UTC'), 'UTC');
  assert.equal(canonicalTimeZone('Asia/Kolkata'), 'Asia/Kolkata', 'an alias is kept as given');
  for (const refused of ['CET', 'EST', '+01:00', 'UTC+1', 'Mars/Olympus_Mons', 'Europe/', '', 'Europe/Berlin/../x'])
    assert.equal(canonicalTimeZone(refused), null, refused);
});
