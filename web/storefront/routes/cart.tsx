import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ForbiddenError, NotFoundError } from '../../../src/http/errors.js';
import { cartPage } from '../../../src/modules/storefront/index.js';
import {
  addToCart,
  type Cart,
  type CartLine,
  crossSitePost,
  MAX_CART_QUANTITY,
  readCart,
  typedQuantity,
  writeCart,
} from '../cart.js';
import { type FormInput, formToken, idOf, sentence, textOf } from '../form.js';
import { type CartNotice, CartPage, type CartPageLine, cartQuantityName } from '../pages/cart.js';
import { sendPage } from '../render.js';
import { href } from '../site.js';

/**
 * The cart (cart.ts keeps it in a cookie): `POST /cart/add` from a product page, the cart page
 * `GET /cart` where quantities change and lines go (`POST /cart`), and from there the checkout
 * of every line in one order (`/cart/checkout`, routes/orders.tsx). Not on embed pages: another
 * website's buy button sells one product.
 */
export const cartRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db.kysely;
  const hide = { hide: true };
  const secure = app.config.publicUrl.startsWith('https:');

  /** The cart's lines with their products read again; lines whose product or option is gone are left out (`dropped`). */
  async function linesOf(request: FastifyRequest, cart: Cart) {
    const data = await cartPage(
      db,
      request.site!.shop,
      cart.lines.map((l) => l.productId),
    );
    const lines: (CartPageLine & { line: CartLine })[] = [];
    for (const line of cart.lines) {
      const product = data.products.get(line.productId);
      const variant = product?.variants.find((v) => v.id === line.variantId);
      if (product && variant) lines.push({ product, variant, quantity: String(line.quantity), line });
    }
    return { lines, details: data.mainDetails, dropped: lines.length < cart.lines.length };
  }

  /** A quantity outside what the option allows, in the buyer's words; undefined when it is fine. */
  function rangeError(request: FastifyRequest, line: CartPageLine): string | undefined {
    const { t } = request.lang!;
    const quantity = Number(line.quantity);
    if (quantity < line.variant.minAmount) return sentence(t('form.atLeast', { limit: line.variant.minAmount }));
    if (line.variant.maxAmount !== null && quantity > line.variant.maxAmount)
      return sentence(t('form.atMost', { limit: line.variant.maxAmount }));
    return undefined;
  }

  function showCart(
    reply: FastifyReply,
    details: Awaited<ReturnType<typeof linesOf>>['details'],
    lines: CartPageLine[],
    notice: CartNotice | null,
    status = 200,
  ) {
    const request = reply.request;
    return sendPage(
      reply,
      <CartPage
        site={request.site!}
        details={details}
        lines={lines.map((l) => ({ ...l, error: l.error ?? rangeError(request, l) }))}
        notice={notice}
        csrf={formToken(reply)}
      />,
      { status, private: true },
    );
  }

  app.get<{ Querystring: { added?: string; updated?: string; full?: string } }>(
    '/cart',
    { schema: hide },
    async (request, reply) => {
      const site = request.site!;
      const cart = readCart(request);
      const { lines, details, dropped } = await linesOf(request, cart);
      // Lines gone from the catalogue leave the cart for good.
      if (dropped) writeCart(reply, site, { ...cart, lines: lines.map((l) => l.line) }, secure);
      const added = idOf(request.query as FormInput, 'added');
      const addedLine = lines.find((l) => l.product.id === added);
      const notice: CartNotice | null = dropped
        ? { kind: 'gone' }
        : request.query.full !== undefined
          ? { kind: 'full' }
          : addedLine
            ? { kind: 'added', product: addedLine.product.title }
            : request.query.updated !== undefined && lines.length > 0
              ? { kind: 'updated' }
              : null;
      return showCart(reply, details, lines, notice);
    },
  );

  // From a product page, which the page cache serves alike to everyone and so carries no CSRF
  // token: the browser's own word that the post is the shop's is asked instead (crossSitePost).
  app.post('/cart/add', { schema: hide, config: { storefrontReadOnly: true } }, async (request, reply) => {
    const site = request.site!;
    // The scope's error page: 403 in the shop's design, saying to go back and try again.
    if (crossSitePost(request)) throw new ForbiddenError(request.lang!.t('error.expiredForm'));
    const input = request.body as FormInput;
    const productId = idOf(input, 'product');
    const variantId = idOf(input, 'variant');
    if (productId === undefined) throw new NotFoundError('Product');
    const data = await cartPage(db, site.shop, [productId]);
    const product = data.products.get(productId);
    if (!product) throw new NotFoundError('Product');
    const variant =
      variantId === undefined && product.variants.length === 1
        ? product.variants[0]
        : product.variants.find((v) => v.id === variantId);
    if (!variant) throw new NotFoundError('Variant');
    const typed = typedQuantity(textOf(input, 'quantity'));
    const quantity = typed !== undefined && typed >= 1 ? typed : variant.minAmount;
    const ref = textOf(input, 'ref').trim() || null;
    const { cart, full } = addToCart(
      readCart(request),
      { productId, variantId: variant.id, quantity: Math.min(quantity, MAX_CART_QUANTITY) },
      ref,
    );
    if (!full) writeCart(reply, site, cart, secure);
    return reply.redirect(href(site, full ? '/cart?full=1' : `/cart?added=${productId}`), 303);
  });

  app.post('/cart', { schema: hide }, async (request, reply) => {
    const site = request.site!;
    const input = request.body as FormInput;
    const cart = readCart(request);
    const remove = idOf(input, 'remove');
    if (remove !== undefined) {
      writeCart(reply, site, { ...cart, lines: cart.lines.filter((l) => l.variantId !== remove) }, secure);
      return reply.redirect(href(site, '/cart?updated=1'), 303);
    }
    const { lines, details } = await linesOf(request, cart);
    const { t } = request.lang!;
    // Each quantity as typed: a whole number up to the cart's cap (0 removes the line), or the form
    // comes back saying which and nothing is kept.
    let refused = false;
    const typed = lines.map((l) => {
      const text = textOf(input, cartQuantityName(l.variant.id)).trim();
      const value = text === '' ? String(l.line.quantity) : text;
      const quantity = typedQuantity(value);
      const error =
        quantity === undefined
          ? sentence(t('form.wholeNumber'))
          : quantity > MAX_CART_QUANTITY
            ? sentence(t('form.atMost', { limit: MAX_CART_QUANTITY }))
            : undefined;
      if (error) refused = true;
      return { ...l, quantity: value, error };
    });
    if (refused) return showCart(reply, details, typed, { kind: 'invalid' }, 400);
    const kept = typed.filter((l) => Number(l.quantity) > 0);
    writeCart(reply, site, { ...cart, lines: kept.map((l) => ({ ...l.line, quantity: Number(l.quantity) })) }, secure);
    if (textOf(input, 'intent') !== 'checkout' || kept.length === 0)
      return reply.redirect(href(site, '/cart?updated=1'), 303);
    // To the checkout only with quantities every option allows; else the cart again, saying which.
    if (kept.some((l) => rangeError(request, l) !== undefined))
      return showCart(reply, details, kept, { kind: 'invalid' }, 400);
    return reply.redirect(href(site, '/cart/checkout'), 303);
  });
};
