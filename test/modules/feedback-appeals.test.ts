import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import { createApiKey } from '../../src/modules/accounts/service.js';
import { printable } from '../../src/modules/feedbacks/appeals-command.js';
import { resolveAppeal } from '../../src/modules/feedbacks/service.js';
import { build, type Client, client, onEnd, owner, processEnv } from '../helpers/build.js';
import { cli } from '../helpers/cli.js';
import { assertError, assertOk, sellingShop } from '../helpers/factories.js';
import { redisAvailable, testRedisUrl } from '../helpers/redis.js';

/** A shop with two rated, completed orders (5 and 1 stars) and an open appeal against the 1. */
async function ratedShop(app: FastifyInstance, api: Client) {
  const shop = await sellingShop(api);
  const rate = async (email: string, rating: number, comment: string) => {
    const invoice = assertOk(
      await api.post(`/v2/public/shops/${shop.shopId}/invoices`, {
        customerEmail: email,
        gateway: 'tipjar',
        parts: [{ productId: shop.productId, productVariantId: shop.serviceVariant, quantity: 1 }],
      }),
    );
    assertOk(await api.post(`/self/${shop.shopId}/invoices/${invoice.id}/process`));
    const res = await app.inject({
      method: 'POST',
      url: `/v2/public/invoices/${invoice.id}/feedback`,
      payload: { rating, comment },
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().data.id as number;
  };
  const good = await rate('happy@example.com', 5, 'Great');
  const bad = await rate('troll@example.com', 1, 'Spam spam spam');
  assertOk(
    await api.post(`/self/${shop.shopId}/feedbacks/${bad}/appeal`, {
      reason: 'spam',
      description: 'Not a buyer comment',
    }),
  );
  const appealId: number = assertOk(await api.get(`/self/${shop.shopId}/feedbacks/appeals`)).items[0].id;
  const page = async (path: string) => {
    const res = await app.inject({ method: 'GET', url: `/v2/public/shops/${shop.shopId}${path}` });
    assert.equal(res.statusCode, 200, res.body);
    return res.json().data;
  };
  const figures = async () => {
    const main = await page('/main');
    const feedbacks = await page('/feedbacks');
    const product = await page('/listings/game-key');
    const today = new Date().toISOString().slice(0, 10);
    const advanced = assertOk(await api.get(`/self/${shop.shopId}/dashboard/advanced`));
    // A range given as date-times: its partial days are counted from the raw rows.
    const partial = assertOk(
      await api.get(`/self/${shop.shopId}/dashboard/advanced?fromDate=${today}T00:00:01Z&toDate=${today}T23:59:58Z`),
    );
    return {
      main: [
        main.shop.statistics.rating,
        main.shop.statistics.totalFeedbacks,
        main.feedbacks.map((f: { id: number }) => f.id),
      ],
      feedbacksPage: [
        [feedbacks.statistics.rating, feedbacks.statistics.totalFeedbacks],
        feedbacks.feedbacks.items.map((f: { id: number }) => f.id),
      ],
      productPage: [product.statistics, product.feedbacks.map((f: { id: number }) => f.id)],
      dashboard: [advanced.averageRating, partial.averageRating],
    };
  };
  return { ...shop, good, bad, appealId, figures, page };
}

test('accepting an appeal hides the feedback from every figure at once; rejecting keeps it; only open appeals resolve', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const { shopId, good, bad, appealId, figures } = await ratedShop(app, api);
  const before = await figures();
  assert.deepEqual(before, {
    main: [3, 2, [bad, good]],
    feedbacksPage: [
      [3, 2],
      [bad, good],
    ],
    productPage: [{ rating: 3, totalFeedbacks: 2 }, [bad, good]],
    dashboard: [3, 3],
  });

  // Straight through the service, as `shopd appeals accept` calls it: the pages cached by the
  // reads above are invalidated too.
  const accepted = await resolveAppeal(app.ctx, appealId, 'accepted');
  assert.equal(accepted.status, 'accepted');
  assert.equal(accepted.shopId, shopId);
  assert.ok(accepted.resolvedAt);
  const hidden = {
    main: [5, 1, [good]],
    feedbacksPage: [[5, 1], [good]],
    productPage: [{ rating: 5, totalFeedbacks: 1 }, [good]],
    dashboard: [5, 5],
  };
  assert.deepEqual(await figures(), hidden);
  const ownerView = assertOk(await api.get(`/self/${shopId}/feedbacks/${bad}`));
  assert.equal(ownerView.appeal.status, 'accepted', 'the owner sees the outcome');
  assert.equal(assertOk(await api.get(`/self/${shopId}/feedbacks/appeals?status=accepted`)).totalCount, 1);

  // Resolved once: a second verdict is a 409, a hidden feedback cannot be appealed again.
  await assert.rejects(resolveAppeal(app.ctx, appealId, 'rejected'), (err: any) => err.statusCode === 409);
  await assert.rejects(resolveAppeal(app.ctx, 999_999, 'accepted'), (err: any) => err.statusCode === 404);
  assertError(
    await api.post(`/self/${shopId}/feedbacks/${bad}/appeal`, { reason: 'other', description: 'Again' }),
    409,
    'conflict',
  );

  // The dashboards' rollups rebuilt (a timezone change) agree with what was maintained.
  assertOk(await api.put(`/self/${shopId}/settings/timezone`, { utcTimezoneOffset: 60 }));
  assertOk(await api.put(`/self/${shopId}/settings/timezone`, { utcTimezoneOffset: 0 }));
  assert.deepEqual(await figures(), hidden);

  // A rejected appeal changes no figure.
  assertOk(
    await api.post(`/self/${shopId}/feedbacks/${good}/appeal`, { reason: 'other', description: 'Please review' }),
  );
  const second = assertOk(await api.get(`/self/${shopId}/feedbacks/appeals?status=open`)).items[0].id;
  assert.equal((await resolveAppeal(app.ctx, second, 'rejected')).status, 'rejected');
  assert.deepEqual(await figures(), hidden);
  assert.equal(assertOk(await api.get(`/self/${shopId}/feedbacks/${good}`)).appeal.status, 'rejected');
});

test('shopd appeals list / accept / reject, and a running server sharing Redis shows the verdict at once', async (t) => {
  if (!(await redisAvailable())) return t.skip(`no Redis at ${testRedisUrl}`);
  const { config, env } = await processEnv(t);
  const shared = { redisUrl: testRedisUrl, redisKeyPrefix: `test-appeals-${randomUUID()}:` };
  const app = await buildApp({ config: { ...config, ...shared }, logger: false });
  onEnd(t, () => app.close());
  const api = client(app, (await createApiKey(app.ctx, { email: 'owner@example.com' })).key);
  const cliEnv = { ...env, REDIS_URL: shared.redisUrl, REDIS_KEY_PREFIX: shared.redisKeyPrefix };
  const { good, bad, appealId, page } = await ratedShop(app, api);
  assert.deepEqual((await page('/main')).shop.statistics.totalFeedbacks, 2, 'the page is now cached');

  const listed = await cli(cliEnv, 'appeals', 'list', '--status', 'open');
  assert.equal(listed.code, 0, listed.stderr);
  const lines = listed.stdout.trim().split('\n');
  assert.equal(lines.length, 1);
  assert.match(
    lines[0]!,
    new RegExp(
      `^${appealId}\tshop \\d+\tfeedback ${bad}\t1/5\topen\tspam\t\\S+\t-\tNot a buyer comment\tSpam spam spam$`,
    ),
  );
  assert.equal((await cli(cliEnv, 'appeals', 'list', '--status', 'accepted')).stdout.trim(), 'no accepted appeals');

  const accepted = await cli(cliEnv, 'appeals', 'accept', String(appealId));
  assert.equal(accepted.code, 0, accepted.stderr);
  assert.match(accepted.stdout, new RegExp(`accepted: feedback ${bad} of shop \\d+ is hidden`));
  const main = await page('/main');
  assert.deepEqual(
    [main.shop.statistics.totalFeedbacks, main.shop.statistics.rating],
    [1, 5],
    'the cached page was invalidated across processes',
  );
  assert.deepEqual(
    main.feedbacks.map((f: { id: number }) => f.id),
    [good],
  );

  const again = await cli(cliEnv, 'appeals', 'reject', String(appealId));
  assert.equal(again.code, 1);
  assert.match(again.stderr, /only open appeals can be resolved/);
  const missing = await cli(cliEnv, 'appeals', 'accept', '999999');
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /Appeal not found/);
  const noId = await cli(cliEnv, 'appeals', 'accept');
  assert.equal(noId.code, 1);
  assert.match(noId.stderr, /numeric appeal id/);
  const badStatus = await cli(cliEnv, 'appeals', 'list', '--status', 'pending');
  assert.equal(badStatus.code, 1);
  assert.match(badStatus.stderr, /--status: must be one of: open, accepted, rejected/);
  assert.match((await cli(cliEnv, 'appeals', 'list')).stdout, new RegExp(`^${appealId}\t.*\taccepted\t`, 'm'));
});

test("appeal texts reach the operator's terminal as one line without control characters", () => {
  assert.equal(printable('Great\n\tkey,  thanks'), 'Great key, thanks');
  // An escape sequence in a comment must not rewrite the operator's screen or window title.
  assert.equal(printable('ok\u001b]0;pwned\u0007 \u009b2J'), 'ok\\u001b]0;pwned\\u0007 \\u009b2J');
  assert.equal(printable(null), '');
});
