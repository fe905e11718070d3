import assert from 'node:assert/strict';
import { browse, e2eTest, ok, seedShop, startServer } from './harness.js';

/** A password-protected shop in a browser: the prompt, a wrong password, then the shop. */

e2eTest('a password-protected shop asks for its password and opens with the right one', async (t) => {
  const server = await startServer(t);
  const shop = await seedShop(server, { name: 'Secret Keys' });
  ok(await server.api.put(`/self/${shop.shopId}/settings/password`, { password: 'open sesame' }));
  const { page, shot } = await browse(t);

  // A product link shared with the buyer: the prompt comes first, and shows nothing of the shop.
  await page.goto(`${shop.home}/products/game-key`);
  await page.getByRole('heading', { name: 'This shop is private' }).waitFor();
  assert.equal(await page.getByText('Game Key').count(), 0, 'nothing of the shop before the password');
  await shot('prompt');

  await page.getByLabel('Password').fill('not the password');
  await page.getByRole('button', { name: 'Enter the shop' }).click();
  await page.getByText('That password is not right.').waitFor();
  const password = page.getByLabel('Password');
  assert.equal(await password.getAttribute('aria-invalid'), 'true', 'the field is marked invalid');
  await shot('wrong-password');

  await password.fill('open sesame');
  await page.getByRole('button', { name: 'Enter the shop' }).click();
  // Back on the page the buyer asked for.
  await page.getByRole('heading', { name: 'Game Key', level: 1 }).waitFor();
  assert.equal(new URL(page.url()).pathname, `/s/${shop.subdomain}/products/game-key`);
  await shot('product-unlocked');

  // The shop stays open for this browser: the home page lists the product.
  await page.getByRole('link', { name: 'Secret Keys' }).click();
  await page.getByRole('link', { name: 'Game Key' }).waitFor();
  await shot('home-unlocked');
});
