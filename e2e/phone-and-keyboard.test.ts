import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { browse, e2eTest, focused, overflowsHorizontally, seedShop, startServer, tabTo } from './harness.js';

/** The storefront on a phone-sized screen, and bought with the keyboard alone. */

async function fitsTheScreen(page: Page, what: string) {
  assert.equal(await overflowsHorizontally(page), false, `${what} does not scroll sideways on a phone`);
}

e2eTest(
  'on a phone-sized screen a buyer goes from the home page to the invoice with nothing overflowing',
  async (t) => {
    const server = await startServer(t);
    const shop = await seedShop(server, { terms: 'Keys are not refundable once shown.' });
    const { page, shot } = await browse(t, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

    await page.goto(`${shop.home}/`);
    await page.getByRole('heading', { name: 'Pixel Keys', level: 1 }).waitFor();
    await fitsTheScreen(page, 'the home page');
    await shot('home');

    await page.getByRole('link', { name: 'Game Key' }).tap();
    await page.getByRole('heading', { name: 'Game Key', level: 1 }).waitFor();
    await fitsTheScreen(page, 'the product page');
    await shot('product');

    await page.getByRole('button', { name: 'Buy now' }).tap();
    await page.getByRole('heading', { name: 'Checkout', level: 1 }).waitFor();
    await fitsTheScreen(page, 'the checkout page');
    await page.getByLabel('E-mail').fill('phone@example.com');
    await page.getByRole('button', { name: 'Place order' }).tap();
    // The shop has terms: the browser holds the order back until they are accepted.
    const terms = page.getByRole('checkbox', { name: /I accept the terms of service/ });
    assert.equal(
      await terms.evaluate((el: HTMLInputElement) => el.validity.valueMissing),
      true,
      'the terms are required',
    );
    await terms.tap();
    await shot('checkout');
    await page.getByRole('button', { name: 'Place order' }).tap();

    await page.getByRole('heading', { name: 'Your order', level: 1 }).waitFor();
    await page.getByRole('heading', { name: 'How to pay' }).waitFor();
    await fitsTheScreen(page, 'the invoice page');
    await shot('invoice');
  },
);

e2eTest('a buyer checks out and cancels with the keyboard alone', async (t) => {
  const server = await startServer(t);
  const shop = await seedShop(server);
  const { page, shot } = await browse(t);
  const keyboard = page.keyboard;

  await page.goto(`${shop.home}/products/game-key`);
  await page.getByRole('heading', { name: 'Game Key', level: 1 }).waitFor();

  // The first Tab reaches the skip link, which jumps over the header to the page itself.
  await keyboard.press('Tab');
  assert.ok(await focused(page.getByRole('link', { name: 'Skip to content' })), 'the skip link comes first');
  await keyboard.press('Enter');

  const quantity = page.getByLabel('Quantity');
  await tabTo(page, quantity, 'the quantity');
  assert.notEqual(
    await quantity.evaluate((el) => getComputedStyle(el).outlineStyle),
    'none',
    'the focused field shows where the focus is',
  );
  await keyboard.press('ArrowUp');
  assert.equal(await quantity.inputValue(), '2');
  await tabTo(page, page.getByRole('button', { name: 'Buy now' }), 'the Buy now button');
  await shot('product-focused');
  await keyboard.press('Enter');

  await page.getByRole('heading', { name: 'Checkout', level: 1 }).waitFor();
  await tabTo(page, page.getByLabel('E-mail'), 'the e-mail field');
  await keyboard.type('keys@example.com');
  await tabTo(page, page.getByRole('radio', { name: 'Tip jar' }), 'the Tip jar choice');
  await keyboard.press('Space');
  await tabTo(page, page.getByRole('button', { name: 'Place order' }), 'the Place order button');
  await shot('checkout-focused');
  await keyboard.press('Enter');

  await page.getByRole('heading', { name: 'Your order', level: 1 }).waitFor();
  await page.getByText('Waiting for payment').waitFor();
  await page.getByText('$19.98').first().waitFor();
  await shot('invoice-pending');

  // Cancelling (asked twice) puts the two keys back on sale.
  await tabTo(page, page.locator('summary', { hasText: 'Cancel this order' }), 'the Cancel disclosure');
  await keyboard.press('Enter');
  await tabTo(page, page.getByRole('button', { name: 'Yes, cancel this order' }), 'the confirming button');
  await shot('invoice-cancel-asked');
  await keyboard.press('Space');
  await page.getByText('This order was cancelled.').waitFor();
  await shot('invoice-cancelled');
  await page.goto(`${shop.home}/products/game-key`);
  await page.getByText('3 in stock').waitFor();
});
