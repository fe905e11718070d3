import assert from 'node:assert/strict';
import { test } from 'node:test';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { build, owner } from '../helpers/build.js';
import { assertOk, sellingShop } from '../helpers/factories.js';
import { pngImage } from '../helpers/multipart.js';

/** What search engines and link previews read: sitemap, robots.txt, canonical URLs, OpenGraph and JSON-LD. */

const meta = (html: string, key: string) =>
  new RegExp(`<meta (?:property|name)="${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}" content="([^"]*)"`).exec(
    html,
  )?.[1];

function jsonLd(html: string): any[] {
  return [...html.matchAll(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/g)].map((m) => JSON.parse(m[1]!));
}

async function rated(app: any, api: any, shopId: number, productId: number, variantId: number, rating: number) {
  const res = await app.inject({
    method: 'POST',
    url: `/v2/public/shops/${shopId}/invoices`,
    payload: {
      customerEmail: `r${rating}@example.com`,
      gateway: 'tipjar',
      parts: [{ productId, productVariantId: variantId, quantity: 1 }],
    },
  });
  assert.equal(res.statusCode, 200, res.body);
  const invoiceId = res.json().data.id;
  assertOk(await api.post(`/self/${shopId}/invoices/${invoiceId}/process`));
  const fb = await app.inject({
    method: 'POST',
    url: `/v2/public/invoices/${invoiceId}/feedback`,
    payload: { rating },
  });
  assert.equal(fb.statusCode, 200, fb.body);
}

test('a product page has its canonical URL, OpenGraph and Twitter tags with an absolute image, and Product JSON-LD with offers and rating', async (t) => {
  const app = await build(t, { PUBLIC_URL: 'https://shopd.example', STOREFRONT_DOMAIN: 'shops.example' });
  const api = await owner(app);
  const { shopId, productId, keysVariant, serviceVariant } = await sellingShop(api);
  const shop = assertOk(await api.get(`/self/${shopId}/settings`));
  const thumb = assertOk(
    await api.upload(`/self/${shopId}/v2/products/${productId}/thumbnail`, await pngImage(), 'k.png'),
  );
  await rated(app, api, shopId, productId, keysVariant, 5);
  await rated(app, api, shopId, productId, serviceVariant, 4);

  const page = await app.inject(`/s/${shop.subdomain}/products/game-key`);
  assert.equal(page.statusCode, 200);
  const canonical = `https://${shop.subdomain}.shops.example/products/game-key`;
  assert.ok(page.body.includes(`<link rel="canonical" href="${canonical}"/>`), 'canonical at the subdomain host');
  assert.equal(meta(page.body, 'og:url'), canonical);
  assert.equal(meta(page.body, 'og:type'), 'product');
  assert.equal(meta(page.body, 'og:site_name'), 'Selling Shop');
  assert.equal(meta(page.body, 'og:image'), `https://${shop.subdomain}.shops.example${thumb.url}`);
  assert.equal(meta(page.body, 'twitter:card'), 'summary_large_image');
  assert.equal(meta(page.body, 'twitter:image'), meta(page.body, 'og:image'));
  // The image is served at that host too (uploads are a service path on every host).
  const image = await app.inject({ url: thumb.url, headers: { host: `${shop.subdomain}.shops.example` } });
  assert.equal(image.statusCode, 200);

  const [data, ...more] = jsonLd(page.body);
  assert.equal(more.length, 0);
  assert.equal(data['@context'], 'https://schema.org');
  assert.equal(data['@type'], 'Product');
  assert.equal(data.name, 'Game Key');
  assert.equal(data.url, canonical);
  assert.deepEqual(data.image, [meta(page.body, 'og:image')]);
  assert.equal(data.offers['@type'], 'AggregateOffer');
  assert.equal(data.offers.priceCurrency, 'USD');
  assert.equal(data.offers.lowPrice, '5.00');
  assert.equal(data.offers.highPrice, '9.99');
  assert.equal(data.offers.offerCount, 2);
  assert.deepEqual(
    data.offers.offers.map((o: any) => [o.name, o.price, o.availability]),
    [
      ['Key', '9.99', 'https://schema.org/InStock'],
      ['Support', '5.00', 'https://schema.org/InStock'],
    ],
  );
  assert.deepEqual(data.aggregateRating, {
    '@type': 'AggregateRating',
    ratingValue: 4.5,
    reviewCount: 2,
    bestRating: 5,
    worstRating: 1,
  });

  // Sold out and on hold read as such; a single option is one Offer; without reviews there is no rating.
  const single = assertOk(
    await api.post(`/self/${shopId}/v2/products`, {
      title: 'Only </script><b>one</b>',
      description: 'd',
      variants: [{ title: 'One', priceDetails: { amount: 3 }, productType: 'serials', asSerials: { serials: [] } }],
    }),
  );
  const onePage = await app.inject(`/s/${shop.subdomain}/products/${single.path}`);
  assert.ok(!onePage.body.includes('</script><b>'), 'owner text cannot close the data block');
  const [one] = jsonLd(onePage.body);
  assert.equal(one.name, 'Only </script><b>one</b>');
  assert.equal(one.offers['@type'], 'Offer');
  assert.equal(one.offers.price, '3.00');
  assert.equal(one.offers.availability, 'https://schema.org/OutOfStock');
  assert.equal(one.aggregateRating, undefined);
  assert.equal(meta(onePage.body, 'twitter:card'), 'summary');
});

test("the sitemap lists the shop's pages at its canonical address; robots.txt names it and keeps buyers' pages out", async (t) => {
  const app = await build(t, { PUBLIC_URL: 'https://shopd.example' });
  const api = await owner(app);
  const { shopId } = await sellingShop(api);
  const shop = assertOk(await api.get(`/self/${shopId}/settings`));
  const base = `https://shopd.example/s/${shop.subdomain}`;
  assertOk(await api.post(`/self/${shopId}/announcements`, { title: 'Big & news', description: 'x' }));
  assertOk(await api.post(`/self/${shopId}/announcements`, { title: 'Quiet', description: 'x', unlisted: true }));
  assertOk(await api.post(`/self/${shopId}/announcements`, { title: 'Secret', description: 'x', private: true }));
  for (const flags of [{ private: true }, { unlisted: true }])
    assertOk(
      await api.post(`/self/${shopId}/v2/products`, {
        title: `Hidden ${Object.keys(flags)[0]}`,
        description: 'd',
        ...flags,
        variants: [
          { title: 'One', priceDetails: { amount: 3 }, productType: 'service', asService: { text: 't', stock: null } },
        ],
      }),
    );

  const res = await app.inject(`/s/${shop.subdomain}/sitemap.xml`);
  assert.equal(res.statusCode, 200);
  assert.match(String(res.headers['content-type']), /^application\/xml/);
  assert.equal(XMLValidator.validate(res.body), true);
  const parsed = new XMLParser({ ignoreAttributes: false, isArray: (name) => name === 'url' }).parse(res.body);
  assert.equal(parsed.urlset['@_xmlns'], 'http://www.sitemaps.org/schemas/sitemap/0.9');
  const locs: string[] = parsed.urlset.url.map((u: { loc: string }) => u.loc);
  assert.deepEqual(locs, [
    `${base}/`,
    `${base}/products/game-key`,
    `${base}/announcements/big-and-news`,
    `${base}/feedbacks`,
    `${base}/faq`,
  ]);
  // Each is a page that answers.
  for (const loc of locs)
    assert.equal((await app.inject(loc.slice('https://shopd.example'.length))).statusCode, 200, loc);

  const robots = await app.inject(`/s/${shop.subdomain}/robots.txt`);
  assert.match(String(robots.headers['content-type']), /^text\/plain/);
  assert.ok(robots.body.includes(`Sitemap: ${base}/sitemap.xml`));
  assert.ok(robots.body.includes(`Disallow: /s/${shop.subdomain}/invoices/`));

  // The operator's host: its own paths closed, the sitemaps of the shops living under /s/ named.
  const root = await app.inject('/robots.txt');
  assert.equal(root.statusCode, 200);
  assert.ok(root.body.includes('Disallow: /admin/') && root.body.includes('Disallow: /s/*/invoices/'));
  assert.ok(root.body.includes(`Sitemap: ${base}/sitemap.xml`));

  // A password-protected shop keeps every crawler out and shows no sitemap.
  assertOk(await api.put(`/self/${shopId}/settings/password`, { password: 'open sesame' }));
  const locked = await app.inject(`/s/${shop.subdomain}/robots.txt`);
  assert.equal(locked.statusCode, 200);
  assert.equal(locked.body, 'User-agent: *\nDisallow: /\n');
  assert.notEqual((await app.inject(`/s/${shop.subdomain}/sitemap.xml`)).statusCode, 200);
});

test('on a shop host robots.txt and sitemap.xml are its own, at the root; a verified custom domain becomes the canonical address', async (t) => {
  const app = await build(t, { PUBLIC_URL: 'https://shopd.example', STOREFRONT_DOMAIN: 'shops.example' });
  const api = await owner(app);
  const { shopId } = await sellingShop(api);
  const shop = assertOk(await api.get(`/self/${shopId}/settings`));
  const host = `${shop.subdomain}.shops.example`;
  const robots = await app.inject({ url: '/robots.txt', headers: { host } });
  assert.ok(robots.body.includes(`Sitemap: https://${host}/sitemap.xml`));
  assert.ok(robots.body.includes('Disallow: /invoices/'));
  const sitemap = await app.inject({ url: '/sitemap.xml', headers: { host } });
  assert.ok(sitemap.body.includes(`<loc>https://${host}/products/game-key</loc>`));
  // A shop on a subdomain host is not named in the operator's robots.txt.
  assert.ok(!(await app.inject('/robots.txt')).body.includes('Sitemap:'));

  assertOk(await api.put(`/self/${shopId}/settings/domain`, { domain: 'keys.example.org' }));
  const unverified = await app.inject({ url: '/', headers: { host: 'keys.example.org' } });
  assert.ok(unverified.body.includes(`<link rel="canonical" href="https://${host}/"/>`), 'not before it is verified');
  await app.db.kysely
    .updateTable('shops')
    .set({ custom_domain_verified_at: Date.now() })
    .where('id', '=', shopId)
    .execute();
  await api.put(`/self/${shopId}/settings/name`, { newName: 'Selling Shop' }); // a write: the cached pages are redone
  const verified = await app.inject(`/s/${shop.subdomain}/`);
  assert.ok(verified.body.includes('<link rel="canonical" href="https://keys.example.org/"/>'));
});

test('pages that belong to one buyer have no canonical URL and stay noindex', async (t) => {
  const app = await build(t);
  const api = await owner(app);
  const { shopId } = await sellingShop(api);
  const shop = assertOk(await api.get(`/self/${shopId}/settings`));
  const account = await app.inject(`/s/${shop.subdomain}/account`);
  assert.equal(account.statusCode, 200);
  assert.ok(account.body.includes('<meta name="robots" content="noindex, nofollow"/>'));
  assert.ok(!account.body.includes('rel="canonical"'));
});
