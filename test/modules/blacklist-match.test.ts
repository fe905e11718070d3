import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { findBlock } from '../../src/modules/blacklist/service.js';
import { build, owner } from '../helpers/build.js';
import { assertOk, createShop } from '../helpers/factories.js';

/** A shop with these blocked items; `match(buyer)` answers the data of the item findBlock finds. */
async function shopBlocking(t: TestContext, items: [type: string, data: string][]) {
  const app = await build(t);
  const api = await owner(app);
  const shop = await createShop(api);
  const ids: Record<string, number> = {};
  for (const [type, data] of items)
    ids[data] = assertOk(await api.post(`/self/${shop.id}/blacklist`, { type, data })).id;
  const match = async (buyer: { email?: string; ip?: string | null; country?: string | null }) => {
    const found = await findBlock(app.db.kysely, shop.id, {
      email: 'buyer@example.com',
      ip: null,
      country: null,
      ...buyer,
    });
    return found?.data;
  };
  return { app, api, shopId: shop.id as number, ids, match };
}

test('email: equality without regard to case', async (t) => {
  const { ids, shopId, app, match } = await shopBlocking(t, [['email', 'Fraud@Example.com']]);
  for (const email of ['fraud@example.com', 'FRAUD@EXAMPLE.COM', 'Fraud@example.Com', ' fraud@example.com '])
    assert.equal(await match({ email }), 'fraud@example.com', email);
  for (const email of ['fraud@example.co', 'xfraud@example.com', 'fraud+1@example.com', 'fraud@sub.example.com'])
    assert.equal(await match({ email }), undefined, email);
  const row = await findBlock(app.db.kysely, shopId, { email: 'FRAUD@example.com', ip: null, country: null });
  assert.deepEqual([row?.id, row?.type, row?.shop_id], [ids['Fraud@Example.com'], 'email', shopId]);
});

test('ipv4: an equal address or one inside a range', async (t) => {
  const { match } = await shopBlocking(t, [
    ['ip', '203.0.113.7'],
    ['ip', '10.0.0.0/8'],
    ['ip', '192.168.4.0/22'],
  ]);
  assert.equal(await match({ ip: '203.0.113.7' }), '203.0.113.7');
  assert.equal(await match({ ip: '203.0.113.8' }), undefined);
  assert.equal(await match({ ip: '203.0.113.6' }), undefined);
  assert.equal(await match({ ip: '10.0.0.0' }), '10.0.0.0/8');
  assert.equal(await match({ ip: '10.1.2.3' }), '10.0.0.0/8');
  assert.equal(await match({ ip: '10.255.255.255' }), '10.0.0.0/8');
  assert.equal(await match({ ip: '11.0.0.0' }), undefined);
  assert.equal(await match({ ip: '9.255.255.255' }), undefined);
  assert.equal(await match({ ip: '192.168.4.0' }), '192.168.4.0/22');
  assert.equal(await match({ ip: '192.168.7.255' }), '192.168.4.0/22');
  assert.equal(await match({ ip: '192.168.8.0' }), undefined);
  assert.equal(await match({ ip: '192.168.3.255' }), undefined);
});

test('ipv6: any spelling of an equal address, or one inside a range', async (t) => {
  const { match } = await shopBlocking(t, [
    ['ip', '2001:db8::1'],
    ['ip', '2001:db8:aa::/48'],
    ['ip', 'fd00::/8'],
  ]);
  for (const ip of ['2001:db8::1', '2001:DB8::1', '2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8:0:0::1'])
    assert.equal(await match({ ip }), '2001:db8::1', ip);
  assert.equal(await match({ ip: '2001:db8::2' }), undefined);
  assert.equal(await match({ ip: '2001:db8:aa::' }), '2001:db8:aa::/48');
  assert.equal(await match({ ip: '2001:db8:aa:ffff:ffff:ffff:ffff:ffff' }), '2001:db8:aa::/48');
  assert.equal(await match({ ip: '2001:db8:ab::1' }), undefined);
  assert.equal(await match({ ip: 'fdff:1234::9' }), 'fd00::/8');
  assert.equal(await match({ ip: 'fe00::1' }), undefined);
});

test('IPv4-mapped IPv6 counts as its IPv4 address, and the families stay apart', async (t) => {
  const { match } = await shopBlocking(t, [
    ['ip', '198.51.100.7'],
    ['ip', '172.16.0.0/12'],
    ['ip', '::ffff:192.0.2.0/120'],
    ['ip', '2001:db8::/32'],
  ]);
  assert.equal(await match({ ip: '::ffff:198.51.100.7' }), '198.51.100.7');
  assert.equal(await match({ ip: '::FFFF:198.51.100.7' }), '198.51.100.7');
  assert.equal(await match({ ip: '::ffff:c633:6407' }), '198.51.100.7', 'hex spelling of the mapped address');
  assert.equal(await match({ ip: '::ffff:172.31.255.255' }), '172.16.0.0/12');
  assert.equal(await match({ ip: '::ffff:172.32.0.0' }), undefined);
  // A mapped range was stored as the IPv4 range it covers.
  assert.equal(await match({ ip: '192.0.2.200' }), '192.0.2.0/24');
  assert.equal(await match({ ip: '::ffff:192.0.2.1' }), '192.0.2.0/24');
  // An IPv4 range never covers a plain IPv6 address, nor an IPv6 range an IPv4 one.
  assert.equal(
    await match({ ip: '::198.51.100.7' }),
    '198.51.100.7',
    'the deprecated IPv4-compatible form is read as mapped',
  );
  assert.equal(await match({ ip: '64:ff9b::c633:6407' }), undefined, 'NAT64 is another address');
  assert.equal(await match({ ip: '32.1.13.184' }), undefined, 'the bytes of 2001:db8:: as IPv4');
});

test('ip: whole-family ranges and buyers without a usable address', async (t) => {
  const { match } = await shopBlocking(t, [['ip', '::/0']]);
  assert.equal(await match({ ip: '2a00:1450::1' }), '::/0');
  assert.equal(await match({ ip: '8.8.8.8' }), undefined, '::/0 is every IPv6 address, not every address');
  for (const ip of [null, '', 'unknown', '999.1.1.1', '1.2.3.4/8', '2001:db8::/32'])
    assert.equal(await match({ ip }), undefined, String(ip));
});

test('country: equality in upper case; unknown markers match nothing', async (t) => {
  const { match } = await shopBlocking(t, [
    ['country', 'ru'],
    ['country', 'XK'],
  ]);
  for (const country of ['RU', 'ru', 'Ru', ' ru ']) assert.equal(await match({ country }), 'RU', country);
  assert.equal(await match({ country: 'xk' }), 'XK');
  for (const country of [null, '', 'US', 'RUS', 'XX', 'T1'])
    assert.equal(await match({ country }), undefined, String(country));
});

test('the first match goes email, then IP, then country; oldest first within a type', async (t) => {
  const { ids, match, app, shopId } = await shopBlocking(t, [
    ['country', 'BR'],
    ['ip', '10.0.0.0/8'],
    ['ip', '10.1.0.0/16'],
    ['email', 'x@example.com'],
  ]);
  assert.equal(await match({ email: 'x@example.com', ip: '10.1.2.3', country: 'BR' }), 'x@example.com');
  assert.equal(await match({ email: 'y@example.com', ip: '10.1.2.3', country: 'BR' }), '10.0.0.0/8');
  assert.equal(await match({ email: 'y@example.com', ip: '11.1.2.3', country: 'BR' }), 'BR');
  assert.equal(await match({ email: 'y@example.com', ip: '11.1.2.3', country: 'AR' }), undefined);
  const row = await findBlock(app.db.kysely, shopId, { email: 'y@example.com', ip: '10.1.2.3', country: null });
  assert.equal(row?.id, ids['10.0.0.0/8']);
});

test("another shop's blacklist never matches", async (t) => {
  const { app, match } = await shopBlocking(t, []);
  const other = await owner(app);
  const otherShop = await createShop(other, 'Elsewhere');
  for (const [type, data] of [
    ['email', 'x@example.com'],
    ['ip', '0.0.0.0/0'],
    ['ip', '::/0'],
    ['country', 'US'],
  ]) {
    assertOk(await other.post(`/self/${otherShop.id}/blacklist`, { type, data }));
  }
  assert.equal(await match({ email: 'x@example.com', ip: '1.2.3.4', country: 'US' }), undefined);
  assert.equal(await match({ email: 'x@example.com', ip: '2001:db8::1', country: 'US' }), undefined);
  const theirs = await findBlock(app.db.kysely, otherShop.id, {
    email: 'nobody@example.com',
    ip: '1.2.3.4',
    country: null,
  });
  assert.equal(theirs?.data, '0.0.0.0/0');
});
