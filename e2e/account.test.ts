import assert from 'node:assert/strict';
import { browse, e2eTest, mailTo, ok, seedShop, startServer } from './harness.js';

/** The customer area in a browser: sign-in by a code mailed to the buyer, past orders, paying from the store balance. */

e2eTest(
  'a buyer signs in with the mailed code, sees a past order and pays a new one from the store balance',
  async (t) => {
    const server = await startServer(t);
    const shop = await seedShop(server, { keys: ['KEY-PAST-0001', 'KEY-LEFT-0002'], balance: true });
    const email = 'returning@example.com';

    // An order placed and paid earlier (through the public API and the owner's API).
    const placed = await server.app.inject({
      method: 'POST',
      url: `/v2/public/shops/${shop.shopId}/invoices`,
      payload: {
        customerEmail: email,
        gateway: 'tipjar',
        parts: [{ productId: shop.productId, productVariantId: shop.variantId, quantity: 1 }],
      },
    });
    const invoiceId = ok({ status: placed.statusCode, body: placed.json() }).id as string;
    ok(await server.api.post(`/self/${shop.shopId}/invoices/${invoiceId}/process`));

    const { page, shot } = await browse(t);
    await page.goto(`${shop.home}/`);
    await page.getByRole('link', { name: 'My orders' }).click();
    await page.getByRole('heading', { name: 'Sign in to your account', level: 1 }).waitFor();
    await page.getByLabel('E-mail').fill(email);
    await shot('sign-in');
    await page.getByRole('button', { name: 'E-mail me a code' }).click();

    await page.getByRole('heading', { name: 'Check your e-mail', level: 1 }).waitFor();
    const mails = await mailTo(server.app, email);
    const signIn = mails.findLast((m) => /\b\d{6}\b/.test(m.body_text) && !m.body_text.includes(invoiceId));
    assert.ok(signIn, `a sign-in code was mailed: ${JSON.stringify(mails.map((m) => m.subject))}`);
    const code = /\b(\d{6})\b/.exec(signIn.body_text)![1]!;

    // A wrong code is refused next to the field; the right one signs in.
    const field = page.getByLabel('Code', { exact: true });
    await field.fill(code === '000000' ? '111111' : '000000');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText(/This code is wrong/).waitFor();
    assert.equal(await field.getAttribute('aria-invalid'), 'true');
    await shot('wrong-code');
    await field.fill(code);
    await page.getByRole('button', { name: 'Sign in' }).click();

    await page.getByRole('heading', { name: 'Your account', level: 1 }).waitFor();
    await page.getByText(`Signed in as ${email}`).waitFor();
    const order = page.getByRole('listitem').filter({ has: page.getByRole('link', { name: /^Order of/ }) });
    assert.equal(await order.count(), 1, 'one past order');
    await order.getByText('Completed', { exact: true }).waitFor();
    assert.match((await order.getByLabel('Your items of Game Key').textContent()) ?? '', /KEY-PAST-0001/);
    assert.equal(await page.getByText('KEY-LEFT-0002').count(), 0, 'only the keys this buyer bought');
    await shot('account');

    // The order's page from there.
    await order.getByRole('link', { name: 'Open the order page' }).click();
    await page.getByRole('heading', { name: 'Your order', level: 1 }).waitFor();
    await page.getByText('KEY-PAST-0001').waitFor();

    // The shop credits the buyer's balance; signed in, they pay a new order with it and get the key at once.
    const customer = ok(await server.api.get(`/self/${shop.shopId}/customers`)).items.find(
      (c: { email: string }) => c.email === email,
    );
    ok(await server.api.post(`/self/${shop.shopId}/customers/${customer.id}/balance/add`, { amount: 15 }));
    await page.goto(`${shop.home}/products/game-key`);
    await page.getByRole('button', { name: 'Buy now' }).click();
    await page.getByRole('heading', { name: 'Checkout', level: 1 }).waitFor();
    const address = page.getByLabel('E-mail');
    assert.equal(await address.inputValue(), email, 'the signed-in address');
    assert.equal(await address.isEditable(), false, 'a signed-in buyer orders as themselves');
    await page.getByRole('radio', { name: /Store balance/ }).check();
    await page.getByText('(you have $15.00)').waitFor();
    await shot('checkout-balance');
    await page.getByRole('button', { name: 'Place order' }).click();
    await page.getByRole('heading', { name: 'Your order', level: 1 }).waitFor();
    await page.getByText('Completed', { exact: true }).waitFor();
    await page.getByText('KEY-LEFT-0002').waitFor();
    await shot('invoice-paid-from-balance');
    await page.getByRole('link', { name: 'My orders' }).click();
    await page.getByRole('heading', { name: 'Your account', level: 1 }).waitFor();
    assert.equal(await page.getByRole('link', { name: /^Order of/ }).count(), 2, 'both orders');
    await page.getByText(/Store balance: \$5\.01/).waitFor(); // $15.00 less the $9.99 order
    await shot('account-after');

    // Signing out leaves the account closed.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to your account', level: 1 }).waitFor();
    await page.goto(`${shop.home}/account`);
    await page.getByRole('heading', { name: 'Sign in to your account', level: 1 }).waitFor();
    assert.equal(await page.getByText('KEY-PAST-0001').count(), 0, 'nothing of the account after signing out');
  },
);
