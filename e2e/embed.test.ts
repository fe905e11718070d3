import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import { onEnd } from '../test/helpers/build.js';
import { browse, e2eTest, ok, seedShop, startServer } from './harness.js';

/**
 * The buy button on another website (issue 37, item 3): a page the test serves from another origin
 * carries the pasted snippet; the checkout opens in an overlay framing the shop's embed pages, the
 * order is placed in the frame, and the page hears of it (`shopd:order`), pending and then paid.
 * Without JavaScript the same snippet is a plain link to the product page.
 */

/** A website of the seller's, on an origin of its own (another port), with the snippet pasted in. */
async function sellersSite(t: TestContext, shopUrl: string, productUrl: string): Promise<string> {
  const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>My blog</title></head>
<body><main>
<h1>My blog</h1>
<p>I made a game. <a href="${productUrl}" data-shopd-embed>Buy Game Key</a></p>
<ul id="orders" aria-label="Orders heard of"></ul>
<script>
document.addEventListener('shopd:order', (e) => {
  const li = document.createElement('li');
  li.textContent = e.detail.status + ' ' + e.detail.invoiceId;
  document.getElementById('orders').appendChild(li);
});
</script>
<script src="${shopUrl}/embed.js" async></script>
</main></body></html>`;
  const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(page));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onEnd(t, () => new Promise<void>((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
}

e2eTest(
  'a buy button on another website opens the checkout in an overlay and tells the page of the order',
  async (t) => {
    const server = await startServer(t);
    const shop = await seedShop(server);
    const productUrl = `${shop.home}/products/game-key`;
    const site = await sellersSite(t, server.url, productUrl);
    assert.notEqual(new URL(site).origin, new URL(server.url).origin, 'the website is another origin');

    const { page, shot } = await browse(t, { label: 'buyer' });
    await page.goto(site);
    await page.getByRole('link', { name: 'Buy Game Key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Buy Game Key' });
    await dialog.waitFor();
    const frame = page.frameLocator('iframe[title="Buy Game Key"]');
    await frame.getByRole('button', { name: 'Buy now' }).click();
    await frame.getByRole('heading', { name: 'Checkout', level: 1 }).waitFor();
    await frame.getByLabel('E-mail').fill('blog.reader@example.com');
    await shot('checkout-in-overlay');
    await frame.getByRole('button', { name: 'Place order' }).click();
    await frame.getByRole('heading', { name: 'How to pay' }).waitFor();
    const heard = page.getByRole('list', { name: 'Orders heard of' }).getByRole('listitem');
    await heard.filter({ hasText: /^pending / }).waitFor();
    const invoiceId = (await heard.first().textContent())!.split(' ')[1]!;
    await shot('order-placed');

    // The owner sees the payment arrive: the frame notices, reloads, and tells the page.
    ok(await server.api.post(`/self/${shop.shopId}/invoices/${invoiceId}/process`));
    await heard.filter({ hasText: `completed ${invoiceId}` }).waitFor();
    await frame.getByText('KEY-AAAA-1111').waitFor();
    await shot('order-completed');

    // Closed with Escape, the focus goes back to the button.
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Buy Game Key');
  },
);

e2eTest('without JavaScript the buy button is a plain link to the product page', async (t) => {
  const server = await startServer(t);
  const shop = await seedShop(server);
  const site = await sellersSite(t, server.url, `${shop.home}/products/game-key`);
  const { page, shot } = await browse(t, { label: 'no script', javaScriptEnabled: false });
  await page.goto(site);
  await page.getByRole('link', { name: 'Buy Game Key' }).click();
  await page.getByRole('heading', { name: 'Game Key', level: 1 }).waitFor();
  assert.equal(new URL(page.url()).pathname, `/s/${shop.subdomain}/products/game-key`);
  await shot('product-page');
});
