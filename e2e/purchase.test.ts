import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { browse, e2eTest, linkIn, mailTo, ok, onThisServer, seedShop, startServer } from './harness.js';

/**
 * A whole purchase in a browser: a buyer finds the shop, buys with a manual gateway, the owner
 * marks the invoice paid through the API, the buyer's open invoice page shows the keys by itself;
 * the buyer copies and downloads them, reviews the order and opens a ticket about it; a second
 * buyer then finds the product sold out.
 */

const KEYS = ['KEY-AAAA-1111', 'KEY-BBBB-2222'];

e2eTest('a buyer checks out with the tip jar and gets the keys on the open invoice page', async (t) => {
  const server = await startServer(t);
  const shop = await seedShop(server, { keys: KEYS });
  const buyer = await browse(t, { label: 'buyer' });
  const { page, shot } = buyer;
  await buyer.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });

  await page.goto(`${shop.home}/`);
  await page.getByRole('heading', { name: 'Pixel Keys', level: 1 }).waitFor();
  await shot('home');
  await page.getByRole('link', { name: 'Game Key' }).click();

  await page.getByRole('heading', { name: 'Game Key', level: 1 }).waitFor();
  assert.ok(await page.getByRole('radio', { name: /Standard edition/ }).isChecked());
  await page.getByLabel('Quantity').fill('3');
  await shot('product');
  await page.getByRole('button', { name: 'Buy now' }).click();

  await page.getByRole('heading', { name: 'Checkout', level: 1 }).waitFor();
  const quantity = page.getByLabel('Quantity');
  assert.equal(await quantity.inputValue(), '3', 'the quantity chosen on the product page');
  assert.ok(await page.getByRole('radio', { name: 'Tip jar' }).isChecked(), 'the only gateway is chosen');
  await page.getByLabel('E-mail').fill('buyer@example.com');
  await page.getByRole('button', { name: 'Place order' }).click();

  // Three is more than the shop has: the server says so next to the quantity, the e-mail is kept.
  await page.getByRole('heading', { name: 'Checkout', level: 1 }).waitFor();
  assert.equal(await quantity.getAttribute('aria-invalid'), 'true', 'the quantity is marked wrong');
  const why = await quantity.evaluate((el) =>
    (el.getAttribute('aria-describedby') ?? '')
      .split(' ')
      .map((id) => document.getElementById(id)?.textContent ?? '')
      .join(' '),
  );
  assert.match(why, /stock|available|left/i, 'the field says what is wrong with it');
  assert.equal(await page.getByLabel('E-mail').inputValue(), 'buyer@example.com');
  await shot('checkout-refused');
  await quantity.fill('2');
  await page.getByRole('button', { name: 'Place order' }).click();

  // The invoice page: what was ordered and how to pay, waiting for the payment.
  await page.getByRole('heading', { name: 'Your order', level: 1 }).waitFor();
  await page.getByRole('heading', { name: 'How to pay' }).waitFor();
  await page.getByText('Waiting for payment').waitFor();
  await page.getByText(/Send \$19\.98 to the tip jar "pixeljar"/).waitFor();
  await page.getByText('pixeljar', { exact: true }).waitFor();
  await page.getByText('$19.98').first().waitFor();
  const invoiceUrl = page.url();
  const invoiceId = decodeURIComponent(new URL(invoiceUrl).pathname.split('/').pop()!);
  assert.match(new URL(invoiceUrl).pathname, new RegExp(`^/s/${shop.subdomain}/invoices/`));
  assert.equal(await page.getByText(KEYS[0]!).count(), 0, 'no keys before the payment');
  await shot('invoice-pending');

  // The owner sees the payment arrive and processes the invoice; the buyer does nothing.
  ok(await server.api.post(`/self/${shop.shopId}/invoices/${invoiceId}/process`));
  await page.getByRole('heading', { name: 'Your items' }).waitFor();
  for (const key of KEYS) await page.getByText(key).waitFor();
  await page.getByText('Completed', { exact: true }).waitFor();
  assert.equal(page.url(), invoiceUrl);
  assert.equal(await page.getByRole('heading', { name: 'How to pay' }).count(), 0, 'no payment box once paid');
  await shot('invoice-completed');

  // Copy: the keys land on the clipboard. Download: a text file with them.
  await page.getByRole('button', { name: 'Copy the items of Game Key' }).click();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  assert.deepEqual(copied.trim().split('\n'), KEYS);
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: 'Download as .txt' }).click(),
  ]);
  const text = readFileSync((await download.path())!, 'utf8');
  for (const key of KEYS) assert.ok(text.includes(key), `the download holds ${key}`);

  // A review of the order.
  await page.getByRole('radio', { name: /5 stars/ }).check();
  await page.getByLabel('Comment (optional)').fill('Both keys worked at once.');
  await page.getByRole('button', { name: 'Send review' }).click();
  await page.getByRole('heading', { name: 'Your review' }).waitFor();
  await page.getByText('Both keys worked at once.').waitFor();
  await shot('invoice-reviewed');

  // A ticket about the order: the form knows which order, the ticket page shows the message.
  await page.getByRole('link', { name: 'Open a ticket about this order' }).click();
  await page.getByRole('heading', { name: 'Contact the shop', level: 1 }).waitFor();
  assert.equal(await page.getByLabel('Order id (optional)').inputValue(), invoiceId);
  await page.getByLabel('Your e-mail').fill('buyer@example.com');
  await page.getByLabel('Subject').fill('Second key question');
  await page.getByLabel('Message').fill('Can I use the second key on another computer?');
  await shot('support');
  await page.getByRole('button', { name: 'Send' }).click();
  await page.getByRole('heading', { name: 'Second key question', level: 1 }).waitFor();
  await page.getByText('Can I use the second key on another computer?').waitFor();
  await page.getByRole('link', { name: invoiceId }).waitFor();
  await shot('ticket');
  const [ticket] = ok(await server.api.get(`/self/${shop.shopId}/tickets`)).items;
  assert.equal(ticket.invoiceId, invoiceId, 'the owner sees the ticket about the order');
  assert.equal(ticket.email, 'buyer@example.com');

  // The shop answers; the buyer follows the link in the mail and replies on the ticket page.
  ok(
    await server.api.post(`/self/${shop.shopId}/tickets/${ticket.id}/message`, {
      content: 'Yes, one computer per key.',
    }),
  );
  const answer = (await mailTo(server.app, 'buyer@example.com')).find((m) =>
    m.subject.startsWith(`Reply to your support ticket ${ticket.id} `),
  );
  assert.ok(answer, 'the buyer is mailed the answer');
  await page.goto(onThisServer(server, linkIn(answer.body_text, '/tickets/')));
  await page.getByText('Yes, one computer per key.').waitFor();
  await page.getByText('Answered', { exact: true }).waitFor();
  await page.getByLabel('Your message').fill('Thanks!');
  await page.getByRole('button', { name: 'Send reply' }).click();
  await page.getByText('Thanks!', { exact: true }).waitFor();
  await shot('ticket-replied');

  // The review shows on the shop; a second buyer finds the product sold out.
  const second = await browse(t, { label: 'second buyer' });
  await second.page.goto(`${shop.home}/products/game-key`);
  await second.page.getByRole('heading', { name: 'Game Key', level: 1 }).waitFor();
  await second.page.getByText('Both keys worked at once.').waitFor();
  await second.page.getByText('Sold out').first().waitFor();
  assert.equal(await second.page.getByRole('button', { name: 'Buy now' }).count(), 0, 'nothing to buy');
  await second.shot('product-sold-out');
  // Nor does the checkout page take an order for it, reached by its address.
  await second.page.goto(`${shop.home}/checkout?product=${shop.productId}&variant=${shop.variantId}&quantity=1`);
  await second.page.getByRole('status').filter({ hasText: 'Sold out.' }).waitFor();
  assert.equal(await second.page.getByRole('button', { name: 'Place order' }).count(), 0, 'no order form');
  await second.page.goto(`${shop.home}/products/game-key`);
  await second.page.getByRole('link', { name: 'All products' }).click();
  await second.page.getByRole('link', { name: 'Game Key' }).waitFor();
  await second.page.getByText('Sold out').waitFor();
  await second.shot('home-sold-out');
});
