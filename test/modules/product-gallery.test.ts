import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import sharp from 'sharp';
import { build, owner } from '../helpers/build.js';
import { assertError, assertOk, sellingShop } from '../helpers/factories.js';
import { pngImage } from '../helpers/multipart.js';

/**
 * A product's gallery and the sizes its images are served in (issue 37, item 2): images after the
 * thumbnail, in the owner's order with their descriptions, at most 12 whatever uploads race; each
 * PNG, JPEG or WebP also served as AVIF and WebP in the widths a `srcset` lists, made once and kept
 * until the image is removed.
 */

async function setup(t: TestContext) {
  const app = await build(t);
  const api = await owner(app);
  const shop = await sellingShop(api);
  const images = `/self/${shop.shopId}/v2/products/${shop.productId}/images`;
  const stored = () =>
    readdirSync(join(app.config.dataDir, 'uploads'))
      .filter((n) => !n.startsWith('.'))
      .sort();
  const { subdomain } = assertOk(await api.get(`/self/${shop.shopId}/settings`));
  return { app, api, ...shop, images, stored, base: `/s/${subdomain}` };
}

const ids = (list: { id: number }[]) => list.map((i) => i.id);

test('an owner adds, orders, describes and removes gallery images; the product and its page show them', async (t) => {
  const { app, api, shopId, productId, images, stored, base } = await setup(t);
  const first = assertOk(await api.upload(images, await pngImage(40, 30, '#ff0000'), 'a.png'));
  const second = assertOk(await api.upload(images, await pngImage(40, 30, '#00ff00'), 'b.png'));
  const third = assertOk(await api.upload(images, await pngImage(40, 30, '#0000ff'), 'c.png'));
  assert.match(first.url, /^\/uploads\/[A-Za-z0-9_-]+\.png$/);
  assert.equal(first.alt, '');
  assert.deepEqual(ids(assertOk(await api.get(images))), [first.id, second.id, third.id], 'in the order added');
  assert.equal(stored().length, 3);

  // Listed ones first, in that order; the rest after, as they were.
  const arranged = assertOk(await api.put(images, { images: [{ id: third.id, alt: '  The box, from the front ' }] }));
  assert.deepEqual(ids(arranged), [third.id, first.id, second.id]);
  assert.equal(arranged[0].alt, 'The box, from the front');
  const product = assertOk(await api.get(`/self/${shopId}/v2/products/${productId}`));
  assert.deepEqual(product.images, arranged);

  // A list naming another product's image, or one twice, is refused and changes nothing.
  const other = assertOk(
    await api.post(`/self/${shopId}/v2/products`, {
      title: 'Other',
      description: 'Another product',
      variants: [{ title: 'One', priceDetails: { amount: 1 }, productType: 'service', asService: { text: 'x' } }],
    }),
  );
  const foreign = assertOk(
    await api.upload(`/self/${shopId}/v2/products/${other.id}/images`, await pngImage(), 'f.png'),
  );
  assertError(await api.put(images, { images: [{ id: foreign.id, alt: '' }] }), 400, 'validation_error');
  assertError(
    await api.put(images, {
      images: [
        { id: first.id, alt: 'x' },
        { id: first.id, alt: 'y' },
      ],
    }),
    400,
    'validation_error',
  );
  assert.deepEqual(assertOk(await api.get(images)), arranged);

  // The storefront page shows them after the thumbnail, described, in srcset sizes; the JSON-LD lists them.
  const page = await app.inject({ method: 'GET', url: `${base}/products/game-key` });
  assert.equal(page.statusCode, 200);
  const strip = page.body.slice(page.body.indexOf('class="gallery"'));
  assert.ok(strip.indexOf(third.url) < strip.indexOf(first.url), 'in the owner order');
  assert.match(page.body, /alt="The box, from the front"/);
  assert.ok(page.body.includes(`srcset="${third.url}/w320.avif 320w, ${third.url}/w640.avif 640w`));
  const ld = JSON.parse(/<script type="application\/ld\+json">(.*?)<\/script>/s.exec(page.body)![1]!);
  assert.ok(ld.image.some((url: string) => url.endsWith(third.url)));

  // Removing one deletes its file; deleting the product takes the rest along.
  assertOk(await api.delete(`${images}/${second.id}`));
  assertError(await api.delete(`${images}/${second.id}`), 404, 'not_found');
  assert.deepEqual(ids(assertOk(await api.get(images))), [third.id, first.id]);
  assert.equal(stored().length, 3, 'two of this product, one of the other');
  assertOk(await api.delete(`/self/${shopId}/products/${productId}`));
  assert.equal(stored().length, 1);
});

test("another account's key gets 404 on a gallery and changes nothing", async (t) => {
  const { app, api, images, stored } = await setup(t);
  const mine = assertOk(await api.upload(images, await pngImage(), 'a.png'));
  const stranger = await owner(app);
  assertError(await stranger.get(images), 404, 'not_found');
  assertError(await stranger.upload(images, await pngImage(), 'b.png'), 404, 'not_found');
  assertError(await stranger.put(images, { images: [{ id: mine.id, alt: 'pwned' }] }), 404, 'not_found');
  assertError(await stranger.delete(`${images}/${mine.id}`), 404, 'not_found');
  assert.deepEqual(assertOk(await api.get(images)), [mine]);
  assert.equal(stored().length, 1, 'no file of the stranger kept');
});

test('parallel uploads never take a gallery past 12, and a refused one leaves no file', async (t) => {
  const { api, images, stored } = await setup(t);
  const png = await pngImage(16, 16);
  const answers = await Promise.all(Array.from({ length: 15 }, (_, i) => api.upload(images, png, `${i}.png`)));
  const statuses = answers.map((a) => a.status).sort();
  assert.deepEqual(statuses, [...Array(12).fill(200), 409, 409, 409]);
  assert.equal(assertOk(await api.get(images)).length, 12);
  assert.equal(stored().length, 12, 'the refused uploads were removed again');
});

test('an upload is served in the widths and formats of a srcset, made once, never enlarged, gone with the image', async (t) => {
  const { app, api, images } = await setup(t);
  const big = await sharp({ create: { width: 1500, height: 900, channels: 3, background: '#336699' } })
    .jpeg()
    .toBuffer();
  const photo = assertOk(await api.upload(images, big, 'photo.jpg'));
  const get = (url: string) => app.inject({ method: 'GET', url });

  for (const [variant, width, type] of [
    ['w320.avif', 320, 'image/avif'],
    ['w640.webp', 640, 'image/webp'],
    ['w1280.avif', 1280, 'image/avif'],
  ] as const) {
    const res = await get(`${photo.url}/${variant}`);
    assert.equal(res.statusCode, 200, variant);
    assert.equal(res.headers['content-type'], type);
    assert.equal(res.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal((await sharp(res.rawPayload).metadata()).width, width, variant);
    assert.ok(res.rawPayload.length < big.length, `${variant} is smaller than the upload`);
  }
  // Made once: parallel first requests and later ones answer the same bytes.
  const again = await Promise.all([1, 2, 3].map(() => get(`${photo.url}/w960.webp`)));
  assert.ok(again.every((r) => r.rawPayload.equals(again[0]!.rawPayload)));

  // A small image is never enlarged.
  const small = assertOk(await api.upload(images, await pngImage(200, 100), 'small.png'));
  const scaled = await get(`${small.url}/w1280.webp`);
  assert.equal((await sharp(scaled.rawPayload).metadata()).width, 200);

  // Other widths and formats, names and GIFs: 404.
  for (const url of [
    `${photo.url}/w500.webp`,
    `${photo.url}/w640.png`,
    `${photo.url}/w640.webp.exe`,
    `${photo.url}/../w640.webp`,
    '/uploads/aaaaaaaaaaaaaaaaaaaaaaaa.png/w640.webp',
  ])
    assert.equal((await get(url)).statusCode, 404, url);
  const gif = assertOk(
    await api.upload(
      images,
      await sharp({ create: { width: 8, height: 8, channels: 3, background: '#000' } })
        .gif()
        .toBuffer(),
      'a.gif',
    ),
  );
  assert.equal((await get(`${gif.url}/w320.webp`)).statusCode, 404, 'a GIF is served as it is');

  // Removed: its sizes go too, even those made before.
  assertOk(await api.delete(`${images}/${photo.id}`));
  assert.equal((await get(`${photo.url}/w640.webp`)).statusCode, 404);
  assert.equal((await get(photo.url)).statusCode, 404);
});
