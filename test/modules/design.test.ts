import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { defaultDesign } from '../../src/modules/design/schema.js';
import { getDesign } from '../../src/modules/design/service.js';
import { build, type Client, owner } from '../helpers/build.js';
import { assertError, assertOk, createShop } from '../helpers/factories.js';
import { icoImage, pngImage } from '../helpers/multipart.js';

async function setup(t: TestContext) {
  const app = await build(t);
  const api = await owner(app);
  const shop = await createShop(api);
  return { app, api, base: `/self/${shop.id}`, shopId: shop.id };
}

/** The design as GET customization shows it, checked against GET settings: they must agree. */
async function designOf(api: Client, base: string) {
  const design = assertOk(await api.get(`${base}/customization`));
  assert.deepEqual(assertOk(await api.get(`${base}/settings`)).design, design, 'GET settings shows the same design');
  return design;
}

function served(app: FastifyInstance, url: string) {
  return app.inject({ method: 'GET', url });
}

test('GET customization answers the default design, the same as settings.design', async (t) => {
  const { api, base } = await setup(t);
  assert.deepEqual(await designOf(api, base), defaultDesign);
});

test('design flags: partial updates through both families keep the other fields', async (t) => {
  const { api, base } = await setup(t);
  const first = assertOk(await api.put(`${base}/settings/design`, { primaryColor: '#FF00AA', darkMode: false }));
  assert.equal(first.design.primaryColor, '#ff00aa', 'colours are stored lower-case');
  assert.equal(first.design.darkMode, false);
  assert.equal(first.design.backgroundColor, defaultDesign.design.backgroundColor);

  const second = assertOk(
    await api.put(`${base}/customization/design`, {
      backgroundColor: '#101010',
      disableSnow: true,
      hideProductStock: true,
      fontLink: 'https://fonts.example.com/css?family=Inter',
    }),
  );
  assert.equal(second.design.primaryColor, '#ff00aa', 'the other family kept the first write');
  assert.equal(second.design.darkMode, false);
  assert.equal(second.design.backgroundColor, '#101010');
  assert.equal(second.design.disableSnow, true);
  assert.equal(second.design.hideProductStock, true);
  assert.equal(second.design.fontLink, 'https://fonts.example.com/css?family=Inter');
  assert.deepEqual(await designOf(api, base), second);

  // An empty body changes nothing; null clears the font.
  assert.deepEqual(assertOk(await api.put(`${base}/settings/design`, {})), second);
  assert.equal(assertOk(await api.put(`${base}/customization/design`, { fontLink: null })).design.fontLink, null);
  // Other sections are untouched by design writes.
  const final = await designOf(api, base);
  assert.deepEqual(final.widgets, defaultDesign.widgets);
  assert.deepEqual(final.storefront, defaultDesign.storefront);
});

test('widgets, storefront and SEO: partial updates, blank or null clears, both families', async (t) => {
  const { api, base } = await setup(t);
  assertOk(await api.put(`${base}/customization/widgets`, { crispKey: '4a2f-9c1e', googleAnalyticsKey: 'G-ABC123' }));
  let design = assertOk(await api.put(`${base}/customization/widgets`, { hotjarKey: '1234567', crispKey: '' }));
  assert.deepEqual(design.widgets, {
    crispKey: null,
    googleAnalyticsKey: 'G-ABC123',
    hotjarKey: '1234567',
    intercomKey: null,
  });

  assertOk(
    await api.put(`${base}/settings/design/storefront`, {
      title: 'Keys & more',
      description: 'Fast delivery',
      disableButton: true,
    }),
  );
  design = assertOk(
    await api.put(`${base}/customization/storefront`, {
      buttonText: 'Shop now',
      description: null,
      imageUrl: '/uploads/elsewhere.png',
    }),
  );
  assert.deepEqual(design.storefront, {
    title: 'Keys & more',
    description: null,
    buttonText: 'Shop now',
    disableButton: true,
    disableTitle: false,
    disableDescription: false,
    imageUrl: null,
  });

  assertOk(await api.put(`${base}/customization/seo`, { metaTitle: 'Keys', metaDescription: 'The best keys' }));
  design = assertOk(await api.put(`${base}/customization/seo`, { metaTitle: '  ', faviconUrl: '/uploads/x.ico' }));
  assert.deepEqual(design.seo, { metaTitle: null, metaDescription: 'The best keys', imageUrl: null, faviconUrl: null });
  assert.equal(design.logoUrl, null);

  const read = await designOf(api, base);
  assert.deepEqual(read, design);
  assert.equal(read.widgets.googleAnalyticsKey, 'G-ABC123');
  assert.equal(read.storefront.title, 'Keys & more');
});

test('social links: the list is replaced, through either family', async (t) => {
  const { api, base } = await setup(t);
  const links = [
    { platform: 'discord', link: 'https://discord.gg/keys' },
    { platform: 'email', link: 'support@example.com' },
    { platform: 'email', link: 'mailto:sales@example.com' },
    { platform: 'website', link: 'https://keys.example.com/' },
  ];
  assert.deepEqual(
    assertOk(await api.put(`${base}/settings/design/links`, { socialLinks: links })).links.socialLinks,
    links,
  );
  assert.deepEqual((await designOf(api, base)).links.socialLinks, links);

  const replaced = [{ platform: 'telegram', link: 'https://t.me/keys', extra: 'ignored' }];
  const design = assertOk(await api.put(`${base}/customization/links`, { socialLinks: replaced }));
  assert.deepEqual(design.links.socialLinks, [{ platform: 'telegram', link: 'https://t.me/keys' }]);
  assert.deepEqual(assertOk(await api.put(`${base}/customization/links`, { socialLinks: [] })).links.socialLinks, []);

  const twenty = Array.from({ length: 20 }, (_, i) => ({ platform: 'other', link: `https://example.com/${i}` }));
  assert.equal(
    assertOk(await api.put(`${base}/customization/links`, { socialLinks: twenty })).links.socialLinks.length,
    20,
  );
});

/** Each bad body: the route, the body, and the field its 400 must name. */
const badBodies: [string, unknown, string][] = [
  ['settings/design', { primaryColor: 'red' }, 'primaryColor'],
  ['settings/design', { primaryColor: '#fff' }, 'primaryColor'],
  ['customization/design', { secondaryTextColor: '#12345g' }, 'secondaryTextColor'],
  ['customization/design', { darkMode: 'yes' }, 'darkMode'],
  ['customization/design', { disableSnow: 1 }, 'disableSnow'],
  ['settings/design', { fontLink: 'http://fonts.example.com/a.css' }, 'fontLink'],
  ['settings/design', { fontLink: 'javascript:alert(1)' }, 'fontLink'],
  ['customization/design', { fontLink: 'https://' }, 'fontLink'],
  ['customization/design', { fontLink: `https://example.com/${'a'.repeat(2048)}` }, 'fontLink'],
  ['customization/widgets', { crispKey: 'x'.repeat(201) }, 'crispKey'],
  ['customization/widgets', { intercomKey: '"><script>alert(1)</script>' }, 'intercomKey'],
  ['customization/widgets', { hotjarKey: 42 }, 'hotjarKey'],
  ['settings/design/storefront', { title: 'x'.repeat(201) }, 'title'],
  ['customization/storefront', { buttonText: 'x'.repeat(65) }, 'buttonText'],
  ['customization/storefront', { disableTitle: 'no' }, 'disableTitle'],
  ['customization/storefront', { description: 'x'.repeat(5001) }, 'description'],
  ['customization/seo', { metaTitle: 'x'.repeat(71) }, 'metaTitle'],
  ['customization/seo', { metaDescription: 'x'.repeat(161) }, 'metaDescription'],
  ['settings/design/links', {}, 'socialLinks'],
  ['customization/links', { socialLinks: 'https://x.example' }, 'socialLinks'],
  [
    'customization/links',
    { socialLinks: [{ platform: 'myspace', link: 'https://myspace.com/x' }] },
    'socialLinks[0].platform',
  ],
  ['customization/links', { socialLinks: [{ platform: 'discord' }] }, 'socialLinks[0].link'],
  [
    'customization/links',
    { socialLinks: [{ platform: 'website', link: 'http://keys.example.com' }] },
    'socialLinks[0].link',
  ],
  [
    'settings/design/links',
    {
      socialLinks: [
        { platform: 'twitter', link: 'https://x.com/k' },
        { platform: 'youtube', link: 'not a url' },
      ],
    },
    'socialLinks[1].link',
  ],
  ['customization/links', { socialLinks: [{ platform: 'email', link: 'not-an-address' }] }, 'socialLinks[0].link'],
  ['customization/links', { socialLinks: [{ platform: 'email', link: 'https://example.com' }] }, 'socialLinks[0].link'],
  [
    'customization/links',
    { socialLinks: Array.from({ length: 21 }, () => ({ platform: 'other', link: 'https://example.com' })) },
    'socialLinks',
  ],
];

test('bad bodies are a 400 naming the field, and change nothing', async (t) => {
  const { api, base } = await setup(t);
  // A design with something in every section, so "nothing changed" means something.
  assertOk(
    await api.put(`${base}/customization/design`, {
      primaryColor: '#123456',
      fontLink: 'https://fonts.example.com/x.css',
    }),
  );
  assertOk(await api.put(`${base}/customization/widgets`, { crispKey: 'crisp-1' }));
  assertOk(await api.put(`${base}/customization/storefront`, { title: 'Title' }));
  assertOk(await api.put(`${base}/customization/seo`, { metaTitle: 'Meta' }));
  assertOk(
    await api.put(`${base}/customization/links`, {
      socialLinks: [{ platform: 'website', link: 'https://keys.example.com' }],
    }),
  );
  const before = await designOf(api, base);
  for (const [path, body, field] of badBodies) {
    const res = await api.put(`${base}/${path}`, body);
    assertError(res, 400, 'validation_error');
    assert.ok(
      res.body.errors.some((e: string) => e.startsWith(`${field}: `)),
      `PUT ${path} ${JSON.stringify(body).slice(0, 80)} should name ${field}: ${JSON.stringify(res.body.errors)}`,
    );
  }
  // A body that is not an object at all.
  assertError(await api.put(`${base}/customization/seo`, [1, 2]), 400, 'validation_error');
  assert.deepEqual(await designOf(api, base), before, 'bad bodies changed nothing');
});

/** Each upload route, the design field it sets, and a route of the other family writing the same slot. */
const uploadRoutes: { path: string; alias?: string; read: (d: any) => string | null }[] = [
  { path: 'customization/logo', alias: 'settings/design/logo', read: (d) => d.logoUrl },
  {
    path: 'customization/storefront/background',
    alias: 'settings/design/storefront/logo',
    read: (d) => d.storefront.imageUrl,
  },
  { path: 'customization/seo/image', read: (d) => d.seo.imageUrl },
  { path: 'customization/seo/favicon', read: (d) => d.seo.faviconUrl },
];

for (const route of uploadRoutes) {
  test(`POST ${route.path}: sets the image, serves it, and a replacement removes the old file`, async (t) => {
    const { app, api, base } = await setup(t);
    const first = assertOk(await api.upload(`${base}/${route.path}`, await pngImage(8, 8, '#ff0000')));
    assert.match(first.url, /^\/uploads\/[A-Za-z0-9_-]+\.png$/);
    assert.equal(route.read(await designOf(api, base)), first.url);
    const firstServed = await served(app, first.url);
    assert.equal(firstServed.statusCode, 200);
    assert.equal(firstServed.headers['content-type'], 'image/png');

    // The replacement comes through the other family when there is one: one slot, one file.
    const second = assertOk(await api.upload(`${base}/${route.alias ?? route.path}`, await pngImage(8, 8, '#00ff00')));
    assert.notEqual(second.url, first.url);
    assert.equal(route.read(await designOf(api, base)), second.url);
    assert.equal((await served(app, first.url)).statusCode, 404, 'the replaced file is removed');
    assert.equal((await served(app, second.url)).statusCode, 200);

    // Not an image, or not multipart: 415, and nothing changes.
    const before = await designOf(api, base);
    assertError(await api.upload(`${base}/${route.path}`, Buffer.from('not an image')), 415, 'unsupported_media_type');
    assertError(await api.post(`${base}/${route.path}`, { file: 'x' }), 415, 'unsupported_media_type');
    assert.deepEqual(await designOf(api, base), before);
  });
}

test('the favicon accepts ICO; the logo and other images refuse it', async (t) => {
  const { app, api, base } = await setup(t);
  const ico = await icoImage();
  const favicon = assertOk(await api.upload(`${base}/customization/seo/favicon`, ico, 'favicon.ico'));
  assert.match(favicon.url, /^\/uploads\/[A-Za-z0-9_-]+\.ico$/);
  const servedIco = await served(app, favicon.url);
  assert.equal(servedIco.headers['content-type'], 'image/x-icon');
  assert.deepEqual(servedIco.rawPayload, ico);
  assert.equal((await designOf(api, base)).seo.faviconUrl, favicon.url);

  for (const path of [
    'customization/logo',
    'settings/design/logo',
    'customization/storefront/background',
    'customization/seo/image',
  ]) {
    assertError(await api.upload(`${base}/${path}`, ico, 'favicon.ico'), 415, 'unsupported_media_type');
  }
  const design = await designOf(api, base);
  assert.equal(design.logoUrl, null);
  assert.equal(design.storefront.imageUrl, null);
  assert.equal(design.seo.imageUrl, null);
  assert.equal(design.seo.faviconUrl, favicon.url);
});

test('images are stored by upload name; getDesign gives the URLs; refused uploads leave no file', async (t) => {
  const { app, api, base, shopId } = await setup(t);
  const logo = assertOk(await api.upload(`${base}/settings/design/logo`, await pngImage()));
  const favicon = assertOk(await api.upload(`${base}/customization/seo/favicon`, await icoImage(), 'favicon.ico'));
  const row = await app.db.kysely
    .selectFrom('shop_designs')
    .select('data')
    .where('shop_id', '=', shopId)
    .executeTakeFirstOrThrow();
  const stored = JSON.parse(row.data);
  assert.equal(stored.images.logo, logo.url.replace('/uploads/', ''));
  assert.equal(stored.images.favicon, favicon.url.replace('/uploads/', ''));
  assert.ok(!row.data.includes('/uploads/'), 'no URL is stored');

  const design = await getDesign(app.db.kysely, shopId);
  assert.equal(design.logoUrl, logo.url);
  assert.equal(design.seo.faviconUrl, favicon.url);

  const files = () => readdirSync(join(app.config.dataDir, 'uploads')).sort();
  const before = files();
  assert.equal(before.length, 2);
  assertError(
    await api.upload(`${base}/customization/logo`, Buffer.from('GIF89a but not really')),
    415,
    'unsupported_media_type',
  );
  assert.deepEqual(files(), before);
});

test("one shop's design is its own", async (t) => {
  const { app, api, base } = await setup(t);
  const other = await createShop(api, 'Other Shop');
  assertOk(await api.put(`${base}/customization/design`, { primaryColor: '#abcdef' }));
  assertOk(await api.upload(`${base}/customization/logo`, await pngImage()));
  assert.deepEqual(await designOf(api, `/self/${other.id}`), defaultDesign);
  assert.deepEqual(await getDesign(app.db.kysely, other.id), defaultDesign);
});

test('concurrent partial updates of different fields all land', async (t) => {
  const { api, base } = await setup(t);
  const flags = [
    'disableBusinessName',
    'disableSearchBar',
    'centerProductTitle',
    'disableBusinessLogo',
    'disableReviews',
    'disableProductsSold',
    'hideOutOfStockProducts',
    'disableShadows',
    'disableSupport',
    'disableSnow',
    'hideProductStock',
  ] as const;
  const writes = [
    ...flags.map((flag, i) => api.put(`${base}/${i % 2 ? 'settings' : 'customization'}/design`, { [flag]: true })),
    api.put(`${base}/customization/widgets`, { crispKey: 'crisp' }),
    api.put(`${base}/customization/widgets`, { hotjarKey: 'hotjar' }),
    api.put(`${base}/settings/design/storefront`, { title: 'T' }),
    api.put(`${base}/customization/storefront`, { buttonText: 'B' }),
    api.put(`${base}/customization/seo`, { metaTitle: 'M' }),
    api.put(`${base}/customization/seo`, { metaDescription: 'D' }),
  ];
  for (const res of await Promise.all(writes)) assertOk(res);
  const design = await designOf(api, base);
  for (const flag of flags) assert.equal(design.design[flag], true, flag);
  assert.equal(design.widgets.crispKey, 'crisp');
  assert.equal(design.widgets.hotjarKey, 'hotjar');
  assert.equal(design.storefront.title, 'T');
  assert.equal(design.storefront.buttonText, 'B');
  assert.equal(design.seo.metaTitle, 'M');
  assert.equal(design.seo.metaDescription, 'D');
});

test('concurrent uploads to one slot leave exactly one file, the one the design shows', async (t) => {
  const { app, api, base } = await setup(t);
  const results = await Promise.all(
    Array.from({ length: 6 }, async (_, i) =>
      api.upload(`${base}/${i % 2 ? 'settings/design' : 'customization'}/logo`, await pngImage(8, 8, `#0000${10 + i}`)),
    ),
  );
  for (const res of results) assertOk(res);
  const files = readdirSync(join(app.config.dataDir, 'uploads'));
  assert.equal(files.length, 1);
  assert.equal((await designOf(api, base)).logoUrl, `/uploads/${files[0]}`);
});

test('the routes are documented under Storefront design', async (t) => {
  const { app } = await setup(t);
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
  const routes = [
    ['get', 'customization'],
    ...[
      'settings/design',
      'customization/design',
      'customization/widgets',
      'settings/design/storefront',
      'customization/storefront',
      'customization/seo',
      'settings/design/links',
      'customization/links',
    ].map((p) => ['put', p]),
    ...[
      'customization/logo',
      'settings/design/logo',
      'customization/storefront/background',
      'settings/design/storefront/logo',
      'customization/seo/image',
      'customization/seo/favicon',
    ].map((p) => ['post', p]),
  ];
  for (const [method, path] of routes) {
    const op = doc.paths[`/self/{shopId}/${path}`]?.[method!];
    assert.ok(op, `${method} ${path} is documented`);
    assert.deepEqual(op.tags, ['Storefront design']);
    assert.ok(op.summary && op.description, `${method} ${path} has a summary and a description`);
  }
  assert.match(doc.paths['/self/{shopId}/customization/seo/favicon'].post.description, /ICO/);
  assert.doesNotMatch(doc.paths['/self/{shopId}/customization/logo'].post.description, /ICO/);
});
