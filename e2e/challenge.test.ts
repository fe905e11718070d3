import assert from 'node:assert/strict';
import { browse, e2eTest, ok, seedShop, startServer } from './harness.js';

/**
 * The proof-of-work challenge in a browser (issue 36, item 2): with the shop asking for it, the
 * checkout form carries the ALTCHA widget, served from the shop's own origin under the storefront's
 * Content-Security-Policy (scripts and the worker from 'self' only: any violation fails the test);
 * the browser solves it in a worker once the buyer is in the form, and the order is placed. A form
 * sent before the puzzle is solved is answered with the answers kept and the puzzle pointed out.
 * The work is the test configuration's (CHALLENGE_COST 1): the waits are for states, never times.
 */

e2eTest(
  'a buyer solves the challenge in the browser and places the order; sent unsolved, the form says why',
  async (t) => {
    const server = await startServer(t);
    const shop = await seedShop(server);
    ok(await server.api.put(`/self/${shop.shopId}/settings/protection`, { challenge: 'always' }));
    // The form sent without a solution is answered 428 on purpose.
    const expected = (_url: URL, status: number) => status === 428;

    // A buyer with JavaScript off cannot solve it: the form says so (in <noscript>), and sent anyway it
    // is refused with the answers kept.
    const noScript = await browse(t, { label: 'no script', javaScriptEnabled: false, expected });
    await noScript.page.goto(`${shop.home}/checkout?product=${shop.productId}&variant=${shop.variantId}`);
    await noScript.page.getByRole('heading', { name: 'Checkout', level: 1 }).waitFor();
    // (Playwright's text search passes over <noscript>, so its words are checked in the HTML; the screenshot shows them.)
    assert.match(
      await noScript.page.content(),
      /<noscript>.*The puzzle needs JavaScript, which is off in this browser\./s,
    );
    await noScript.page.getByLabel('E-mail').fill('buyer@example.com');
    await noScript.page.getByRole('button', { name: 'Place order' }).click();
    await noScript.page.getByText('One more step: this shop asks your browser to solve a small puzzle.').waitFor();
    await noScript.page
      .getByText('Wait until the puzzle is solved (its box is ticked), then send the form again.')
      .waitFor();
    assert.equal(await noScript.page.getByLabel('E-mail').inputValue(), 'buyer@example.com', 'the answers are kept');
    assert.equal(ok(await server.api.get(`/self/${shop.shopId}/invoices`)).totalCount, 0);
    await noScript.shot('checkout-unsolved');

    const { page, shot } = await browse(t, { label: 'buyer', expected });
    await page.goto(`${shop.home}/checkout?product=${shop.productId}&variant=${shop.variantId}`);
    // With script: focusing the form starts the work in a worker; the solution lands in the form.
    await page.getByRole('heading', { name: 'Checkout', level: 1 }).waitFor();
    await page.getByLabel('E-mail').fill('buyer@example.com');
    const solution = page.locator('input[name="altcha"]');
    await solution.waitFor({ state: 'attached' });
    await page.waitForFunction(() => {
      const field = document.querySelector<HTMLInputElement>('input[name="altcha"]');
      return Boolean(field?.value);
    });
    const payload = JSON.parse(Buffer.from(await solution.inputValue(), 'base64').toString('utf8'));
    assert.equal(payload.challenge.parameters.algorithm, 'PBKDF2/SHA-256');
    assert.equal(payload.challenge.parameters.data.shop, shop.shopId);
    await shot('checkout-solved');
    await page.getByRole('button', { name: 'Place order' }).click();
    await page.getByRole('heading', { name: 'Your order', level: 1 }).waitFor();
    assert.equal(ok(await server.api.get(`/self/${shop.shopId}/invoices`)).totalCount, 1);
    await shot('invoice');

    // A German buyer's puzzle speaks German too (the widget's own words, from its German catalogue).
    const german = await browse(t, { label: 'german buyer', locale: 'de-DE', expected });
    await german.page.goto(`${shop.home}/checkout?product=${shop.productId}&variant=${shop.variantId}`);
    await german.page.getByRole('heading', { name: 'Kasse', level: 1 }).waitFor();
    await german.page.getByText('Ich bin kein Roboter').waitFor();
    await german.page.getByLabel('E-Mail').fill('kaeufer@example.com');
    await german.page.waitForFunction(() =>
      Boolean(document.querySelector<HTMLInputElement>('input[name="altcha"]')?.value),
    );
    await german.shot('kasse-geloest');
    await german.page.getByRole('button', { name: 'Zahlungspflichtig bestellen' }).click();
    await german.page.getByRole('heading', { name: 'Ihre Bestellung', level: 1 }).waitFor();
  },
);
