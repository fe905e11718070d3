import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { TestContext } from 'node:test';
import type { Page } from 'playwright-core';
import { buildApp } from '../src/app.js';
import { freshConfig, onEnd, owner } from '../test/helpers/build.js';
import { TestClock } from '../test/helpers/clock.js';
import { browse, e2eTest, mailTo, ok, overflowsHorizontally, type Server } from './harness.js';

/**
 * Digital delivery in a browser: the owner uploads a file and sells it with a licence; a buyer
 * buys it with the tip jar, downloads the file from the order page (the bytes are the upload's)
 * and sees the downloads left count down; signed in to the account, they see the licence, the
 * device a program activated it on, and free that device. Refused links show a page saying why.
 */

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const HOUR = 3_600_000;
/** A long name, as real ones are: it must wrap on a phone. */
const NAME = 'sketch-kit-brushes-and-guide-2026-edition.pdf';

/** A loopback port nobody listens on now (asked of the system, then let go). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/**
 * The app as the harness starts it, but at a port known beforehand so that PUBLIC_URL is this
 * server: download links are absolute under PUBLIC_URL, and the browser follows them as a buyer
 * would. The clock is the test's, to let a link expire without waiting.
 */
async function startServer(t: TestContext, clock: TestClock): Promise<Server> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const app = await buildApp({ config: await freshConfig(t, { PUBLIC_URL: url }), logger: false, clock });
  onEnd(t, () => app.close());
  await app.listen({ host: '127.0.0.1', port });
  return { app, url, api: await owner(app) };
}

/** Posts the page's own CSRF token to `action`, as a form of that page pointed elsewhere would. */
function postFrom(page: Page, action: string) {
  return Promise.all([
    page.waitForNavigation(),
    page.evaluate((target) => {
      const form = document.querySelector<HTMLFormElement>('form[action$="/account/sign-out"]')!;
      form.action = target;
      form.submit();
    }, action),
  ]).then(([response]) => response);
}

/** Signs in to the shop's customer area with the code mailed to `email`. */
async function signIn(server: Server, page: Page, home: string, email: string) {
  await page.goto(`${home}/account`);
  await page.getByRole('heading', { name: 'Sign in to your account', level: 1 }).waitFor();
  await page.getByLabel('E-mail').fill(email);
  await page.getByRole('button', { name: 'E-mail me a code' }).click();
  await page.getByRole('heading', { name: 'Check your e-mail', level: 1 }).waitFor();
  const mail = (await mailTo(server.app, email)).findLast((m) => m.subject.startsWith('Your sign-in code'));
  assert.ok(mail, 'a sign-in code was mailed');
  await page.getByLabel('Code', { exact: true }).fill(/\b(\d{6})\b/.exec(mail.body_text)![1]!);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Your account', level: 1 }).waitFor();
}

e2eTest('a buyer downloads a bought file, sees their licence and frees a device in the account', async (t) => {
  const clock = new TestClock();
  const server = await startServer(t, clock);
  const { api, app } = server;

  // The owner's side, through the API: a shop with the tip jar, a file, a licensed file product.
  const shop = ok(await api.post('/self/shops', { name: 'Pixel Tools' }));
  ok(await api.put(`/self/${shop.id}/settings/payments/tipjar`, { enabled: true, handle: 'pixeljar' }));
  const subdomain = ok(await api.get(`/self/${shop.id}/settings`)).subdomain as string;
  const home = `${server.url}/s/${subdomain}`;
  const bytes = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(200 * 1024)]);
  const uploaded = await api.upload(`/self/${shop.id}/files`, bytes, NAME);
  assert.equal(uploaded.status, 201, JSON.stringify(uploaded.body));
  const file = uploaded.body.data;
  assert.equal(file.sha256, sha256(bytes), 'the server hashed what was sent');
  ok(
    await api.post(`/self/${shop.id}/v2/products`, {
      title: 'Sketch Kit',
      description: 'Brushes and a guide, as a PDF, with a licence key for the plug-in.',
      variants: [
        {
          title: 'Single user',
          priceDetails: { amount: 12 },
          productType: 'file',
          asFile: { fileIds: [file.id], downloadLimit: 3, linkHours: 24 },
          license: { activationLimit: 2, validDays: 365, keyPattern: 'SKT-XXXX-XXXX-XXXX' },
        },
      ],
    }),
  );

  // The buyer finds it, orders it with the tip jar and waits on the order page.
  const email = 'artist@example.com';
  const buyer = await browse(t, { label: 'buyer' });
  const { page, shot } = buyer;
  const desktop = page.viewportSize()!;
  await page.goto(`${home}/`);
  await page.getByRole('link', { name: 'Sketch Kit' }).click();
  await page.getByRole('heading', { name: 'Sketch Kit', level: 1 }).waitFor();
  await shot('product');
  await page.getByRole('button', { name: 'Buy now' }).click();
  await page.getByRole('heading', { name: 'Checkout', level: 1 }).waitFor();
  await page.getByLabel('E-mail').fill(email);
  await page.getByRole('button', { name: 'Place order' }).click();
  await page.getByRole('heading', { name: 'Your order', level: 1 }).waitFor();
  await page.getByText('Waiting for payment').waitFor();
  assert.equal(await page.getByRole('heading', { name: 'Your downloads' }).count(), 0, 'no download before payment');
  const invoiceUrl = page.url();
  const invoiceId = decodeURIComponent(new URL(invoiceUrl).pathname.split('/').pop()!);
  await shot('invoice-pending');

  // The owner marks it paid; the open page shows the download and the licence key by itself.
  ok(await api.post(`/self/${shop.id}/invoices/${invoiceId}/process`));
  const downloads = page.getByRole('region', { name: 'Your downloads' });
  await downloads.waitFor();
  const [license] = ok(await api.get(`/self/${shop.id}/invoices/${invoiceId}`)).licenses;
  assert.match(license.licenseKey, /^SKT-[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}$/);
  await page.getByText(license.licenseKey).waitFor();
  await downloads.getByText('3 downloads left').waitFor();
  await downloads.getByText(/204\.8 kB/).waitFor();
  await shot('invoice-completed');

  // The download: the file under its name, byte for byte the upload.
  const link = downloads.getByRole('link', { name: `Download ${NAME}` });
  const href = (await link.getAttribute('href'))!;
  assert.ok(href.startsWith(`${server.url}/v2/public/shops/${shop.id}/downloads/`), href);
  const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
  assert.equal(download.suggestedFilename(), NAME);
  const got = readFileSync((await download.path())!);
  assert.equal(got.length, bytes.length);
  assert.equal(sha256(got), file.sha256, 'the downloaded bytes are the uploaded ones');

  // One download used: after a reload the page says so, with a fresh link.
  await page.reload();
  await downloads.getByText('2 downloads left').waitFor();
  const fresh = (await downloads.getByRole('link', { name: `Download ${NAME}` }).getAttribute('href'))!;
  await shot('invoice-after-download');
  await page.setViewportSize({ width: 360, height: 740 });
  assert.equal(await overflowsHorizontally(page), false, 'the order page fits a phone');
  await shot('invoice-after-download-phone');
  await page.setViewportSize(desktop);

  // A tampered link: a clear page saying so, and nothing counted.
  const token = href.split('/').pop()!;
  const tampered = `${href.slice(0, -token.length)}${token[0] === 'A' ? 'B' : 'A'}${token.slice(1)}`;
  const refused = await page.goto(tampered);
  assert.equal(refused?.status(), 403);
  await page.getByRole('heading', { name: 'This download link is not valid.', level: 1 }).waitFor();
  await page.getByRole('link', { name: 'Go to Pixel Tools' }).waitFor();
  await shot('download-tampered');

  // The signed-in buyer's account: the licence, not activated yet.
  await signIn(server, page, home, email);
  const licences = page.getByRole('region', { name: 'Your licences' });
  const card = licences.getByRole('listitem').filter({ hasText: license.licenseKey });
  await card.getByText('Sketch Kit').waitFor();
  await card.getByText('Not in use', { exact: true }).waitFor();
  await card.getByText(/0 of 2 activations used/).waitFor();
  await card.getByText(/valid until/).waitFor();
  await card.getByText('Not activated on any device.').waitFor();
  await shot('account-licence');

  // The buyer's program activates it; the account shows the device.
  const activate = await app.inject({
    method: 'POST',
    url: `/v2/public/shops/${shop.id}/licenses/activate`,
    payload: { licenseKey: license.licenseKey, instanceName: 'Studio laptop' },
  });
  assert.equal(activate.statusCode, 200, activate.body);
  const instanceId = activate.json().data.instanceId as string;
  await page.reload();
  await card.getByText('Active', { exact: true }).waitFor();
  await card.getByText(/1 of 2 activations used/).waitFor();
  const device = card.getByRole('listitem').filter({ hasText: 'Studio laptop' });
  await device.getByText(/^Activated /).waitFor();
  await shot('account-activated');
  // On a phone: nothing scrolls sideways, the key and the button still fit.
  await page.setViewportSize({ width: 360, height: 740 });
  assert.equal(await overflowsHorizontally(page), false, 'the account fits a phone');
  await shot('account-activated-phone');
  await page.setViewportSize(desktop);

  // Another signed-in buyer posting the same form for this licence gets the 404 page, and nothing changes.
  const other = await browse(t, { label: 'other buyer' });
  await signIn(server, other.page, home, 'someone-else@example.com');
  assert.equal(await other.page.getByRole('heading', { name: 'Your licences' }).count(), 0, 'they have none');
  const action = `/s/${subdomain}/account/licenses/${license.id}/instances/${instanceId}/free`;
  const foreign = await postFrom(other.page, action);
  assert.equal(foreign?.status(), 404);
  await other.page.getByRole('heading', { name: 'Page not found', level: 1 }).waitFor();
  await other.shot('foreign-licence-refused');
  const validate = async () => {
    const res = await app.inject({
      method: 'POST',
      url: `/v2/public/shops/${shop.id}/licenses/validate`,
      payload: { licenseKey: license.licenseKey, instanceId },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().data;
  };
  assert.equal((await validate()).valid, true, "the other buyer's post freed nothing");

  // The buyer frees the device: the page says so, the device is gone, the activation is back.
  await device.getByRole('button', { name: 'Free this device' }).click();
  await licences.getByRole('status').filter({ hasText: 'The device was freed' }).waitFor();
  await card.getByText('Not activated on any device.').waitFor();
  await card.getByText(/0 of 2 activations used/).waitFor();
  assert.equal(await page.getByText('Studio laptop').count(), 0);
  await shot('account-device-freed');
  // The same form sent again (a second tab, a double click) changes nothing and says so.
  await postFrom(page, action);
  await licences.getByRole('status').filter({ hasText: 'That device was already freed.' }).waitFor();
  const after = await validate();
  assert.equal(after.valid, false, 'the freed instance no longer validates');
  assert.equal(after.license.activationUsage, 0);

  // The account's order card has the download too; a link from before the reload expires with time.
  await page.getByRole('list', { name: 'Your downloads' }).getByText('2 downloads left').waitFor();
  clock.advance(25 * HOUR);
  const expired = await page.goto(fresh);
  assert.equal(expired?.status(), 410);
  await page.getByRole('heading', { name: 'This download link has expired.', level: 1 }).waitFor();
  await page.getByText(/Open your order page again/).waitFor();
  await shot('download-expired');
  // The order page gives a fresh link, and no refused attempt was counted.
  await page.goto(invoiceUrl);
  await downloads.getByText('2 downloads left').waitFor();
  await shot('invoice-fresh-links');
});
