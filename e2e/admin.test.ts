import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestContext } from 'node:test';
import type { Page } from 'playwright-core';
import {
  browse,
  e2eTest,
  OWNER_PASSWORD,
  ok,
  overflowsHorizontally,
  ownerWithPassword,
  seedShop,
  signInToAdmin,
  startServer,
  tabTo,
} from './harness.js';

/**
 * The owner's admin in a browser (issue 22): an owner signs in with e-mail and password, adds a
 * product with serial keys, a buyer buys it on the storefront, the owner processes the order with
 * the buyer's payment reference, refunds part of it (issue 23), sees the dashboard count both,
 * answers the buyer's ticket, revokes an API key and signs out;
 * a wrong password, a call without the CSRF token and an expired session are refused.
 */

/** Answers the admin asks for on purpose: the session probe when signed out, a refused sign-in. */
const expected = (url: URL, status: number) =>
  (url.pathname === '/self/session' && status === 401) || (url.pathname.startsWith('/self/') && status === 403);

/** A link of the admin's navigation (a screen may have a link of the same name). */
const nav = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name, exact: true });

e2eTest('an owner sells a new product from the admin and runs the order through to the answered ticket', async (t) => {
  const server = await startServer(t);
  const shop = await seedShop(server, { name: 'Pixel Keys' });
  const email = await ownerWithPassword(server);
  let signedOut = false;
  const { page, shot } = await browse(t, {
    // After signing out, the test's own call with the old cookie is refused on purpose.
    expected: (url, status) => expected(url, status) || (signedOut && status === 401),
  });
  page.on('dialog', (dialog) => void dialog.accept());

  // A wrong password is refused on the form; the right one opens the shop's dashboard.
  await signInToAdmin(page, server, email, 'not the password at all');
  await page.getByText('E-mail or password is wrong.').waitFor();
  await shot('sign-in-refused');
  await page.getByLabel('Password').fill(OWNER_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
  const ordersTile = page.getByRole('figure', { name: 'Orders', exact: true });
  await ordersTile.waitFor();
  const ordersBefore = Number(await ordersTile.getAttribute('data-value'));
  await shot('dashboard-before');

  // A product with three serial keys.
  await nav(page, 'Products').click();
  await page.getByRole('link', { name: 'Add product' }).click();
  await page.getByRole('heading', { name: 'New product', level: 1 }).waitFor();
  await page.getByLabel('Title', { exact: true }).fill('Nebula Racer');
  await page.getByLabel('Description', { exact: true }).fill('A racing game key, delivered at once.');
  await page.getByLabel('Price').first().fill('14.50');
  // A key typed twice by mistake is removed unless the owner keeps duplicates (keys meant to be shared).
  await page.getByLabel('Serial keys (one per line)').fill('NEB-0001\nNEB-0002\nNEB-0003\nNEB-0003');
  const dedupe = page.getByRole('checkbox', { name: 'Remove duplicate keys' });
  assert.equal(await dedupe.isChecked(), true, 'a new variant removes duplicates');
  await page.getByText('Turn it off for keys meant to be shared').waitFor();
  await shot('product-new');
  await page.getByRole('button', { name: 'Save' }).first().click();
  await page.getByText('Product created').waitFor();
  await page.waitForURL(/\/admin\/\d+\/products\/\d+$/);
  const created = ok(await server.api.get(`/self/${shop.shopId}/v2/products/${page.url().split('/').pop()}`));
  assert.equal(created.variants[0].stock, 3, 'the key typed twice is one unit');
  await shot('product-saved');

  // The buyer finds it on the storefront and orders one with the tip jar.
  const buyer = await browse(t, { label: 'buyer' });
  await buyer.page.goto(`${shop.home}/`);
  await buyer.page.getByRole('link', { name: 'Nebula Racer' }).click();
  await buyer.page.getByRole('heading', { name: 'Nebula Racer', level: 1 }).waitFor();
  await buyer.page.getByRole('button', { name: 'Buy now' }).click();
  await buyer.page.getByRole('heading', { name: 'Checkout', level: 1 }).waitFor();
  await buyer.page.getByLabel('E-mail').fill('racer@example.com');
  await buyer.page.getByRole('button', { name: 'Place order' }).click();
  await buyer.page.getByText('Waiting for payment').waitFor();
  const invoiceId = decodeURIComponent(new URL(buyer.page.url()).pathname.split('/').pop()!);
  await buyer.shot('invoice-pending');

  // The owner finds the order by the buyer's e-mail and processes it; the buyer's page shows the key.
  await nav(page, 'Orders').click();
  await page.getByRole('heading', { name: 'Orders', level: 1 }).waitFor();
  await page.getByRole('searchbox').fill('racer@example.com');
  const orderLink = page.getByRole('link', { name: invoiceId });
  await orderLink.waitFor();
  await shot('orders');
  await orderLink.click();
  await page.getByRole('button', { name: 'Process' }).click();
  const processDialog = page.getByRole('dialog', { name: 'Process the order' });
  await processDialog.getByLabel('Payment reference').fill('TIP-7731');
  await shot('order-process-dialog');
  await processDialog.getByRole('button', { name: 'Mark paid and deliver' }).click();
  await page.getByText('Order processed: the goods were delivered').waitFor();
  await page.getByText('TIP-7731', { exact: true }).waitFor();
  await shot('order-processed');
  await buyer.page.getByRole('heading', { name: 'Your items' }).waitFor();
  await buyer.page.getByText('NEB-0001').waitFor();
  const sold = await server.app.db.kysely
    .selectFrom('invoices')
    .select('status')
    .where('id', '=', invoiceId)
    .executeTakeFirstOrThrow();
  assert.equal(sold.status, 'completed');

  // The owner refunds part of it: a tip-jar order's refund is recorded, the owner sends the money.
  await page.getByRole('button', { name: 'Refund', exact: true }).click();
  const refundDialog = page.getByRole('dialog', { name: 'Refund the order' });
  const refundAmount = refundDialog.getByLabel('Amount (USD)');
  assert.equal(await refundAmount.inputValue(), '14.50', 'the amount starts at what is left to refund');
  await refundDialog.getByText('you send the money back to the buyer yourself').waitFor();
  await refundAmount.fill('5');
  await refundDialog.getByLabel('Reason').fill('One key did not activate');
  await shot('order-refund-dialog');
  await refundDialog.getByRole('button', { name: 'Record the refund' }).click();
  await page.getByText('Refunded $5.00', { exact: true }).waitFor();
  await page.getByText('$5.00 of $14.50', { exact: true }).waitFor();
  const refundRow = page
    .getByRole('table', { name: 'Refunds of the order' })
    .getByRole('row', { name: /One key did not activate/ });
  await refundRow.getByText('Recorded: you send the money').waitFor();
  await refundRow.getByText('$5.00').waitFor();
  await shot('order-refunded');
  // At phone width the order with its payment and refunds fits the screen.
  await page.setViewportSize({ width: 390, height: 844 });
  assert.equal(await overflowsHorizontally(page), false, 'the order screen fits a phone');
  await shot('order-refunded-phone');
  await page.setViewportSize({ width: 1280, height: 720 });
  const refunded = ok(await server.api.get(`/self/${shop.shopId}/invoices/${encodeURIComponent(invoiceId)}`));
  assert.equal(refunded.refunded, 5);
  assert.equal(refunded.payment.reference, 'TIP-7731');
  assert.deepEqual(
    refunded.refunds.map((r: { amount: number; method: string; reason: string }) => [r.amount, r.method, r.reason]),
    [[5, 'recorded', 'One key did not activate']],
  );

  // The dashboard counts the order and the refund.
  await nav(page, 'Dashboard').click();
  // The tile's figure is named by its caption; data-value holds the plain number.
  await page.waitForFunction((before) => {
    const tiles = new Map(
      Array.from(document.querySelectorAll('figure'), (f) => [
        f.querySelector('figcaption')?.textContent,
        Number(f.getAttribute('data-value')),
      ]),
    );
    return tiles.get('Orders') === before + 1 && tiles.get('Refunds') === 5;
  }, ordersBefore);
  await page.getByRole('figure', { name: 'Refunds', exact: true }).getByText('1 refund', { exact: false }).waitFor();
  await shot('dashboard-after');

  // The buyer asks about the order; the owner answers from the inbox.
  const asked = await server.app.inject({
    method: 'POST',
    url: `/v2/public/shops/${shop.shopId}/tickets`,
    payload: { email: 'racer@example.com', title: 'Which region?', message: 'Does the key work in Europe?', invoiceId },
  });
  const ticketId = ok({ status: asked.statusCode, body: asked.json() }).id as number;
  await nav(page, 'Tickets').click();
  await page.getByRole('link', { name: /Which region\?/ }).click();
  await page.getByText('Does the key work in Europe?').waitFor();
  await page.getByLabel('Reply', { exact: true }).fill('Yes, it works worldwide.');
  await page.getByRole('button', { name: 'Reply', exact: true }).click();
  await page.getByText('Yes, it works worldwide.').waitFor();
  await shot('ticket-answered');
  const answers = await server.app.db.kysely
    .selectFrom('ticket_messages')
    .select('content')
    .where('ticket_id', '=', ticketId)
    .execute();
  assert.ok(
    answers.some((m) => m.content === 'Yes, it works worldwide.'),
    'the answer is stored on the ticket',
  );

  // An API key made in the admin works until it is revoked there.
  await nav(page, 'API keys').click();
  await page.getByRole('button', { name: 'Create API key' }).click();
  await page.getByRole('dialog').getByLabel('Label').fill('Deploy script');
  await page.getByRole('dialog').getByRole('button', { name: 'Create', exact: true }).click();
  const key = await page.getByRole('dialog').getByLabel('API key').inputValue();
  await shot('api-key-created');
  await page.getByRole('dialog').getByRole('button', { name: 'Done' }).click();
  const withKey = () =>
    server.app.inject({ method: 'GET', url: '/self/shops', headers: { authorization: `Bearer ${key}` } });
  assert.equal((await withKey()).statusCode, 200, 'the new key works');
  await page
    .getByRole('row', { name: /Deploy script/ })
    .getByRole('button', { name: 'Revoke' })
    .click();
  await page
    .getByRole('row', { name: /Deploy script/ })
    .getByText('Revoked')
    .waitFor();
  assert.equal((await withKey()).statusCode, 401, 'the revoked key is refused');
  await shot('api-key-revoked');

  // Signing out ends the session: the cookie the browser still had opens nothing.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in to shopd' }).waitFor();
  signedOut = true;
  assert.equal((await page.request.get(`${server.url}/self/shops`)).status(), 401);
  await shot('signed-out');
});

e2eTest('the admin refuses a call without its CSRF token and a session that has expired', async (t) => {
  const server = await startServer(t);
  const shop = await seedShop(server);
  const email = await ownerWithPassword(server);
  // Once the session has expired, every call of the screen on view is refused: that is the point.
  const { page, shot } = await browse(t, {
    expected: (url, status) => expected(url, status) || (url.pathname.startsWith('/self/') && status === 401),
  });
  await signInToAdmin(page, server, email);
  await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();

  // The browser's cookie alone is not enough to change anything.
  const forged = await page.request.post(`${server.url}/self/${shop.shopId}/faqs`, {
    data: { question: 'Forged?', answer: 'This must not be stored.' },
  });
  assert.equal(forged.status(), 403);
  assert.equal((await forged.json()).code, 'forbidden');
  const faqs = await server.app.db.kysely.selectFrom('faqs').select('id').where('shop_id', '=', shop.shopId).execute();
  assert.equal(faqs.length, 0, 'nothing was written');
  assert.equal((await page.request.get(`${server.url}/self/${shop.shopId}/faqs`)).status(), 200, 'reads need no token');

  // A session past its end is refused: the next screen asks to sign in again. The dashboard polls
  // (every 10 s), so the session is expired on a screen that does not: otherwise a poll landing
  // between the update and the click would sign out first and take the navigation away.
  await nav(page, 'FAQs').click();
  await page.getByRole('heading', { name: 'FAQs', level: 1 }).waitFor();

  // A form is checked against the API's schema of its body before anything is sent: the problem
  // shows beside its field, tied to it, and no request leaves the browser.
  const faqWrites: string[] = [];
  page.on('request', (request) => {
    if (request.method() !== 'GET' && new URL(request.url()).pathname.endsWith('/faqs')) faqWrites.push(request.url());
  });
  await page.getByRole('button', { name: 'Add FAQ' }).click();
  const faqDialog = page.getByRole('dialog', { name: 'New FAQ' });
  await faqDialog.getByLabel('Answer').fill('Within a day.');
  await faqDialog.getByRole('button', { name: 'Save' }).click();
  const question = faqDialog.getByLabel('Question');
  await faqDialog.getByText('must not be empty').waitFor();
  assert.equal(await question.getAttribute('aria-invalid'), 'true', 'the question is marked invalid');
  assert.ok(await question.evaluate((el) => el === document.activeElement), 'the focus is on the question');
  await shot('faq-schema-problem');
  await faqDialog.getByRole('button', { name: 'Cancel' }).click();
  assert.deepEqual(faqWrites, [], 'nothing was sent');

  await server.app.db.kysely
    .updateTable('owner_sessions')
    .set({ expires_at: Date.now() - 1000 })
    .execute();
  await nav(page, 'Orders').click();
  await page.getByRole('heading', { name: 'Sign in to shopd' }).waitFor();
  await shot('session-expired');
  assert.equal((await page.request.get(`${server.url}/self/shops`)).status(), 401);
});

/** A file of `mib` MiB of varied bytes on disk (a path keeps its modification time between two choices). */
function bigFile(t: TestContext, name: string, mib: number): { path: string; sha256: string } {
  const dir = mkdtempSync(join(tmpdir(), 'shopd-e2e-files-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, name);
  const bytes = randomBytes(mib * 1024 * 1024);
  writeFileSync(path, bytes);
  return { path, sha256: createHash('sha256').update(bytes).digest('hex') };
}

e2eTest(
  'an owner uploads files, resumes a large upload, sells a licensed file product and manages its licence',
  async (t) => {
    const server = await startServer(t);
    const shop = await seedShop(server, { name: 'Field Press' });
    const email = await ownerWithPassword(server);
    const { page, shot } = await browse(t, {
      expected: (url, status) =>
        expected(url, status) ||
        // Deleting a file a product delivers is refused on purpose; an upload's progress is asked
        // for after a reload, and a finished one is no longer there.
        (status === 409 && url.pathname.includes('/files/')) ||
        (status === 404 && url.pathname.includes('/files/uploads/')),
    });
    page.on('dialog', (dialog) => void dialog.accept());
    await signInToAdmin(page, server, email);
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();

    // A small file goes in one request.
    await nav(page, 'Files').click();
    await page.getByRole('heading', { name: 'Files', level: 1 }).waitFor();
    const handbook = Buffer.from(`%PDF-1.4\n% Field handbook\n${'A field guide to the hills. '.repeat(2000)}\n%%EOF\n`);
    await page
      .getByLabel('Upload files')
      .setInputFiles({ name: 'handbook.pdf', mimeType: 'application/pdf', buffer: handbook });
    const files = page.getByRole('table', { name: 'Files' });
    await files.getByRole('row', { name: /handbook\.pdf/ }).waitFor();
    await files
      .getByRole('row', { name: /handbook\.pdf/ })
      .getByText('application/pdf')
      .waitFor();
    await shot('files-small-uploaded');

    // A large one goes in resumable chunks: the connection drops on the second chunk, the page is
    // reloaded, and choosing the same file again continues where the server stopped.
    const course = bigFile(t, 'course-videos.zip', 20);
    let cut = true;
    const offsets: string[] = [];
    await page.route('**/files/uploads/*', async (route) => {
      const request = route.request();
      if (request.method() === 'PUT') offsets.push(request.headers()['upload-offset'] ?? '');
      if (cut && request.method() === 'PUT' && request.headers()['upload-offset'] !== '0') {
        cut = false;
        await route.abort('aborted');
      } else await route.continue();
    });
    await page.getByLabel('Upload files').setInputFiles(course.path);
    const progress = page.getByRole('progressbar', { name: 'course-videos.zip' });
    await progress.waitFor();
    await page.getByText(/Stopped at \d+%: The connection was lost\./).waitFor();
    await page.getByRole('button', { name: 'Resume', exact: true }).waitFor();
    assert.ok(Number(await progress.getAttribute('value')) >= 8 * 1024 * 1024, 'the first chunk arrived');
    await shot('files-upload-interrupted');
    await page.reload();
    await page.getByRole('heading', { name: 'Unfinished uploads' }).waitFor();
    await page.getByText(/40% received/).waitFor();
    await shot('files-unfinished-after-reload');
    const chooser = page.waitForEvent('filechooser');
    await page.getByRole('button', { name: 'Resume the upload of course-videos.zip' }).click();
    await (await chooser).setFiles(course.path);
    await files.getByRole('row', { name: /course-videos\.zip/ }).waitFor();
    await shot('files-large-uploaded');
    const MiB8 = String(8 * 1024 * 1024);
    assert.deepEqual(
      offsets,
      ['0', MiB8, MiB8, String(16 * 1024 * 1024)],
      'the second chunk was sent again, not the first',
    );
    const stored = ok(await server.api.get(`/self/${shop.shopId}/files`)).items as {
      id: string;
      name: string;
      sha256: string;
      size: number;
    }[];
    const big = stored.find((f) => f.name === 'course-videos.zip');
    assert.equal(big?.sha256, course.sha256, 'the resumed upload stored the same bytes');
    assert.equal(big?.size, 20 * 1024 * 1024);
    const pdf = stored.find((f) => f.name === 'handbook.pdf')!;
    assert.equal(pdf.sha256, createHash('sha256').update(handbook).digest('hex'));

    // A file product with a licence per unit, its files picked from the shop's.
    await nav(page, 'Products').click();
    await page.getByRole('link', { name: 'Add product' }).click();
    await page.getByRole('heading', { name: 'New product', level: 1 }).waitFor();
    await page.getByLabel('Title', { exact: true }).fill('Field Guide');
    await page.getByLabel('Description', { exact: true }).fill('The handbook as a PDF, with a licence for the app.');
    await page.getByLabel('Price').first().fill('12');
    await page.getByLabel('Product type').selectOption('file');
    await page.getByRole('checkbox', { name: /handbook\.pdf/ }).check();
    await page.getByRole('checkbox', { name: /course-videos\.zip/ }).check();
    await page.getByRole('button', { name: 'Move course-videos.zip up' }).click();
    await page.getByLabel('Download limit').fill('3');
    await page.getByLabel('Link hours').fill('48');
    await page.getByRole('checkbox', { name: 'Issue a license per unit' }).check();
    await page.getByLabel('Activation limit').fill('2');
    assert.equal(await page.getByLabel('Key pattern').getAttribute('placeholder'), 'XXXX-XXXX-XXXX-XXXX');
    await page.getByLabel('Key pattern').fill('FG-XXXX-XXXX-XXXX');
    await page.getByRole('radio', { name: 'Some days after the sale' }).check();
    await page.getByLabel('Valid for (days)').fill('365');
    await shot('file-product-new');
    await page.getByRole('button', { name: 'Save' }).first().click();
    await page.getByText('Product created').waitFor();
    await page.waitForURL(/\/admin\/\d+\/products\/\d+$/);
    const productId = Number(new URL(page.url()).pathname.split('/').pop());
    // Read again from the server, the form shows what was saved, and saves it back unchanged.
    await page.reload();
    await page.getByRole('heading', { name: 'Field Guide', level: 1 }).waitFor();
    const chosen = page.getByRole('list', { name: 'Chosen files, in order' }).getByRole('listitem');
    assert.deepEqual(
      (await chosen.allTextContents()).map((text) => text.match(/[\w-]+\.(?:zip|pdf)/)?.[0]),
      ['course-videos.zip', 'handbook.pdf'],
    );
    assert.ok(await page.getByRole('checkbox', { name: 'Issue a license per unit' }).isChecked());
    assert.equal(await page.getByLabel('Key pattern').inputValue(), 'FG-XXXX-XXXX-XXXX');
    assert.equal(await page.getByLabel('Valid for (days)').inputValue(), '365');
    await shot('file-product-saved');
    await page.getByRole('button', { name: 'Save' }).first().click();
    await page.getByText('Product saved').waitFor();
    const product = ok(await server.api.get(`/self/${shop.shopId}/v2/products/${productId}`));
    const variant = product.variants[0];
    assert.equal(variant.productType, 'file');
    assert.deepEqual(variant.asFile.fileIds, [big!.id, pdf.id]);
    assert.equal(variant.asFile.downloadLimit, 3);
    assert.equal(variant.asFile.linkHours, 48);
    assert.deepEqual(variant.license, {
      activationLimit: 2,
      validDays: 365,
      expiresAt: null,
      keyPattern: 'FG-XXXX-XXXX-XXXX',
    });

    // A file a product delivers cannot be deleted: the screen says why.
    await nav(page, 'Files').click();
    await files
      .getByRole('row', { name: /handbook\.pdf/ })
      .getByRole('button', { name: 'Delete' })
      .click();
    await page.getByText('"handbook.pdf" is used by a product').waitFor();
    await shot('files-delete-refused');

    // A buyer's order: one licence, and a download of the handbook.
    const placed = await server.app.inject({
      method: 'POST',
      url: `/v2/public/shops/${shop.shopId}/invoices`,
      payload: {
        customerEmail: 'reader@example.com',
        gateway: 'tipjar',
        parts: [{ productId, productVariantId: variant.id, quantity: 1 }],
      },
    });
    const invoiceId = ok({ status: placed.statusCode, body: placed.json() }).id as string;
    ok(await server.api.post(`/self/${shop.shopId}/invoices/${encodeURIComponent(invoiceId)}/process`));
    const invoice = (await server.app.inject({ method: 'GET', url: `/v2/public/invoices/${invoiceId}` })).json().data;
    const download = invoice.downloads.find((d: { name: string }) => d.name === 'handbook.pdf');
    const got = await server.app.inject({
      method: 'GET',
      url: new URL(download.url).pathname,
      headers: { 'user-agent': 'FieldReader/2.1' },
    });
    assert.equal(got.statusCode, 200);
    const owned = ok(await server.api.get(`/self/${shop.shopId}/invoices/${encodeURIComponent(invoiceId)}`));
    const licenseKey = owned.licenses[0].licenseKey as string;
    assert.match(licenseKey, /^FG-[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}$/);
    const activated = await server.app.inject({
      method: 'POST',
      url: `/v2/public/shops/${shop.shopId}/licenses/activate`,
      payload: { licenseKey, instanceName: 'Office laptop' },
    });
    assert.equal(activated.statusCode, 200, activated.body);

    // The order shows its licence and the download log.
    await page.goto(`${server.url}/admin/${shop.shopId}/orders/${encodeURIComponent(invoiceId)}`);
    await page.getByRole('heading', { name: `Order ${invoiceId}`, level: 1 }).waitFor();
    const licenses = page.getByRole('table', { name: 'Licenses of the order' });
    await licenses
      .getByRole('row', { name: new RegExp(licenseKey) })
      .getByText('1 of 2')
      .waitFor();
    const downloads = page.getByRole('table', { name: 'Downloads of the order' });
    await downloads
      .getByRole('row', { name: /handbook\.pdf/ })
      .getByText('FieldReader/2.1')
      .waitFor();
    await shot('order-licenses-and-downloads');

    // The licence: its activation, then disabled, enabled, extended, reset and revoked.
    await licenses.getByRole('link', { name: licenseKey }).click();
    await page.getByRole('heading', { name: `License ${licenseKey}`, level: 1 }).waitFor();
    await page.getByRole('table', { name: 'Activations of the license' }).getByText('Office laptop').waitFor();
    await shot('license');
    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByText('License disabled').waitFor();
    await page.locator('.badge', { hasText: 'Disabled' }).waitFor();
    await page.getByRole('button', { name: 'Enable' }).click();
    await page.getByText('License enabled').waitFor();
    const before = ok(await server.api.get(`/self/${shop.shopId}/licenses/${owned.licenses[0].id}`));
    await page.getByRole('button', { name: 'Extend…' }).click();
    const extend = page.getByRole('dialog', { name: 'Extend the license' });
    await extend.getByLabel('Days to add').fill('30');
    await shot('license-extend');
    await extend.getByRole('button', { name: 'Extend' }).click();
    await page.getByText('License extended').waitFor();
    const after = ok(await server.api.get(`/self/${shop.shopId}/licenses/${owned.licenses[0].id}`));
    assert.equal(Date.parse(after.expiresAt) - Date.parse(before.expiresAt), 30 * 86_400_000, 'thirty days later');
    await page.getByRole('button', { name: 'Reset activations' }).click();
    await page.getByText('Activations reset').waitFor();
    await page.getByText(/^Deactivated /).waitFor();
    await page.getByRole('button', { name: 'Revoke' }).click();
    await page.getByText('This license is revoked').waitFor();
    await shot('license-revoked');

    // The licences list finds it; the signing key is rotated.
    await nav(page, 'Licenses').click();
    await page.getByRole('heading', { name: 'Licenses', level: 1 }).waitFor();
    await page
      .getByRole('table', { name: 'Licenses' })
      .getByRole('row', { name: new RegExp(licenseKey) })
      .getByText('Revoked')
      .waitFor();
    await page.getByRole('button', { name: 'Rotate signing key' }).click();
    await page.getByText('Signing key rotated').waitFor();
    await page
      .getByRole('table', { name: 'Signing keys' })
      .getByRole('cell', { name: 'Retired', exact: true })
      .waitFor();
    await shot('licenses');

    // At phone width both screens fit.
    await page.setViewportSize({ width: 390, height: 844 });
    assert.equal(await overflowsHorizontally(page), false, 'the licenses screen fits a phone');
    await shot('licenses-phone');
    await page.getByRole('button', { name: 'Menu' }).click();
    await nav(page, 'Files').click();
    await page.getByRole('heading', { name: 'Files', level: 1 }).waitFor();
    assert.equal(await overflowsHorizontally(page), false, 'the files screen fits a phone');
    await shot('files-phone');
  },
);

/** Every screen of the navigation, as an owner sees it on the demo-like shop, at desktop and phone width. */
const SCREENS = [
  'Dashboard',
  'Orders',
  'Disputes',
  'Products',
  'Files',
  'Licenses',
  'Groups',
  'Categories',
  'Storefront order',
  'Customers',
  'Coupons',
  'Affiliates',
  'Blacklist',
  'Tickets',
  'Mail',
  'Feedbacks',
  'FAQs',
  'Announcements',
  'General',
  'Payments',
  'Protection',
  'Design',
  'Webhooks',
  'API keys',
];

e2eTest(
  'every admin screen opens, at desktop and phone width, and the navigation works from the keyboard',
  async (t) => {
    const server = await startServer(t);
    const shop = await seedShop(server);
    const email = await ownerWithPassword(server);
    const desktop = await browse(t, { expected, viewport: { width: 1280, height: 900 } });
    await signInToAdmin(desktop.page, server, email);
    await desktop.page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    for (const name of SCREENS) {
      await desktop.page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name, exact: true }).click();
      await desktop.page.getByRole('heading', { level: 1 }).first().waitFor();
      await desktop.shot(`desktop-${name}`);
    }

    const phone = await browse(t, {
      label: 'phone',
      expected,
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
    });
    await signInToAdmin(phone.page, server, email);
    await phone.page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    for (const name of SCREENS) {
      await phone.page.getByRole('button', { name: 'Menu' }).click();
      await phone.page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name, exact: true }).click();
      await phone.page.getByRole('heading', { level: 1 }).first().waitFor();
      assert.equal(await overflowsHorizontally(phone.page), false, `${name} fits a phone's width`);
      await phone.shot(name);
    }

    // The design preview is live: a colour typed, not saved, shows in the storefront's frame.
    const { page } = desktop;
    await nav(page, 'Design').click();
    await page.frameLocator('iframe[title="Storefront preview"]').locator('body').waitFor();
    await page.getByLabel('Primary colour', { exact: true }).fill('#12ab34');
    await page.waitForFunction(() => {
      const doc = document.querySelector<HTMLIFrameElement>('iframe[title="Storefront preview"]')?.contentDocument;
      return doc ? getComputedStyle(doc.documentElement).getPropertyValue('--primary').trim() === '#12ab34' : false;
    });
    await desktop.shot('design-preview-unsaved');
    const saved = ok(await server.api.get(`/self/${shop.shopId}/customization`));
    assert.notEqual(saved.design.primaryColor, '#12ab34', 'nothing was saved');

    // The keyboard reaches the navigation and opens a screen with Enter.
    await page.goto(`${server.url}/admin/${shop.shopId}`);
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    const coupons = page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Coupons', exact: true });
    await tabTo(page, coupons, 'the Coupons link');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Coupons', level: 1 }).waitFor();
  },
);
