import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { build, owner } from '../helpers/build.js';
import { assertOk, sellingShop } from '../helpers/factories.js';
import { tagById, textById } from '../helpers/web-forms.js';

/**
 * The storefront's cart: products added from their pages, changed and removed on the cart page,
 * ordered together in one invoice, with the coupon's effect shown before "Place order" (on the
 * one-product checkout too). A buyer here is a small cookie jar over app.inject.
 */

interface Reply {
  statusCode: number;
  body: string;
  headers: Record<string, unknown>;
}

/** A browser for app.inject: keeps the cookies the storefront sets (CSRF secret, cart, language). */
class Buyer {
  readonly cookies = new Map<string, string>();
  constructor(private readonly app: FastifyInstance) {}

  private keep(res: { cookies: { name: string; value: string; maxAge?: number; expires?: Date }[] }) {
    for (const c of res.cookies) {
      const gone = c.value === '' || c.maxAge === 0 || (c.expires !== undefined && c.expires.getTime() < Date.now());
      if (gone) this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
  }

  private cookieHeader() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async get(url: string): Promise<Reply> {
    const res = await this.app.inject({ method: 'GET', url, headers: { cookie: this.cookieHeader() } });
    this.keep(res);
    return res as unknown as Reply;
  }

  async post(
    url: string,
    fields: Record<string, string | string[]>,
    headers: Record<string, string> = {},
  ): Promise<Reply> {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(fields)) for (const v of [value].flat()) params.append(name, v);
    const res = await this.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: this.cookieHeader(), ...headers },
      payload: params.toString(),
    });
    this.keep(res);
    return res as unknown as Reply;
  }

  /** Posts the form of the page at `page` (its CSRF token) with these fields. */
  async submit(page: Reply, url: string, fields: Record<string, string | string[]>): Promise<Reply> {
    const token = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1];
    assert.ok(token, 'the page has a form with a CSRF token');
    return this.post(url, { _csrf: token, ...fields });
  }

  /** The lines of the cart cookie, as `[product, variant, quantity]`. */
  cart(): number[][] {
    const raw = this.cookies.get('shopd_cart');
    return raw ? JSON.parse(decodeURIComponent(raw)).l : [];
  }
}

/** Adds a product to the cart as the product page's "Add to cart" does (same-origin, by the browser's word). */
function addToCart(buyer: Buyer, base: string, fields: Record<string, string>) {
  return buyer.post(`${base}/cart/add`, fields, { 'sec-fetch-site': 'same-origin' });
}

async function setup(t: TestContext) {
  const app = await build(t);
  const api = await owner(app);
  const shop = await sellingShop(api);
  const ebook = assertOk(
    await api.post(`/self/${shop.shopId}/v2/products`, {
      title: 'Field Guide',
      description: 'An e-book',
      variants: [
        {
          title: 'PDF',
          priceDetails: { amount: 12.5 },
          productType: 'service',
          asService: { text: 'https://example.test/guide.pdf', stock: 5, maxAmount: 3 },
        },
      ],
    }),
  );
  const { subdomain } = assertOk(await api.get(`/self/${shop.shopId}/settings`));
  return {
    app,
    api,
    ...shop,
    ebookId: ebook.id as number,
    ebookVariant: ebook.variants[0].id as number,
    base: `/s/${subdomain}`,
  };
}

test('a cart: two products added, one changed, ordered together in one invoice with the coupon shown first', async (t) => {
  const { app, api, shopId, productId, keysVariant, ebookId, ebookVariant, base } = await setup(t);
  assertOk(await api.post(`/self/${shopId}/coupons`, { name: 'TENOFF', discount: 10, isFixed: false }));
  const buyer = new Buyer(app);

  // The product page offers both ways: buy this one now, or add it to the cart.
  const { path } = assertOk(await api.get(`/self/${shopId}/v2/products/${productId}`));
  const page = await buyer.get(`${base}/products/${path}`);
  assert.equal(page.statusCode, 200);
  assert.match(page.body, new RegExp(`formaction="${base}/cart/add"`), 'an "Add to cart" button');

  const added = await addToCart(buyer, base, {
    product: String(productId),
    variant: String(keysVariant),
    quantity: '1',
    ref: 'FRIEND',
  });
  assert.equal(added.statusCode, 303);
  assert.equal(added.headers.location, `${base}/cart?added=${productId}`);
  // The same option again adds to its line; another product is a second line.
  await addToCart(buyer, base, { product: String(productId), variant: String(keysVariant), quantity: '1' });
  await addToCart(buyer, base, { product: String(ebookId), quantity: '1' });
  assert.deepEqual(buyer.cart(), [
    [productId, keysVariant, 2],
    [ebookId, ebookVariant, 1],
  ]);

  const cart = await buyer.get(`${base}/cart?added=${ebookId}`);
  assert.equal(cart.statusCode, 200);
  assert.equal(cart.headers['cache-control'], 'private, no-store');
  assert.match(cart.body, /Field Guide is in your cart\./);
  assert.match(tagById(cart.body, `quantity.${keysVariant}`)!, /value="2"/);
  assert.match(cart.body, /\$19\.98/, 'a line shows its total');
  assert.match(cart.body, /\$32\.48/, 'the subtotal at listed prices');

  // A quantity changed, then checkout: the quantities are kept first.
  const toCheckout = await buyer.submit(cart, `${base}/cart`, {
    [`quantity.${keysVariant}`]: '1',
    [`quantity.${ebookVariant}`]: '2',
    intent: 'checkout',
  });
  assert.equal(toCheckout.statusCode, 303, toCheckout.body);
  assert.equal(toCheckout.headers.location, `${base}/cart/checkout`);
  assert.deepEqual(buyer.cart(), [
    [productId, keysVariant, 1],
    [ebookId, ebookVariant, 2],
  ]);

  const checkout = await buyer.get(`${base}/cart/checkout`);
  assert.equal(checkout.statusCode, 200, checkout.body);
  assert.match(checkout.body, /Game Key/);
  assert.match(checkout.body, /Field Guide/);
  assert.match(checkout.body, /\$34\.99/, 'the subtotal of both lines');
  assert.match(tagById(checkout.body, 'ref')!, /value="FRIEND"/, 'the referral code the buyer came with');
  assert.deepEqual(
    [...checkout.body.matchAll(/name="line" value="([^"]+)"/g)].map((m) => m[1]),
    [`${productId}.${keysVariant}.1`, `${ebookId}.${ebookVariant}.2`],
  );
  const lines = [`${productId}.${keysVariant}.1`, `${ebookId}.${ebookVariant}.2`];
  const answers = { line: lines, email: 'cart@example.com', gateway: 'tipjar', coupon: 'tenoff' };

  // "Apply": the page again with the discount and total; nothing is placed, no coupon use taken.
  const applied = await buyer.submit(checkout, `${base}/cart/checkout`, { ...answers, intent: 'apply' });
  assert.equal(applied.statusCode, 200, applied.body);
  assert.match(applied.body, /Coupon TENOFF applied: \$3\.49 off\./);
  assert.match(applied.body, /Discount \(TENOFF\)/);
  assert.match(applied.body, /\$31\.50/, 'the total after the discount');
  assert.match(tagById(applied.body, 'coupon')!, /value="tenoff"/, 'the form keeps what was typed');
  assert.equal(assertOk(await api.get(`/self/${shopId}/invoices`)).totalCount, 0, 'nothing placed');
  const [coupon] = assertOk(await api.get(`/self/${shopId}/coupons`)).items;
  assert.equal(coupon.uses, 0);

  // An unknown coupon is said next to its field (422) and the summary is without it.
  const wrong = await buyer.submit(checkout, `${base}/cart/checkout`, { ...answers, coupon: 'NOPE', intent: 'apply' });
  assert.equal(wrong.statusCode, 422);
  assert.equal(textById(wrong.body, 'coupon-error'), 'Is not valid.');
  assert.ok(!wrong.body.includes('Discount ('));

  const placed = await buyer.submit(applied, `${base}/cart/checkout`, { ...answers, intent: 'place' });
  assert.equal(placed.statusCode, 303, placed.body);
  const invoiceId = /\/invoices\/([A-Za-z0-9_-]+)$/.exec(String(placed.headers.location))?.[1];
  assert.ok(invoiceId);
  assert.deepEqual(buyer.cart(), [], 'the cart is emptied by the order');
  const invoice = assertOk(await api.get(`/self/${shopId}/invoices/${invoiceId}`));
  assert.deepEqual(
    invoice.parts.map((p: { productId: number; quantity: number }) => [p.productId, p.quantity]),
    [
      [productId, 1],
      [ebookId, 2],
    ],
  );
  assert.equal(invoice.subtotal, 34.99);
  assert.equal(invoice.discount, 3.49, 'the discount the page showed');
  assert.equal(invoice.total, 31.5, 'the total the page showed');
  assert.equal(invoice.coupon, 'TENOFF');
  const ebook = assertOk(await api.get(`/self/${shopId}/v2/products/${ebookId}`));
  assert.equal(ebook.variants[0].stock, 3, 'the order holds its stock');

  const header = await buyer.get(`${base}/`);
  assert.match(header.body, new RegExp(`<a href="${base}/cart">Cart<span data-cart-count="true" hidden></span></a>`));
});

test('the cart page: remove, 0 removes, a quantity that is no number is refused and nothing kept; limits stop the checkout', async (t) => {
  const { app, productId, keysVariant, ebookId, ebookVariant, base } = await setup(t);
  const buyer = new Buyer(app);
  await addToCart(buyer, base, { product: String(productId), variant: String(keysVariant), quantity: '1' });
  await addToCart(buyer, base, { product: String(ebookId), variant: String(ebookVariant), quantity: '1' });
  const page = await buyer.get(`${base}/cart`);

  const bad = await buyer.submit(page, `${base}/cart`, {
    [`quantity.${keysVariant}`]: 'two',
    [`quantity.${ebookVariant}`]: '2',
    intent: 'update',
  });
  assert.equal(bad.statusCode, 400);
  assert.equal(textById(bad.body, `quantity.${keysVariant}-error`), 'Must be a whole number.');
  assert.match(tagById(bad.body, `quantity.${keysVariant}`)!, /aria-invalid="true"/);
  assert.deepEqual(buyer.cart(), [
    [productId, keysVariant, 1],
    [ebookId, ebookVariant, 1],
  ]);

  // The e-book allows 3 at most: kept in the cart as typed, but not taken to the checkout.
  const over = await buyer.submit(page, `${base}/cart`, {
    [`quantity.${keysVariant}`]: '1',
    [`quantity.${ebookVariant}`]: '4',
    intent: 'checkout',
  });
  assert.equal(over.statusCode, 400);
  assert.equal(textById(over.body, `quantity.${ebookVariant}-error`), 'Must be at most 3.');

  const removed = await buyer.submit(page, `${base}/cart`, { remove: String(keysVariant) });
  assert.equal(removed.statusCode, 303);
  assert.deepEqual(buyer.cart(), [[ebookId, ebookVariant, 4]]);

  const zero = await buyer.submit(page, `${base}/cart`, { [`quantity.${ebookVariant}`]: '0', intent: 'update' });
  assert.equal(zero.statusCode, 303);
  assert.deepEqual(buyer.cart(), [], 'the last line gone, the cookie is removed');
  const empty = await buyer.get(`${base}/cart`);
  assert.match(empty.body, /Your cart is empty\./);
  const noCheckout = await buyer.get(`${base}/cart/checkout`);
  assert.equal(noCheckout.statusCode, 303, 'an empty cart has no checkout');

  // Without the page's token the cart changes nothing.
  await addToCart(buyer, base, { product: String(ebookId), quantity: '1' });
  const forged = await buyer.post(`${base}/cart`, { remove: String(ebookVariant) });
  assert.equal(forged.statusCode, 403);
  assert.deepEqual(buyer.cart(), [[ebookId, ebookVariant, 1]]);
});

test("a quantity as typed: 'Add to cart' takes the option's least for no number or 0 and caps a huge one; the cart refuses above the cap", async (t) => {
  const { app, productId, keysVariant, base } = await setup(t);
  const buyer = new Buyer(app);
  const add = (quantity: string) =>
    addToCart(buyer, base, { product: String(productId), variant: String(keysVariant), quantity });
  const inCart = () => buyer.cart()[0]?.[2];

  // The keys option's least is 1: text that is no whole number, or 0, adds that.
  for (const typed of ['two', '0', '-3', '1.5', '']) {
    assert.equal((await add(typed)).statusCode, 303, typed);
    assert.equal(inCart(), 1, `"${typed}" adds the least`);
    buyer.cookies.delete('shopd_cart');
  }
  assert.equal((await add(' 4 ')).statusCode, 303);
  assert.equal(inCart(), 4, "spaces around a number are the browser's, not the buyer's");
  buyer.cookies.delete('shopd_cart');
  // Seven digits above the cart's cap are capped (the option's own maximum is said on the cart page).
  await add('9999999');
  assert.equal(inCart(), 1_000_000);

  // On the cart page a number above the cap is refused, saying the cap, and nothing changes; the
  // refused line counts for no total (not 1,000,001 × $9.99).
  const page = await buyer.get(`${base}/cart`);
  const over = await buyer.submit(page, `${base}/cart`, { [`quantity.${keysVariant}`]: '1000001', intent: 'update' });
  assert.equal(over.statusCode, 400);
  assert.equal(textById(over.body, `quantity.${keysVariant}-error`), 'Must be at most 1,000,000.');
  assert.match(tagById(over.body, `quantity.${keysVariant}`)!, /value="1000001"/, 'the form keeps what was typed');
  assert.doesNotMatch(over.body, /\$9,990,009\.99/);
  assert.equal(inCart(), 1_000_000);
  const ok = await buyer.submit(page, `${base}/cart`, { [`quantity.${keysVariant}`]: '1000000', intent: 'update' });
  assert.equal(ok.statusCode, 303);
});

test('adding to the cart: another site cannot; a client that names no origin can; unknown products are 404s', async (t) => {
  const { app, productId, keysVariant, base } = await setup(t);
  const buyer = new Buyer(app);
  const fields = { product: String(productId), variant: String(keysVariant), quantity: '1' };
  const crossSite: Record<string, string>[] = [
    { 'sec-fetch-site': 'cross-site' },
    { 'sec-fetch-site': 'same-site' },
    { origin: 'http://127.0.0.1:9' },
    { origin: 'null' },
  ];
  for (const headers of crossSite) {
    const res = await buyer.post(`${base}/cart/add`, fields, headers);
    assert.equal(res.statusCode, 403, JSON.stringify(headers));
    assert.deepEqual(buyer.cart(), []);
  }
  const own = await buyer.post(`${base}/cart/add`, fields, { origin: 'http://localhost:80' });
  assert.equal(own.statusCode, 303, 'the shop’s own origin');
  const bare = await buyer.post(`${base}/cart/add`, fields);
  assert.equal(bare.statusCode, 303);
  assert.deepEqual(buyer.cart(), [[productId, keysVariant, 2]]);

  const unknown: Record<string, string>[] = [
    { product: '999999' },
    { product: String(productId), variant: '999999' },
    { product: 'x' },
  ];
  for (const wrong of unknown) {
    const res = await addToCart(buyer, base, { quantity: '1', ...wrong });
    assert.equal(res.statusCode, 404, JSON.stringify(wrong));
  }
  assert.deepEqual(buyer.cart(), [[productId, keysVariant, 2]]);
});

test("a cart holds only this shop's products: another shop's and damaged lines are dropped, never shown or ordered", async (t) => {
  const { app, api, productId, keysVariant, base } = await setup(t);
  const other = await sellingShop(api);
  const buyer = new Buyer(app);
  buyer.cookies.set(
    'shopd_cart',
    encodeURIComponent(
      JSON.stringify({
        l: [
          [other.productId, other.keysVariant, 1],
          [productId, keysVariant, 1],
          ['x', 1, 1],
          [productId, 1, -2],
        ],
      }),
    ),
  );
  const page = await buyer.get(`${base}/cart`);
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /Some products in your cart are no longer sold here/);
  assert.deepEqual(buyer.cart(), [[productId, keysVariant, 1]], 'the cookie keeps only what is shown');

  // The checkout form's lines are checked the same way: another shop's product is never ordered.
  const checkout = await buyer.get(`${base}/cart/checkout`);
  const res = await buyer.submit(checkout, `${base}/cart/checkout`, {
    line: [`${other.productId}.${other.keysVariant}.1`, `${productId}.${keysVariant}.1`],
    email: 'x@example.com',
    gateway: 'tipjar',
    intent: 'place',
  });
  assert.equal(res.statusCode, 200, 'the page again, without the line that is not this shop’s');
  assert.match(res.body, /no longer sold here/);
  assert.equal(assertOk(await api.get(`/self/${other.shopId}/invoices`)).totalCount, 0);

  buyer.cookies.set('shopd_cart', 'not%20json');
  const damaged = await buyer.get(`${base}/cart`);
  assert.equal(damaged.statusCode, 200);
  assert.match(damaged.body, /Your cart is empty\./);
});

test('products no gateway takes together cannot be ordered in one cart, and the page says why', async (t) => {
  const { app, api, shopId, productId, keysVariant, base } = await setup(t);
  const balanceOnly = assertOk(
    await api.post(`/self/${shopId}/v2/products`, {
      title: 'Credits',
      description: 'Store credits',
      variants: [
        {
          title: 'Pack',
          priceDetails: { amount: 1 },
          productType: 'service',
          asService: { text: 'credits' },
          gateways: [{ gateway: 'balance' }],
        },
      ],
    }),
  );
  const buyer = new Buyer(app);
  await addToCart(buyer, base, { product: String(productId), variant: String(keysVariant), quantity: '1' });
  await addToCart(buyer, base, { product: String(balanceOnly.id), quantity: '1' });
  const checkout = await buyer.get(`${base}/cart/checkout`);
  assert.equal(checkout.statusCode, 200);
  assert.match(checkout.body, /No payment method accepts every product in your cart/);
  assert.ok(!checkout.body.includes('name="intent" value="place"'), 'no way to place it');
});

test('the one-product checkout shows the coupon applied before "Place order", and the invoice agrees', async (t) => {
  const { app, api, shopId, productId, keysVariant, base } = await setup(t);
  assertOk(await api.post(`/self/${shopId}/coupons`, { name: 'TWO', discount: 2, isFixed: true }));
  const buyer = new Buyer(app);
  // From the product page's form, with the coupon typed there: the checkout page shows it applied.
  const start = await buyer.post(`${base}/checkout/start`, {
    product: String(productId),
    variant: String(keysVariant),
    quantity: '2',
    coupon: 'TWO',
  });
  assert.equal(start.statusCode, 200);
  assert.match(start.body, /Discount \(TWO\)/);
  assert.match(start.body, /\$17\.98/, 'the total: 2 × $9.99 − $2');
  const fields = {
    product: String(productId),
    variant: String(keysVariant),
    quantity: '3',
    email: 'one@example.com',
    gateway: 'tipjar',
    coupon: 'TWO',
  };
  const applied = await buyer.submit(start, `${base}/checkout`, { ...fields, intent: 'apply' });
  assert.equal(applied.statusCode, 200);
  assert.match(applied.body, /\$27\.97/, 'the quantity changed with it: 3 × $9.99 − $2');
  assert.equal(assertOk(await api.get(`/self/${shopId}/invoices`)).totalCount, 0);
  // Enter in a field submits the form's first button: the hidden twin of "Place order", not "Apply".
  assert.match(applied.body, /<form[^>]*class="checkout"[^>]*><button type="submit" name="intent" value="place"/);
  const placed = await buyer.submit(applied, `${base}/checkout`, fields);
  assert.equal(placed.statusCode, 303, placed.body);
  const invoiceId = /\/invoices\/([A-Za-z0-9_-]+)$/.exec(String(placed.headers.location))?.[1];
  const invoice = assertOk(await api.get(`/self/${shopId}/invoices/${invoiceId}`));
  assert.equal(invoice.total, 27.97);
});

test('the cart in German', async (t) => {
  const { app, productId, keysVariant, base } = await setup(t);
  const buyer = new Buyer(app);
  buyer.cookies.set('shopd_lang', 'de');
  await addToCart(buyer, base, { product: String(productId), variant: String(keysVariant), quantity: '1' });
  const page = await buyer.get(`${base}/cart`);
  assert.match(page.body, /<h1>Ihr Warenkorb<\/h1>/);
  assert.match(page.body, /Zur Kasse/);
  const checkout = await buyer.get(`${base}/cart/checkout`);
  assert.match(checkout.body, /Einlösen/);
  const wrong = await buyer.submit(checkout, `${base}/cart/checkout`, {
    line: `${productId}.${keysVariant}.1`,
    email: 'x@example.com',
    gateway: 'tipjar',
    coupon: 'NOPE',
    intent: 'apply',
  });
  assert.equal(textById(wrong.body, 'coupon-error'), 'Ist nicht gültig.');
});
