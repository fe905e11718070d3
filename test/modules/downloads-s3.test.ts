import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { downloadLogOfInvoice } from '../../src/modules/files/index.js';
import { build, owner } from '../helpers/build.js';
import { downloadsOf, fileShop, pathOf } from '../helpers/downloads.js';
import { s3rver } from '../helpers/s3rver.js';

/**
 * Downloads of files kept in S3-compatible storage (a real s3rver on 127.0.0.1): the link
 * redirects to a presigned URL of the object, which serves the bytes as an attachment; the
 * download counts at the redirect.
 */

test('on S3 a link redirects to a presigned URL that serves the file as an attachment; counted at the redirect', async (t) => {
  const env = await s3rver(t);
  const app = await build(t, env);
  assert.equal(app.files.kind, 's3');
  const api = await owner(app);
  const bytes = randomBytes(200_000);
  const name = 'Manuel d’été.pdf';
  const shop = await fileShop(app, api, { name, body: bytes }, { downloadLimit: 1 });
  const { id, downloads } = await shop.buy();
  const url = pathOf(downloads[0]!.url);

  const head = await app.inject({ method: 'HEAD', url });
  assert.equal(head.statusCode, 200, 'HEAD answers the headers here, and counts nothing');
  assert.equal(head.headers['content-length'], String(bytes.length));

  const res = await app.inject({ method: 'GET', url });
  assert.equal(res.statusCode, 302);
  assert.equal(res.headers['cache-control'], 'private, no-store');
  const location = new URL(res.headers.location as string);
  assert.equal(location.origin, env.FILES_S3_ENDPOINT, 'a URL of the bucket');
  assert.ok(location.searchParams.get('X-Amz-Signature'), 'presigned');
  assert.equal(location.searchParams.get('X-Amz-Expires'), '300', 'valid five minutes');
  assert.equal((await downloadsOf(app, id))[0]!.remaining, 0, 'counted at the redirect');

  const fetched = await fetch(location);
  assert.equal(fetched.status, 200);
  assert.ok(Buffer.from(await fetched.arrayBuffer()).equals(bytes), 'the same bytes');
  const disposition = fetched.headers.get('content-disposition') ?? '';
  assert.match(disposition, /^attachment; filename="/);
  assert.ok(disposition.includes(`filename*=UTF-8''${encodeURIComponent(name).replace(/'/g, '%27')}`), disposition);

  // The limit is used up: a new download is refused; a resumed one is still redirected, uncounted.
  const again = await app.inject({ method: 'GET', url });
  assert.equal(again.statusCode, 410);
  assert.equal(again.json().code, 'download_limit_reached');
  const resumed = await app.inject({ method: 'GET', url, headers: { range: 'bytes=1000-' } });
  assert.equal(resumed.statusCode, 302);
  const part = await fetch(resumed.headers.location as string, { headers: { range: 'bytes=1000-' } });
  assert.equal(part.status, 206);
  assert.ok(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(1000)));

  const log = await downloadLogOfInvoice(app.db.kysely, shop.shopId, id);
  assert.deepEqual(
    log.map((e) => [e.counted, e.bytes]),
    [
      [false, bytes.length - 1000],
      [true, bytes.length],
    ],
    'the bytes handed to the bucket at each redirect',
  );
});
