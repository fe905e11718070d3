import assert from 'node:assert/strict';
import { browse, e2eTest, ok, overflowsHorizontally, seedShop, startServer } from './harness.js';

/**
 * The cart in a browser (issue 37, item 7), at desktop and phone width: two products added from
 * their pages, the header counting them, a quantity changed on the cart page, the coupon applied
 * at checkout with the discount and total shown before "Place order", one order of both lines.
 * Every page is checked with axe-core by `shot`.
 */

const VIEWPORTS = [
  { label: 'desktop', options: { viewport: { width: 1280, height: 800 } } },
  { label: 'phone', options: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true } },
] as const;

for (const { label, options } of VIEWPORTS) {
  e2eTest(
    `a buyer fills a cart with two products and orders both with a coupon (${label})`,
    async (t) => {
      const server = await startServer(t);
      const shop = await seedShop(server, { keys: ['KEY-AAAA-1111', 'KEY-BBBB-2222', 'KEY-CCCC-3333'] });
      const { api } = server;
      ok(
        await api.post(`/self/${shop.shopId}/v2/products`, {
          title: 'Soundtrack',
          description: 'The game’s music.',
          variants: [
            {
              title: 'MP3',
              priceDetails: { amount: 4.5 },
              productType: 'service',
              asService: { text: 'Your download link follows by e-mail.', stock: 10 },
            },
          ],
        }),
      );
      ok(await api.post(`/self/${shop.shopId}/coupons`, { name: 'BUNDLE', discount: 20, isFixed: false }));
      const buyer = await browse(t, { label, ...options });
      const { page, shot } = buyer;

      await page.goto(`${shop.home}/`);
      await page.getByRole('link', { name: 'Game Key' }).first().click();
      await page.getByRole('heading', { name: 'Game Key', level: 1 }).waitFor();
      await page.getByLabel('Quantity').fill('2');
      await page.getByRole('button', { name: 'Add to cart' }).click();

      await page.getByRole('heading', { name: 'Your cart', level: 1 }).waitFor();
      await page.getByText('Game Key is in your cart.').waitFor();
      assert.equal(await page.locator('[data-cart-count]').textContent(), '(1)', 'the header counts the lines');

      await page.getByRole('link', { name: 'Continue shopping' }).click();
      await page.getByRole('link', { name: 'Soundtrack' }).first().click();
      await page.getByRole('heading', { name: 'Soundtrack', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'Add to cart' }).click();
      await page.getByText('Soundtrack is in your cart.').waitFor();
      assert.equal(await page.locator('[data-cart-count]').textContent(), '(2)');
      await page.getByText('$24.48').waitFor(); // 2 × $9.99 + $4.50
      await shot('cart');
      if (label === 'phone') assert.equal(await overflowsHorizontally(page), false, 'the cart fits a phone');

      // One key fewer, then to the checkout: the quantity is kept first.
      await page.getByLabel('Quantity of Game Key').fill('1');
      await page.getByRole('button', { name: 'Check out' }).click();
      await page.getByRole('heading', { name: 'Checkout', level: 1 }).waitFor();
      const summary = page.getByRole('region', { name: 'Your order' });
      await summary.getByRole('row', { name: 'Total $14.49', exact: true }).waitFor(); // $9.99 + $4.50
      await page.getByLabel('E-mail').fill('fan@example.com');
      await page.getByLabel('Coupon code (optional)').fill('BUNDLE');
      await page.getByRole('button', { name: 'Apply' }).click();

      await page.getByText('Coupon BUNDLE applied: $2.89 off.').waitFor();
      await summary.getByText('Discount (BUNDLE)').waitFor();
      await summary.getByRole('row', { name: 'Total $11.60', exact: true }).waitFor();
      assert.equal(await page.getByLabel('E-mail').inputValue(), 'fan@example.com', 'the form keeps its answers');
      await shot('checkout-with-coupon');
      if (label === 'phone') assert.equal(await overflowsHorizontally(page), false, 'the checkout fits a phone');

      // Enter in the e-mail field places the order (the form's default button), as the visible button does.
      await page.getByLabel('E-mail').press('Enter');
      await page.getByRole('heading', { name: 'Your order', level: 1 }).waitFor();
      await page.getByText('Waiting for payment').waitFor();
      await page.getByText(/Send \$11\.60 to the tip jar/).waitFor();
      await shot('order');
      assert.equal(await page.locator('[data-cart-count]').isHidden(), true, 'the cart is empty after the order');

      const invoices = ok(await api.get(`/self/${shop.shopId}/invoices`));
      assert.equal(invoices.totalCount, 1, 'one order');
      const [invoice] = invoices.items;
      assert.equal(invoice.parts.length, 2, 'with both products');
      assert.equal(invoice.total, 11.6);
    },
    // The phone is a layout: the order's way through the database runs at desktop width on both engines.
    { sqlitePassOnly: label === 'phone' },
  );
}

e2eTest(
  'the cart without JavaScript: add, remove, check out',
  async (t) => {
    const server = await startServer(t);
    const shop = await seedShop(server);
    const buyer = await browse(t, { label: 'no-script', javaScriptEnabled: false });
    const { page, shot } = buyer;
    await page.goto(`${shop.home}/`);
    await page.getByRole('link', { name: 'Game Key' }).first().click();
    await page.getByRole('button', { name: 'Add to cart' }).click();
    await page.getByRole('heading', { name: 'Your cart', level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Check out' }).click();
    await page.getByRole('heading', { name: 'Checkout', level: 1 }).waitFor();
    await page.getByRole('link', { name: 'Back to your cart' }).click();
    await page.getByRole('button', { name: 'Remove Game Key from your cart' }).click();
    await page.getByText('Your cart is empty.').waitFor();
    await shot('empty-cart');
  },
  // The same pages without script: test/web/cart.test.ts posts the forms on both engines.
  { sqlitePassOnly: true },
);
