import assert from 'node:assert/strict';
import { test } from 'node:test';
import { currencyCodes, currencyDigits } from '../../src/modules/shops/currencies.js';
import { fromMinorUnits, toMinorUnits } from '../../src/schemas/money.js';

/** The major-unit number as written in decimal, then parsed: what a reader of the JSON expects. */
function decimal(minor: number, digits: number): number {
  const sign = minor < 0 ? '-' : '';
  const text = String(Math.abs(minor)).padStart(digits + 1, '0');
  return Number(`${sign}${text.slice(0, text.length - digits)}${digits > 0 ? '.' : ''}${text.slice(text.length - digits)}`);
}

test('fromMinorUnits gives the decimal amount exactly, in every currency and far into the large amounts', () => {
  let seed = 7;
  const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  const samples = [0, 1, 5, 9, 10, 29, 99, 100, 101, 999, 1005, 12345, 99_999_999, 2 ** 31, Number.MAX_SAFE_INTEGER];
  for (let i = 0; i < 3000; i++) samples.push(Math.floor(random() * 10 ** (1 + Math.floor(random() * 15))));
  for (const currency of currencyCodes) {
    const digits = currencyDigits(currency);
    for (const minor of samples) {
      for (const value of minor === 0 ? [0, -0] : [minor, -minor]) {
        const expected = decimal(value, digits);
        assert.equal(fromMinorUnits(value, currency), expected, `${value} minor units of ${currency}`);
        if (value > 0 && value < 2 ** 40) assert.equal(toMinorUnits(fromMinorUnits(value, currency), currency, 'amount'), value, `${value} ${currency} round trip`);
      }
    }
  }
});

test('toMinorUnits refuses more decimals than the currency has, and accepts float noise', () => {
  assert.equal(toMinorUnits(0.29, 'USD', 'amount'), 29);
  assert.equal(toMinorUnits(1.005, 'KWD', 'amount'), 1005);
  assert.equal(toMinorUnits(12, 'JPY', 'amount'), 12);
  assert.throws(() => toMinorUnits(0.295, 'USD', 'amount'), { errors: ['amount: must have at most 2 decimals in USD'] });
  assert.throws(() => toMinorUnits(1.5, 'JPY', 'price'), { errors: ['price: must have at most 0 decimals in JPY'] });
});
