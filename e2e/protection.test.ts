import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import {
  browse,
  e2eTest,
  ok,
  ownerWithPassword,
  type Server,
  seedShop,
  signInToAdmin,
  startServer,
} from './harness.js';

/**
 * The admin's Protection screen (issue 36): every setting of `settings/protection` shown in its
 * section, a bad value refused beside its field in the owner's words before anything is sent, and
 * a section saved on its own (the other settings keep their values).
 */

/** Signs the test server's owner in to the admin. */
async function signIn(page: Page, server: Server) {
  await signInToAdmin(page, server, await ownerWithPassword(server));
}

/** Does `act` and waits for the PUT of the protection it causes, which must succeed. */
async function saved(page: Page, act: () => Promise<void>) {
  const answer = page.waitForResponse(
    (res) => res.request().method() === 'PUT' && new URL(res.url()).pathname.endsWith('/settings/protection'),
  );
  await act();
  assert.equal((await answer).status(), 200);
}

/** Answers the admin asks for on purpose: the session probe when signed out. */
const expected = (url: URL, status: number) => url.pathname === '/self/session' && status === 401;

e2eTest(
  'the owner sets the protection of the shop: every setting shown, bad values explained, a section saved alone',
  async (t) => {
    const server = await startServer(t);
    const shop = await seedShop(server);
    const before = ok(await server.api.get(`/self/${shop.shopId}/settings`)).protection;
    const { page, shot } = await browse(t, { expected });
    await signIn(page, server);
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    await page
      .getByRole('navigation', { name: 'Admin' })
      .getByRole('link', { name: 'Protection', exact: true })
      .click();
    await page.getByRole('heading', { name: 'Protection', level: 1 }).waitFor();

    // Every setting has its field, showing the shop's value.
    const fields: [string, string][] = [
      ['Card and crypto orders hold stock for (minutes)', String(before.holdMinutesHosted)],
      ['Units of one product a client may hold unpaid', String(before.unitsPerClient)],
      ['Unpaid orders a client may have open', String(before.pendingPerClient)],
      ['Card and crypto checkouts per client per hour', String(before.hostedCheckoutsPerHour)],
      ['Mails to one address per hour', String(before.mailPerRecipientHour)],
      ["Mails one client's actions may cause per hour", String(before.mailPerClientHour)],
      ['Mails from this shop per day', String(before.mailPerShopDay)],
      ['Actions per client per hour before it is asked', String(before.challengeThreshold)],
      ['Ask for the challenge', before.challenge],
    ];
    for (const [label, value] of fields)
      assert.equal(await page.getByLabel(label, { exact: true }).inputValue(), value, label);
    assert.equal(
      await page.getByRole('checkbox', { name: "Blacklist the order's e-mail address and IP address" }).isChecked(),
      before.disputeBlacklist,
    );
    assert.equal(
      await page.getByRole('checkbox', { name: 'Submit the collected evidence to the provider at once' }).isChecked(),
      before.disputeAutoSubmit,
    );
    await shot('protection');

    const holds = page.getByRole('form', { name: 'Holding stock settings' });
    await holds.getByLabel('Card and crypto orders hold stock for (minutes)').fill('2');
    await holds.getByLabel('Units of one product a client may hold unpaid').fill('');
    await holds.getByRole('button', { name: 'Save' }).click();
    await holds.getByText('Enter a number from 5 to 10,080.').waitFor();
    await holds.getByText('Enter a whole number from 0 to 10,000,000 (0 turns it off).').waitFor();
    await shot('protection-refused');
    assert.deepEqual(ok(await server.api.get(`/self/${shop.shopId}/settings`)).protection, before, 'nothing was sent');

    await holds.getByLabel('Card and crypto orders hold stock for (minutes)').fill('20');
    await holds.getByLabel('Units of one product a client may hold unpaid').fill('4');
    await saved(page, () => holds.getByRole('button', { name: 'Save' }).click());
    const disputes = page.getByRole('form', { name: 'Payment disputes settings' });
    await disputes.getByRole('checkbox', { name: "Blacklist the order's e-mail address and IP address" }).check();
    await saved(page, () => disputes.getByRole('button', { name: 'Save' }).click());
    const challenge = page.getByRole('form', { name: 'Proof-of-work challenge settings' });
    await challenge.getByLabel('Ask for the challenge').selectOption({ label: 'Always' });
    await challenge.getByLabel('Actions per client per hour before it is asked').fill('0');
    await challenge.getByRole('button', { name: 'Save' }).click();
    await challenge.getByText('Enter a number from 1 to 10,000,000.').waitFor();
    await challenge.getByLabel('Actions per client per hour before it is asked').fill('8');
    await saved(page, () => challenge.getByRole('button', { name: 'Save' }).click());
    const after = ok(await server.api.get(`/self/${shop.shopId}/settings`)).protection;
    assert.deepEqual(after, {
      ...before,
      holdMinutesHosted: 20,
      unitsPerClient: 4,
      disputeBlacklist: true,
      challenge: 'always',
      challengeThreshold: 8,
    });

    // A mail the budgets hold back is listed under Mail with the budget that held it.
    ok(await server.api.put(`/self/${shop.shopId}/settings/protection`, { challenge: 'off', mailPerRecipientHour: 1 }));
    for (const title of ['First', 'Second']) {
      const res = await server.app.inject({
        method: 'POST',
        url: `/v2/public/shops/${shop.shopId}/tickets`,
        payload: { email: 'victim@example.com', title, message: 'Hello' },
      });
      assert.equal(res.statusCode, 200, res.body);
    }
    await page.getByRole('navigation', { name: 'Admin' }).getByRole('link', { name: 'Mail', exact: true }).click();
    await page.getByRole('heading', { name: 'Mail', level: 1 }).waitFor();
    await page.getByRole('table', { name: 'Mail' }).getByText('Held back').waitFor();
    await page.getByLabel('Status').selectOption({ label: 'Held back by a mail budget' });
    // The filtered list replaces the whole one when it arrives: the mail that was sent is gone from it.
    await page.getByRole('table', { name: 'Mail' }).getByText('Waiting').waitFor({ state: 'detached' });
    await page.getByText(/suppressed: the shop's mail budget allows 1 mail to/).waitFor();
    assert.equal(await page.getByRole('table', { name: 'Mail' }).getByRole('row').count(), 2, 'a header and one mail');
    await shot('mail-suppressed');
  },
);
