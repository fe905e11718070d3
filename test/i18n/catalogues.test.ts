import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type MessageFormatElement, parse, TYPE } from '@formatjs/icu-messageformat-parser';
import { langOf } from '../../src/i18n/lang.js';
import { de } from '../../src/i18n/messages/de.js';
import { en } from '../../src/i18n/messages/en.js';
import { acceptedLocale, chooseLocale } from '../../src/i18n/negotiate.js';

/** What a message takes: each argument with its kind (`plural`, `select`, `number`, text) and each tag. */
function signature(message: string): string[] {
  const found = new Set<string>();
  const walk = (elements: MessageFormatElement[]) => {
    for (const el of elements) {
      if (el.type === TYPE.argument) found.add(`${el.value}:text`);
      else if (el.type === TYPE.number) found.add(`${el.value}:number`);
      else if (el.type === TYPE.date || el.type === TYPE.time) found.add(`${el.value}:date`);
      else if (el.type === TYPE.plural || el.type === TYPE.select) {
        found.add(`${el.value}:${el.type === TYPE.plural ? 'plural' : 'select'}`);
        for (const option of Object.values(el.options)) walk(option.value);
      } else if (el.type === TYPE.tag) {
        found.add(`<${el.value}>`);
        walk(el.children);
      }
    }
  };
  walk(parse(message));
  // A count may be a plural in one language and a plain number in another.
  return [...found].map((s) => s.replace(/:(plural|number)$/, ':count')).sort();
}

/** German that is rightly the same as the English: names, loanwords, labels both languages share. */
const SAME_IN_GERMAN = new Set([
  'layout.nav',
  'layout.faq',
  'layout.support',
  'layout.social.website',
  'layout.social.other',
  'gateway.wallet-ff',
  'invoice.status',
  'invoice.field.cashtag',
  'invoice.field.terminalId',
  'support.title',
  'verify.code',
  'ticket.title',
  'cart.lineBlocked',
]);

test('the German catalogue has every English message, with the same arguments and tags, translated', () => {
  assert.deepEqual(Object.keys(de).sort(), Object.keys(en).sort());
  const untranslated: string[] = [];
  for (const [key, english] of Object.entries(en)) {
    const german = de[key as keyof typeof en];
    assert.ok(german.trim().length > 0, `${key} is empty in German`);
    assert.deepEqual(signature(german), signature(english), `${key}: the German takes other arguments`);
    if (german === english && !SAME_IN_GERMAN.has(key)) untranslated.push(key);
  }
  assert.deepEqual(untranslated, [], 'German messages left in English');
});

test('every message formats in both languages with plurals and amounts in the buyer locale', () => {
  const enLang = langOf('en');
  const deLang = langOf('de');
  assert.equal(enLang.t('home.groupCount', { count: 1 }), '1 product');
  assert.equal(deLang.t('home.groupCount', { count: 3 }), '3 Produkte');
  assert.equal(enLang.t('invoice.downloadsLeft', { count: 0 }), 'no downloads left');
  assert.equal(deLang.t('invoice.downloadsLeft', { count: 1 }), 'noch 1 Download');
  assert.equal(enLang.t('rating.summary', { rating: 4.5, count: 2 }), '4.50 out of 5 from 2 reviews');
  assert.equal(deLang.t('rating.summary', { rating: 4.5, count: 2 }), '4,50 von 5 aus 2 Bewertungen');
  assert.equal(enLang.money(4.5, 'USD'), '$4.50');
  assert.equal(deLang.money(4.5, 'USD'), '4,50\u00a0$');
  assert.equal(deLang.money(1234.5, 'EUR'), '1.234,50\u00a0€');
  assert.equal(enLang.day('2026-11-21T10:00:00.000Z'), '21 Nov 2026');
  assert.equal(deLang.day('2026-11-21T10:00:00.000Z'), '21. Nov. 2026');
  assert.equal(langOf('en', -600).day('2026-11-21T05:00:00.000Z'), '20 Nov 2026', "the shop's calendar day");
  assert.match(deLang.fileSize(1_536_000), /^1,5\sMB$/);
  // Every message of both catalogues formats: the arguments it names are given.
  for (const key of Object.keys(en) as (keyof typeof en)[]) {
    const values = Object.fromEntries(
      signature(en[key])
        .filter((s) => !s.startsWith('<'))
        .map((s) => [s.split(':')[0], s.endsWith(':text') ? 'x' : 2]),
    );
    const tags = Object.fromEntries(
      signature(en[key])
        .filter((s) => s.startsWith('<'))
        .map((s) => [s.slice(1, -1), (chunks: unknown[]) => chunks.join('')]),
    );
    for (const lang of [enLang, deLang]) assert.ok(lang.rich(key, { ...values, ...tags }).join('').length > 0, key);
  }
});

test('the language is the chosen one, else the browser first one we have, else the shop default', () => {
  assert.equal(chooseLocale({ chosen: 'de', acceptLanguage: 'en', shopDefault: 'en' }), 'de');
  assert.equal(chooseLocale({ chosen: 'xx', acceptLanguage: 'de-AT,en;q=0.5', shopDefault: 'en' }), 'de');
  assert.equal(chooseLocale({ acceptLanguage: 'fr-FR,fr;q=0.9,de;q=0.8', shopDefault: 'en' }), 'de');
  assert.equal(chooseLocale({ acceptLanguage: 'fr-FR,fr;q=0.9', shopDefault: 'de' }), 'de');
  assert.equal(chooseLocale({ acceptLanguage: '*', shopDefault: 'de' }), 'de');
  assert.equal(chooseLocale({ acceptLanguage: '', shopDefault: 'de' }), 'de');
  assert.equal(chooseLocale({ acceptLanguage: 'en-US,en;q=0.9', shopDefault: 'de' }), 'en');
  assert.equal(chooseLocale({ shopDefault: 'en' }), 'en');
  assert.equal(acceptedLocale('de-CH'), 'de');
  assert.equal(acceptedLocale('*'), null);
  assert.equal(acceptedLocale('fr'), null);
  assert.equal(acceptedLocale(undefined), null);
});
