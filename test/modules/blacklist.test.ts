import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countryCodes } from '../../src/modules/blacklist/countries.js';
import { build, owner } from '../helpers/build.js';
import { assertError, assertOk, createShop } from '../helpers/factories.js';

async function setup(t: Parameters<typeof build>[0]) {
  const app = await build(t);
  const api = await owner(app);
  const shop = await createShop(api);
  return { app, api, shopId: shop.id as number, url: `/self/${shop.id}/blacklist` };
}

test('blacklist: create, read, list, replace and delete', async (t) => {
  const { api, url } = await setup(t);
  const email = assertOk(
    await api.post(url, { type: 'email', data: '  Bad.Guy+Tag@Example.COM ', note: 'chargeback' }),
  );
  assert.deepEqual(
    { ...email, createdAt: undefined, updatedAt: undefined },
    {
      id: email.id,
      type: 'email',
      data: 'bad.guy+tag@example.com',
      note: 'chargeback',
      createdAt: undefined,
      updatedAt: undefined,
    },
  );
  assert.match(email.createdAt, /^\d{4}-\d\d-\d\dT.*Z$/);
  assert.deepEqual(assertOk(await api.get(`${url}/${email.id}`)), email);
  const range = assertOk(await api.post(url, { type: 'ip', data: '10.0.0.0/8', note: 'Office VPN exit' }));
  const v6 = assertOk(await api.post(url, { type: 'ip', data: '2001:DB8::/32' }));
  const country = assertOk(await api.post(url, { type: 'country', data: 'de' }));
  assert.deepEqual([range.data, v6.data, v6.note, country.data], ['10.0.0.0/8', '2001:db8::/32', null, 'DE']);

  const ids = (body: any) => body.items.map((i: { id: number }) => i.id);
  const list = assertOk(await api.get(url));
  assert.deepEqual(ids(list), [country.id, v6.id, range.id, email.id], 'newest first');
  assert.deepEqual(list.items[3], email);
  assert.deepEqual(ids(assertOk(await api.get(`${url}?type=ip`))), [v6.id, range.id]);
  assert.deepEqual(ids(assertOk(await api.get(`${url}?searchString=EXAMPLE.com`))), [email.id], 'search matches data');
  assert.deepEqual(ids(assertOk(await api.get(`${url}?searchString=vpn`))), [range.id], 'search matches the note');
  assert.deepEqual(ids(assertOk(await api.get(`${url}?searchString=0&type=country`))), []);
  assert.deepEqual(ids(assertOk(await api.get(`${url}?searchString=db8&type=ip`))), [v6.id]);
  const paged = assertOk(await api.get(`${url}?pageSize=3&pageNumber=2`));
  assert.deepEqual([ids(paged), paged.totalCount, paged.totalPages], [[email.id], 4, 2]);
  const typed = assertOk(await api.get(`${url}?type=ip&pageSize=1`));
  assert.deepEqual([typed.totalCount, typed.totalPages], [2, 2]);
  assertError(await api.get(`${url}?type=phone`), 400, 'validation_error');

  // Full update: type and data replaced, an omitted note cleared.
  const replaced = assertOk(await api.put(`${url}/${range.id}`, { type: 'country', data: ' fr ' }));
  assert.deepEqual(
    { ...replaced, updatedAt: undefined },
    { id: range.id, type: 'country', data: 'FR', note: null, createdAt: range.createdAt, updatedAt: undefined },
  );
  // Saving an item with its own data is not a duplicate.
  assert.equal(
    assertOk(await api.put(`${url}/${email.id}`, { type: 'email', data: 'BAD.GUY+TAG@example.com', note: 'x' })).note,
    'x',
  );

  assert.deepEqual(assertOk(await api.delete(`${url}/${email.id}`)), { id: email.id, deleted: true });
  assertError(await api.get(`${url}/${email.id}`), 404, 'not_found');
  assertError(await api.delete(`${url}/${email.id}`), 404, 'not_found');
  assert.equal(assertOk(await api.get(url)).totalCount, 3);
});

test('ip data is stored canonical', async (t) => {
  const { api, url } = await setup(t);
  const cases: [string, string][] = [
    ['203.0.113.7', '203.0.113.7'],
    [' 203.0.113.8 ', '203.0.113.8'],
    ['10.0.0.0/8', '10.0.0.0/8'],
    ['192.168.4.0/22', '192.168.4.0/22'],
    ['198.51.100.9/32', '198.51.100.9'],
    ['0.0.0.0/0', '0.0.0.0/0'],
    ['2001:0DB8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    ['2001:db8:0:0:1::/80', '2001:db8:0:0:1::/80'],
    ['2001:db8:ab::/48', '2001:db8:ab::/48'],
    ['2001:db8::2/128', '2001:db8::2'],
    ['::ffff:192.0.2.1', '192.0.2.1'],
    ['::ffff:c000:202', '192.0.2.2'],
    ['::ffff:172.16.0.0/108', '172.16.0.0/12'],
    ['::1', '::1'],
  ];
  for (const [data, stored] of cases) {
    assert.equal(assertOk(await api.post(url, { type: 'ip', data })).data, stored, data);
  }
});

test('bad data is a 400 naming data and changes nothing', async (t) => {
  const { app, api, url } = await setup(t);
  const kept = assertOk(await api.post(url, { type: 'email', data: 'kept@example.com', note: 'keep' }));
  const cases: [unknown, string][] = [
    [{}, 'type: is required'],
    [{ data: 'x@example.com' }, 'type: is required'],
    [{ type: 'phone', data: '123' }, 'type: must be one of: email, ip, country'],
    [{ type: 'email' }, 'data: is required'],
    [{ type: 'email', data: '' }, 'data: '],
    [{ type: 'email', data: 5 }, 'data: must be string'],
    [{ type: 'email', data: 'x'.repeat(255) }, 'data: '],
    [{ type: 'email', data: 'x@example.com', note: 'n'.repeat(501) }, 'note: '],
    [{ type: 'email', data: 'not-an-email' }, 'data: must be an e-mail address'],
    [{ type: 'email', data: 'a@b' }, 'data: must be an e-mail address'],
    [{ type: 'email', data: 'a b@example.com' }, 'data: must be an e-mail address'],
    [{ type: 'email', data: '   ' }, 'data: must be an e-mail address'],
    [{ type: 'email', data: '10.0.0.1' }, 'data: must be an e-mail address'],
    [{ type: 'ip', data: 'bad.guy@example.com' }, 'data: must be an IPv4 or IPv6 address or CIDR range'],
    [{ type: 'ip', data: '300.1.1.1' }, 'data: must be an IPv4 or IPv6 address or CIDR range'],
    [{ type: 'ip', data: '10.1' }, 'data: must be an IPv4 or IPv6 address or CIDR range'],
    [{ type: 'ip', data: '0x0a.0.0.1' }, 'data: must be an IPv4 or IPv6 address or CIDR range'],
    [{ type: 'ip', data: '010.0.0.1' }, 'data: must be an IPv4 or IPv6 address or CIDR range'],
    [{ type: 'ip', data: '1.2.3.4/33' }, 'data: must be an IPv4 or IPv6 address or CIDR range'],
    [{ type: 'ip', data: '1.2.3.4/' }, 'data: must be an IPv4 or IPv6 address or CIDR range'],
    [{ type: 'ip', data: '1.2.3.0/024' }, 'data: must be an IPv4 or IPv6 address or CIDR range'],
    [{ type: 'ip', data: '1.2.3.0/24/24' }, 'data: must be an IPv4 or IPv6 address or CIDR range'],
    [{ type: 'ip', data: '2001:db8::/129' }, 'data: must be an IPv4 or IPv6 address or CIDR range'],
    [{ type: 'ip', data: '2001:db8:::1' }, 'data: must be an IPv4 or IPv6 address or CIDR range'],
    [{ type: 'ip', data: 'fe80::1%eth0' }, 'data: must be an IPv4 or IPv6 address or CIDR range'],
    [{ type: 'ip', data: '10.0.0.1/8' }, 'data: has bits set past the /8 prefix; the range is 10.0.0.0/8'],
    [{ type: 'ip', data: '2001:db8::1/32' }, 'data: has bits set past the /32 prefix; the range is 2001:db8::/32'],
    [{ type: 'country', data: 'ZZ' }, 'data: must be an ISO 3166-1 alpha-2 country code'],
    [{ type: 'country', data: 'EU' }, 'data: must be an ISO 3166-1 alpha-2 country code'],
    [{ type: 'country', data: 'UK' }, 'data: must be an ISO 3166-1 alpha-2 country code'],
    [{ type: 'country', data: 'DEU' }, 'data: must be an ISO 3166-1 alpha-2 country code'],
    [{ type: 'country', data: 'D1' }, 'data: must be an ISO 3166-1 alpha-2 country code'],
    [{ type: 'country', data: 'Germany' }, 'data: must be an ISO 3166-1 alpha-2 country code'],
  ];
  for (const [body, error] of cases) {
    for (const res of [await api.post(url, body), await api.put(`${url}/${kept.id}`, body)]) {
      assertError(res, 400, 'validation_error');
      assert.ok(
        res.body.errors.some((e: string) => e.startsWith(error)),
        `${JSON.stringify(body).slice(0, 80)} → ${JSON.stringify(res.body.errors)}`,
      );
    }
  }
  const list = assertOk(await api.get(url));
  assert.equal(list.totalCount, 1, 'nothing was created');
  assert.deepEqual(list.items[0], kept, 'nothing was changed');
  assert.equal((await app.db.kysely.selectFrom('blacklist').select('id').execute()).length, 1);
});

test('the same type and normalised data twice in a shop is a 409', async (t) => {
  const { app, api, url } = await setup(t);
  const email = assertOk(await api.post(url, { type: 'email', data: 'dup@example.com' }));
  const ip = assertOk(await api.post(url, { type: 'ip', data: '198.51.100.7' }));
  const range = assertOk(await api.post(url, { type: 'ip', data: '2001:db8::/32' }));
  const country = assertOk(await api.post(url, { type: 'country', data: 'NL' }));
  const duplicates: [object, number][] = [
    [{ type: 'email', data: 'DUP@Example.com' }, email.id],
    [{ type: 'ip', data: '198.51.100.7/32' }, ip.id],
    [{ type: 'ip', data: '::ffff:198.51.100.7' }, ip.id],
    [{ type: 'ip', data: '2001:0db8:0000::/32' }, range.id],
    [{ type: 'country', data: 'nl' }, country.id],
  ];
  for (const [body, holder] of duplicates) {
    const res = await api.post(url, body);
    assertError(res, 409, 'conflict');
    assert.deepEqual(res.body.errors, [`data: is already blocked (blocked item ${holder})`]);
  }
  const moved = await api.put(`${url}/${email.id}`, { type: 'country', data: 'NL' });
  assertError(moved, 409, 'conflict');
  assert.equal(assertOk(await api.get(`${url}/${email.id}`)).data, 'dup@example.com');
  assert.equal(assertOk(await api.get(url)).totalCount, 4);
  // A narrower range inside a blocked one is another item, and another shop has its own list.
  assertOk(await api.post(url, { type: 'ip', data: '2001:db8:1::/48' }));
  const other = await owner(app);
  const otherShop = await createShop(other, 'Elsewhere');
  assertOk(await other.post(`/self/${otherShop.id}/blacklist`, { type: 'email', data: 'dup@example.com' }));
});

test('unknown blocked item ids are a 404, bad ones a 400', async (t) => {
  const { app, api, url } = await setup(t);
  const other = await owner(app);
  const otherShop = await createShop(other, 'Elsewhere');
  const foreign = assertOk(await other.post(`/self/${otherShop.id}/blacklist`, { type: 'country', data: 'US' }));
  for (const id of [999999, foreign.id]) {
    assertError(await api.get(`${url}/${id}`), 404, 'not_found');
    assertError(await api.put(`${url}/${id}`, { type: 'country', data: 'CA' }), 404, 'not_found');
    assertError(await api.delete(`${url}/${id}`), 404, 'not_found');
  }
  assert.equal(assertOk(await other.get(`/self/${otherShop.id}/blacklist/${foreign.id}`)).data, 'US');
  assert.equal(assertOk(await api.get(url)).totalCount, 0);
  for (const id of ['x', '0', '-3', '1.5']) {
    const res = await api.get(`${url}/${id}`);
    assertError(res, 400, 'validation_error');
    assert.match(res.body.errors[0], /^blockedItemId: /);
  }
});

test('the country list is ISO 3166-1 alpha-2 as assigned, plus XK', () => {
  const names = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'none' });
  assert.equal(countryCodes.size, 250);
  for (const code of countryCodes) assert.ok(names.of(code), `${code} is a region ICU knows`);
  for (const code of ['US', 'DE', 'GB', 'JP', 'SS', 'BQ', 'CW', 'SX', 'AX', 'XK', 'TW', 'PS', 'EH', 'AQ', 'UM'])
    assert.ok(countryCodes.has(code), code);
  for (const code of ['UK', 'EU', 'UN', 'AN', 'YU', 'CS', 'SU', 'ZZ', 'XX', 'T1', 'QO', 'AC', 'IC', 'FX'])
    assert.ok(!countryCodes.has(code), code);
});
