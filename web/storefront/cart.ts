import type { FastifyReply, FastifyRequest } from 'fastify';
import { MAX_ORDER_PARTS } from '../../src/schemas/rules.js';
import type { Site } from './site.js';

/**
 * The buyer's cart: the products they mean to order together, kept in their browser (a cookie of
 * the shop's pages, `shopd_cart`) rather than on the server, so a cart costs the shop nothing until
 * an order is placed and holds no stock (the checkout reserves it, as for one product). It holds
 * only what the buyer chose: product, option and quantity per line, and the referral code they
 * came with; never custom-field answers (the checkout page asks those, and they stay out of
 * cookies). Nothing in it is trusted: every line is read again against the shop's catalogue when
 * shown, and the checkout service prices and checks the order as it would any API client's. The
 * cookie is readable by the page's script (storefront.js shows the number of lines in the header;
 * pages stay cacheable), and holds nothing secret.
 */
export const CART_COOKIE = 'shopd_cart';

/** How long a cart is kept without a visit to it: thirty days, as hosted shops keep theirs. */
const CART_DAYS = 30;

export interface CartLine {
  productId: number;
  variantId: number;
  quantity: number;
}

export interface Cart {
  lines: CartLine[];
  /** The referral code the buyer arrived with (`?ref=` on a product page), kept for the checkout. */
  ref: string | null;
}

/** A quantity a cart keeps: what the checkout's schema takes at most (the variant's own limits are checked when shown). */
export const MAX_CART_QUANTITY = 1_000_000;
const MAX_REF_LENGTH = 64;

/**
 * A quantity as a buyer typed it in a form (adding to the cart, the cart's lines, the one-product
 * checkout): a whole number of at most seven digits, else undefined. Each form decides what 0 and
 * numbers above {@link MAX_CART_QUANTITY} mean.
 */
export function typedQuantity(text: string): number | undefined {
  const trimmed = text.trim();
  return /^[0-9]{1,7}$/.test(trimmed) ? Number(trimmed) : undefined;
}

const isId = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) > 0;

/** The cart in the request's cookie; anything malformed in it is dropped rather than refused (it is the buyer's own). */
export function readCart(request: FastifyRequest): Cart {
  const raw = request.cookies[CART_COOKIE];
  if (!raw) return { lines: [], ref: null };
  let stored: unknown;
  try {
    stored = JSON.parse(raw);
  } catch {
    return { lines: [], ref: null };
  }
  const { l, r } = (stored ?? {}) as { l?: unknown; r?: unknown };
  const lines: CartLine[] = [];
  for (const entry of Array.isArray(l) ? l.slice(0, MAX_ORDER_PARTS) : []) {
    if (!Array.isArray(entry)) continue;
    const [productId, variantId, quantity] = entry as unknown[];
    if (!isId(productId) || !isId(variantId) || !isId(quantity) || quantity > MAX_CART_QUANTITY) continue;
    if (lines.some((line) => line.variantId === variantId)) continue;
    lines.push({ productId, variantId, quantity });
  }
  const ref = typeof r === 'string' && r.length > 0 && r.length <= MAX_REF_LENGTH ? r : null;
  return { lines, ref };
}

/** Keeps the cart for the shop's pages (its path on this address); an empty cart removes the cookie. */
export function writeCart(reply: FastifyReply, site: Site, cart: Cart, secure: boolean): void {
  const options = { path: site.base || '/', sameSite: 'lax' as const, httpOnly: false, secure };
  if (cart.lines.length === 0) {
    void reply.clearCookie(CART_COOKIE, options);
    return;
  }
  const stored = {
    l: cart.lines.map((l) => [l.productId, l.variantId, l.quantity]),
    ...(cart.ref ? { r: cart.ref } : {}),
  };
  void reply.setCookie(CART_COOKIE, JSON.stringify(stored), { ...options, maxAge: CART_DAYS * 24 * 3600 });
}

/**
 * The cart with a product added: a variant already in it gets the quantity added to its line (as
 * hosted shops do); a new one a line at the end, unless the cart holds as many lines as one order
 * may (then `full`, and the cart is unchanged).
 */
export function addToCart(cart: Cart, line: CartLine, ref: string | null): { cart: Cart; full: boolean } {
  const keptRef = ref && ref.length <= MAX_REF_LENGTH ? ref : cart.ref;
  const existing = cart.lines.find((l) => l.variantId === line.variantId);
  if (existing) {
    const quantity = Math.min(existing.quantity + line.quantity, MAX_CART_QUANTITY);
    return {
      cart: { lines: cart.lines.map((l) => (l === existing ? { ...l, quantity } : l)), ref: keptRef },
      full: false,
    };
  }
  if (cart.lines.length >= MAX_ORDER_PARTS) return { cart, full: true };
  return { cart: { lines: [...cart.lines, line], ref: keptRef }, full: false };
}

/**
 * Whether a form post came from another website, by what the browser says of it: `Sec-Fetch-Site`
 * when sent (every current browser), else `Origin`. Adding to the cart is posted from a product
 * page, which the page cache serves to everyone alike and so cannot carry a CSRF token; this is
 * the check in its place (OWASP's "verifying origin with standard headers"). A client that sends
 * neither header is no browser another site could drive.
 */
export function crossSitePost(request: FastifyRequest): boolean {
  const fetchSite = request.headers['sec-fetch-site'];
  if (typeof fetchSite === 'string') return fetchSite !== 'same-origin' && fetchSite !== 'none';
  const origin = request.headers.origin;
  if (typeof origin !== 'string') return false;
  return origin !== `${request.protocol}://${request.host}`;
}
