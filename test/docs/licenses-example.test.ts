import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { issueLicenses } from '../../src/modules/licenses/index.js';
import { build, owner } from '../helpers/build.js';
import { assertOk, sellingShop } from '../helpers/factories.js';
import { freePort } from '../helpers/redis.js';

/**
 * docs/licenses.md promises a JavaScript verification example that works: this takes its one
 * ```js block exactly as written, runs it with node as a buyer's program would (the issuer in
 * SHOP_ISSUER, the token as its argument) against a listening server, and checks that it accepts
 * a real token and refuses a tampered one.
 */
const root = resolve(import.meta.dirname, '../..');
const run = promisify(execFile);

function javascriptExample(): string {
  const blocks = [...readFileSync(join(root, 'docs/licenses.md'), 'utf8').matchAll(/^```js\n([\s\S]*?)^```$/gm)];
  assert.equal(blocks.length, 1, 'docs/licenses.md has one JavaScript block');
  const code = blocks[0]![1]!;
  const lines = code.trim().split('\n').length;
  assert.ok(lines >= 12 && lines <= 30, `about 20 lines, not ${lines}`);
  return code;
}

/** Runs the example with node; answers its exit code and output (a failing exit is not an error here). */
async function runExample(file: string, issuer: string, token: string) {
  try {
    const { stdout } = await run(process.execPath, [file, token], {
      env: { ...process.env, SHOP_ISSUER: issuer },
      timeout: 60_000,
    });
    return { code: 0, stdout };
  } catch (err) {
    const failed = err as { code?: number; stdout?: string; stderr?: string };
    if (typeof failed.code !== 'number') throw err;
    return { code: failed.code, stdout: failed.stdout ?? '', stderr: failed.stderr };
  }
}

test('the JavaScript example of docs/licenses.md accepts a real token and refuses a tampered one', async (t) => {
  const port = await freePort();
  const app = await build(t, { PUBLIC_URL: `http://127.0.0.1:${port}` });
  await app.listen({ host: '127.0.0.1', port });
  const api = await owner(app);
  const shop = await sellingShop(api);
  const placed = assertOk(
    await api.post(`/v2/public/shops/${shop.shopId}/invoices`, {
      customerEmail: 'program@example.com',
      gateway: 'tipjar',
      parts: [{ productId: shop.productId, productVariantId: shop.serviceVariant, quantity: 1 }],
    }),
  );
  const done = assertOk(await api.post(`/self/${shop.shopId}/invoices/${placed.id}/process`));
  const key = 'DOCS-EXAM-PLEK-EY01';
  await app.db.kysely.transaction().execute((trx) =>
    issueLicenses(
      trx,
      shop.shopId,
      {
        invoiceId: placed.id,
        productId: shop.productId,
        variantId: shop.serviceVariant,
        customerId: done.customerId,
        email: 'program@example.com',
        keys: [key],
        activationLimit: 1,
        expiresAt: null,
      },
      Date.now(),
    ),
  );
  const activated = await app.inject({
    method: 'POST',
    url: `/v2/public/shops/${shop.shopId}/licenses/activate`,
    payload: { licenseKey: key, instanceName: 'Docs' },
  });
  const { token } = assertOk({ status: activated.statusCode, body: activated.json() });

  // Beside the repository's node_modules, so that `import … from 'jose'` resolves as in a program that installed it.
  const cache = join(root, 'node_modules/.cache');
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, 'licenses-example-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'verify-license.mjs');
  writeFileSync(file, javascriptExample());
  const issuer = `http://127.0.0.1:${port}/v2/public/shops/${shop.shopId}`;

  const accepted = await runExample(file, issuer, token);
  assert.equal(accepted.code, 0, JSON.stringify(accepted));
  assert.equal(accepted.stdout.trim(), `licensed: ${key} (product ${shop.productId})`);

  const [head, body, signature] = token.split('.') as [string, string, string];
  const claims = JSON.parse(Buffer.from(body, 'base64url').toString());
  const forged = Buffer.from(JSON.stringify({ ...claims, sub: 'SOME-OTHER-KEY' })).toString('base64url');
  for (const tampered of [
    `${head}.${forged}.${signature}`,
    `${head}.${body}.${signature.slice(0, 10)}${signature[10] === 'A' ? 'B' : 'A'}${signature.slice(11)}`,
  ]) {
    const refused = await runExample(file, issuer, tampered);
    assert.equal(refused.code, 1, JSON.stringify(refused));
    assert.equal(refused.stdout.trim(), 'not licensed');
  }
  // A real token presented to a program of another shop (another issuer) is refused too.
  const elsewhere = await runExample(file, `http://127.0.0.1:${port}/v2/public/shops/${shop.shopId + 1000}`, token);
  assert.equal(elsewhere.code, 1);
});
