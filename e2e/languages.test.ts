import assert from 'node:assert/strict';
import { browse, e2eTest, mailTo, overflowsHorizontally, seedShop, startServer } from './harness.js';

/**
 * The storefront in both languages (issue 37, item 1), at desktop and phone width: a browser
 * that asks for German gets German pages (every one checked with axe-core by `shot`), the order
 * it places is mailed in German, and the switcher at the foot of the page turns it to English.
 */

const SIZES = [
  { label: 'desktop', options: { viewport: { width: 1280, height: 900 } } },
  { label: 'phone', options: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } },
] as const;

e2eTest('a German-speaking buyer shops in German at desktop and phone width, then switches to English', async (t) => {
  const server = await startServer(t);
  const shop = await seedShop(server, { terms: 'Schlüssel werden nicht erstattet, sobald sie gezeigt wurden.' });
  for (const size of SIZES) {
    const { page, shot } = await browse(t, { label: size.label, locale: 'de-DE', ...size.options });
    const lang = () => page.evaluate(() => document.documentElement.lang);

    await page.goto(`${shop.home}/`);
    await page.getByRole('heading', { name: 'Produkte', level: 2 }).waitFor();
    assert.equal(await lang(), 'de');
    assert.ok(await page.getByText('Ab 9,99 $').isVisible(), 'the price the German way, in the shop currency');
    assert.equal(await overflowsHorizontally(page), false, `${size.label}: the home page fits`);
    await shot('startseite');

    await page.getByRole('link', { name: 'Game Key' }).click();
    await page.getByRole('button', { name: 'Jetzt kaufen' }).click();
    await page.getByRole('heading', { name: 'Kasse', level: 1 }).waitFor();
    await page.getByLabel('E-Mail').fill(`${size.label}@example.com`);
    await page.getByRole('checkbox', { name: /Allgemeinen Geschäftsbedingungen/ }).check();
    assert.equal(await overflowsHorizontally(page), false, `${size.label}: the checkout fits`);
    await shot('kasse');
    await page.getByRole('button', { name: 'Zahlungspflichtig bestellen' }).click();

    await page.getByRole('heading', { name: 'Ihre Bestellung', level: 1 }).waitFor();
    await page.getByRole('heading', { name: 'So bezahlen Sie' }).waitFor();
    assert.ok(await page.getByText('Wartet auf Zahlung').isVisible());
    await shot('bestellung');
    const [mail] = await mailTo(server.app, `${size.label}@example.com`);
    assert.match(mail!.subject, /^Ihre Bestellung \S+ bei Pixel Keys: so bezahlen Sie$/);

    // The switcher: the choice outlasts the browser's own language, on this page and the next.
    await page.getByRole('navigation', { name: 'Sprache' }).getByRole('link', { name: 'English' }).click();
    await page.getByRole('heading', { name: 'Your order', level: 1 }).waitFor();
    assert.equal(await lang(), 'en');
    await page.getByRole('heading', { name: 'How to pay' }).waitFor();
    await shot('order-in-english');
    await page.goto(`${shop.home}/`);
    await page.getByRole('heading', { name: 'Products', level: 2 }).waitFor();
  }
});
