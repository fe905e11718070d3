import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DateFilter, parseDateBound } from '../../src/schemas/dates.js';

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
  assert.equal(parseDateBound('2026-11-21', 'fromDate', 0, false), Date.UTC(2026, 10, 21));
  assert.equal(parseDateBound('2026-11-21', 'toDate', 0, true), Date.UTC(2026, 10, 22) - 1);
  assert.equal(
    parseDateBound('2026-11-21', 'fromDate', 60, false),
    Date.UTC(2026, 10, 20, 23),
    'a bare date is a day in the shop timezone',
  );
  assert.equal(
    parseDateBound('2026-11-21T10:00', 'fromDate', 60, false),
    Date.UTC(2026, 10, 21, 9),
    'no offset: the shop timezone',
  );
  assert.equal(
    parseDateBound('2026-11-21T10:00:05.5+05:30', 'fromDate', 60, false),
    Date.UTC(2026, 10, 21, 4, 30, 5, 500),
  );
  assert.equal(parseDateBound('2028-02-29T00:00Z', 'fromDate', 0, false), Date.UTC(2028, 1, 29));
  // Date.UTC reads 50 as 1950; the year 50 is what was sent.
  assert.equal(new Date(parseDateBound('0050-03-01', 'fromDate', 0, false)).toISOString(), '0050-03-01T00:00:00.000Z');
  assert.throws(
    () => parseDateBound('2026-02-30', 'fromDate', 0, false),
    (err: { errors: string[] }) => err.errors[0]!.startsWith('fromDate: must be a real date'),
  );
});
