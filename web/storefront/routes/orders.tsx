import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Context } from '../../../src/domain/context.js';
import { ConflictError, NotFoundError } from '../../../src/http/errors.js';
import { storefrontPaths } from '../../../src/http/storefront-url.js';
import { recordInvoiceView } from '../../../src/modules/disputes/index.js';
import { feedbackOfInvoice, postFeedback } from '../../../src/modules/feedbacks/index.js';
import {
  buyerOf,
  cancelInvoice,
  checkout,
  getPublicInvoice,
  type OrderQuote,
  publicInvoiceStatus,
  quoteOrder,
} from '../../../src/modules/orders/index.js';
import { MAX_ANSWER_LENGTH } from '../../../src/modules/products/index.js';
import { cartPage, checkoutPage } from '../../../src/modules/storefront/index.js';
import { fromMinorUnits } from '../../../src/schemas/money.js';
import { MAX_ORDER_PARTS } from '../../../src/schemas/rules.js';
import type { SecretBox } from '../../../src/security/secret-box.js';
import { type CartLine, MAX_CART_QUANTITY, readCart, typedQuantity, writeCart } from '../cart.js';
import { currentCustomer, type SignedInCustomer } from '../customer.js';
import {
  type FormInput,
  formChallenge,
  formRefusal,
  formSolution,
  formToken,
  INVOICE_ID,
  idOf,
  noErrors,
  type PlacedErrors,
  placeErrors,
  refusalErrors,
  textOf,
} from '../form.js';
import { sumPrices } from '../format.js';
import {
  type CheckoutLine,
  CheckoutPage,
  type CheckoutPageProps,
  type CheckoutProduct,
  type CheckoutValues,
  type CheckoutVariant,
  type GatewayOption,
  type OfferedGateway,
} from '../pages/checkout.js';
import { type FeedbackValues, goodsText, InvoicePage, type PublicInvoiceView } from '../pages/invoice.js';
import { checkoutFieldName } from '../pages/product.js';
import { sendPage } from '../render.js';
import { detailsOf } from '../shop-scope.js';
import { FLOW_VARIANTS, flowHref, href, type Site } from '../site.js';
import { orderOf } from './checkout-body.js';

/**
 * The buyer's order flow: the checkout form, the invoice page (by its unguessable id) with its
 * status poll, cancel, goods download and review. The forms call the same services as the public
 * JSON API (checkout, cancel, feedback); a refusal comes back as the form with each of the
 * service's `errors` next to its field.
 */

/**
 * The gateways a buyer may pick for a variant: what it can be paid with now; the store balance
 * only for a buyer signed in to the customer area (customer.ts), who pays with their own (the
 * checkout service refuses the balance of any other address).
 */
export function buyerGateways(customer: SignedInCustomer | null, variant: CheckoutVariant): GatewayOption[] {
  return customer ? variant.gateways : variant.gateways.filter((g) => g.gateway !== 'balance');
}

/**
 * The ways to pay for every line of the order (those of the first line that every other line
 * takes too, in its order), each with the order's subtotal paid so.
 */
function offeredGateways(customer: SignedInCustomer | null, lines: CheckoutLine[], currency: string): OfferedGateway[] {
  const [first] = lines;
  if (!first) return [];
  return buyerGateways(customer, first.variant).flatMap((g) => {
    const terms = [];
    for (const line of lines) {
      const entry = line.variant.gateways.find((o) => o.gateway === g.gateway);
      if (!entry) return [];
      terms.push({ price: entry.price.amount, quantity: line.quantity });
    }
    return [{ gateway: g.gateway, subtotal: sumPrices(terms, currency) }];
  });
}

/** The order priced from the page's own data for a gateway, without a coupon (the summary when none is applied). */
function listedQuote(lines: CheckoutLine[], gateway: string | undefined, currency: string): OrderQuote {
  const parts = lines.map((line) => {
    const unitPrice =
      line.variant.gateways.find((g) => g.gateway === gateway)?.price.amount ?? line.variant.priceDetails.amount;
    return { unitPrice, total: sumPrices([{ price: unitPrice, quantity: line.quantity }], currency) };
  });
  const subtotal = sumPrices(
    lines.map((line, i) => ({ price: parts[i]!.unitPrice, quantity: line.quantity })),
    currency,
  );
  return { parts, subtotal, coupon: null, total: subtotal };
}

/** The checkout service's quote (integer minor units) in major units, as the page shows every amount. */
function inMajorUnits(quote: OrderQuote, currency: string): OrderQuote {
  const major = (minor: number) => fromMinorUnits(minor, currency);
  return {
    parts: quote.parts.map((p) => ({ unitPrice: major(p.unitPrice), total: major(p.total) })),
    subtotal: major(quote.subtotal),
    coupon: quote.coupon ? { code: quote.coupon.code, discount: major(quote.coupon.discount) } : null,
    total: major(quote.total),
  };
}

/** The variant asked for; without one, the product's only variant or its first that can be bought. */
function variantOf(product: CheckoutProduct, variantId: number | undefined): CheckoutVariant {
  const variant =
    variantId === undefined
      ? (product.variants.find((v) => v.inStock && v.gateways.length > 0) ?? product.variants[0])
      : product.variants.find((v) => v.id === variantId);
  if (!variant) throw new NotFoundError('Variant');
  return variant;
}

function checkoutValuesOf(input: FormInput, lines: CheckoutLine[], defaults: { ref?: string | null }): CheckoutValues {
  const fields: Record<string, string> = {};
  for (const line of lines)
    for (const f of line.variant.customFields) fields[f.id] = textOf(input, checkoutFieldName(f.id));
  return {
    quantity: textOf(input, 'quantity') || String(lines[0]?.variant.minAmount ?? 1),
    email: textOf(input, 'email'),
    gateway: textOf(input, 'gateway'),
    coupon: textOf(input, 'coupon'),
    ref: textOf(input, 'ref') || (defaults.ref ?? ''),
    chatUserId: textOf(input, 'chatUserId'),
    fields,
    terms: textOf(input, 'terms') !== '',
  };
}

/** A quantity as typed that the order could take (plain digits, within the schema's bounds); else undefined. */
function checkoutQuantity(text: string): number | undefined {
  const quantity = typedQuantity(text);
  return quantity !== undefined && quantity >= 1 && quantity <= MAX_CART_QUANTITY ? quantity : undefined;
}

/** The cart's lines as the checkout form carries them (`line` = `<product>.<variant>.<quantity>`); malformed ones are dropped. */
function formLines(input: FormInput): CartLine[] {
  const raw = input?.line;
  const texts = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).slice(0, MAX_ORDER_PARTS);
  const lines: CartLine[] = [];
  for (const text of texts) {
    const match = /^([1-9][0-9]{0,14})\.([1-9][0-9]{0,14})\.([1-9][0-9]{0,6})$/.exec(text);
    if (!match) continue;
    const [productId, variantId, quantity] = [Number(match[1]), Number(match[2]), Number(match[3])];
    if (quantity <= MAX_CART_QUANTITY && !lines.some((l) => l.variantId === variantId))
      lines.push({ productId, variantId, quantity });
  }
  return lines;
}

/** Where a service's error path belongs on the checkout form (`parts[…]` only on the one-product form, which has a quantity field). */
function checkoutFieldOf(mode: CheckoutMode) {
  return (path: string): string | undefined => {
    if (path === 'customerEmail') return 'email';
    if (mode === 'product' && /^parts\[\d+\]\.quantity$/.test(path)) return 'quantity';
    if (path.startsWith('customFields.')) return checkoutFieldName(path.slice('customFields.'.length));
    if (path === 'affiliateCode') return 'ref';
    if (path === 'gateway' || path === 'coupon' || path === 'chatUserId' || path === 'terms') return path;
    return undefined;
  };
}

/** A cart order's problems with `parts[i]…` named by the line's product, as the buyer knows it, rather than by its place. */
function namedByLine(problems: readonly string[], lines: CheckoutLine[]): string[] {
  return problems.map((p) => {
    const match = /^parts\[(\d+)\](?:\.\w+)?: /.exec(p);
    const line = match ? lines[Number(match[1])] : undefined;
    return line && match ? `${line.product.title}: ${p.slice(match[0].length)}` : p;
  });
}

/** The invoice of this shop with this id; any other (unknown, malformed, another shop's) is the 404 page. */
async function invoiceOfSite(ctx: Context, secrets: SecretBox, site: Site, id: string) {
  const invoice = INVOICE_ID.test(id) ? await getPublicInvoice(ctx, secrets, id) : undefined;
  if (!invoice || invoice.shopId !== site.shop.id) throw new NotFoundError('Invoice');
  return invoice;
}

const invoicePage = (site: Site, invoice: PublicInvoiceView) => flowHref(site, storefrontPaths.invoice(invoice.id));

type CheckoutMode = CheckoutPageProps['mode'];

/** What a checkout page is about: its lines, who is buying, and the form as sent. */
interface CheckoutOrder {
  site: Site;
  details: CheckoutPageProps['details'];
  mode: CheckoutMode;
  lines: CheckoutLine[];
  gateways: OfferedGateway[];
  values: CheckoutValues;
  customer: SignedInCustomer | null;
}

export const orderRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;
  const db = ctx.db;
  const options = app.orders;
  const hide = { hide: true };
  const secureCookies = app.config.publicUrl.startsWith('https:');

  async function buyerOfPage(request: FastifyRequest): Promise<SignedInCustomer | null> {
    // An embed page takes no cookie's word (see storefrontEmbed): its buyer is never signed in.
    return request.site!.embed ? null : currentCustomer(app, request);
  }

  function orderFor(
    site: Site,
    details: CheckoutOrder['details'],
    mode: CheckoutMode,
    lines: CheckoutLine[],
    input: FormInput,
    customer: SignedInCustomer | null,
    ref: string | null,
  ): CheckoutOrder {
    const values = checkoutValuesOf(input, lines, { ref });
    // A signed-in buyer orders as themselves: the address is the session's, whatever the form says.
    if (customer) values.email = customer.email;
    return {
      site,
      details,
      mode,
      lines,
      gateways: offeredGateways(customer, lines, details.currency),
      values,
      customer,
    };
  }

  /** One product bought now: the product and variant asked for, the quantity as typed (its least when it is no number). */
  async function productCheckoutOf(request: FastifyRequest, input: FormInput): Promise<CheckoutOrder> {
    const site = request.site!;
    const productId = idOf(input, 'product');
    if (productId === undefined) throw new NotFoundError('Product');
    const data = await checkoutPage(db, site.shop, productId);
    const variant = variantOf(data.product, idOf(input, 'variant'));
    const quantity = checkoutQuantity(textOf(input, 'quantity')) ?? variant.minAmount;
    const lines = [{ product: data.product, variant, quantity }];
    return orderFor(site, data.mainDetails, 'product', lines, input, await buyerOfPage(request), null);
  }

  /** The cart's lines (from its cookie, or as the checkout form carries them), each product read again; lines gone from the catalogue are dropped. */
  async function cartCheckoutOf(
    request: FastifyRequest,
    cartLines: CartLine[],
    input: FormInput,
  ): Promise<CheckoutOrder & { dropped: boolean }> {
    const site = request.site!;
    const data = await cartPage(
      db,
      site.shop,
      cartLines.map((l) => l.productId),
    );
    const lines: CheckoutLine[] = [];
    for (const l of cartLines) {
      const product = data.products.get(l.productId);
      const variant = product?.variants.find((v) => v.id === l.variantId);
      if (product && variant) lines.push({ product, variant, quantity: l.quantity });
    }
    const order = orderFor(
      site,
      data.mainDetails,
      'cart',
      lines,
      input,
      await buyerOfPage(request),
      readCart(request).ref,
    );
    return { ...order, dropped: lines.length < cartLines.length };
  }

  /**
   * The summary above "Place order": the order priced by the checkout's own rules with the coupon
   * typed (orders' quoteOrder), and the coupon's problem when it does not apply; without a coupon,
   * or when the order cannot be priced yet (a quantity the form will refuse), the listed prices.
   */
  async function summaryOf(order: CheckoutOrder, chosen: string | undefined) {
    const currency = order.details.currency;
    const listed = listedQuote(order.lines, chosen, currency);
    const coupon = order.values.coupon.trim();
    if (!coupon || !chosen || order.lines.length === 0) return { quote: listed, problems: [] };
    if (coupon.length > 64) return { quote: listed, problems: ['coupon: must be at most 64 characters'] };
    // A quantity the form will refuse: the order cannot be priced yet.
    if (order.mode === 'product' && checkoutQuantity(order.values.quantity) === undefined)
      return { quote: listed, problems: [] };
    const parts = order.lines.map((l) => ({
      productId: l.product.id,
      productVariantId: l.variant.id,
      quantity: l.quantity,
    }));
    try {
      const quote = await quoteOrder(ctx, order.site.shop.id, { parts, gateway: chosen, coupon });
      return { quote: inMajorUnits(quote, currency), problems: [] };
    } catch (err) {
      const refused = formRefusal(err);
      if (!refused) throw err;
      return { quote: listed, problems: refused.errors.filter((e) => e.startsWith('coupon: ')) };
    }
  }

  async function showCheckout(
    reply: FastifyReply,
    order: CheckoutOrder,
    errors: PlacedErrors,
    shown: { applying?: boolean; dropped?: boolean } = {},
  ) {
    const lang = reply.request.lang!;
    const chosen = order.gateways.some((g) => g.gateway === order.values.gateway)
      ? order.values.gateway
      : order.gateways[0]?.gateway;
    const { quote, problems } = await summaryOf(order, chosen);
    let placed = errors;
    if (problems.length > 0 && errors.fields.coupon === undefined) {
      const coupon = placeErrors(lang, problems, (path) => (path === 'coupon' ? path : undefined));
      placed = { ...errors, fields: { ...errors.fields, ...coupon.fields } };
      // "Apply" with a coupon that does not apply is a refusal of the form (422), as "Place order" would be.
      if (shown.applying) placed.status = 422;
    }
    const challenge = await formChallenge(reply.request, placed);
    return sendPage(
      reply,
      <CheckoutPage
        site={order.site}
        details={order.details}
        mode={order.mode}
        lines={order.lines}
        gateways={order.gateways}
        chosen={chosen}
        quote={quote}
        values={order.values}
        errors={placed}
        csrf={formToken(reply)}
        maxAnswerLength={MAX_ANSWER_LENGTH}
        customer={order.customer}
        challenge={challenge}
        applied={shown.applying === true && quote.coupon !== null}
        dropped={shown.dropped === true}
      />,
      { status: placed.status ?? 200, private: true },
    );
  }

  /** "Place order": the order checked as the JSON API would, placed, and the buyer sent to its page (or the form with its problems). */
  async function placeFromForm(request: FastifyRequest, reply: FastifyReply, order: CheckoutOrder) {
    const { site, lines, values } = order;
    const lang = request.lang!;
    const fieldOf = checkoutFieldOf(order.mode);
    const named = (problems: readonly string[]) => (order.mode === 'cart' ? namedByLine(problems, lines) : problems);
    const { body, problems } = orderOf(
      values,
      lines.map((l) => ({
        productId: l.product.id,
        variantId: l.variant.id,
        quantity: order.mode === 'product' ? values.quantity : l.quantity,
      })),
      lines.flatMap((l) => l.variant.customFields),
      order.gateways.map((g) => g.gateway),
      order.details.terms !== null,
      lang,
    );
    if (problems.length > 0)
      return showCheckout(reply, order, {
        ...placeErrors(lang, named(problems), fieldOf, lang.t('form.someCorrections')),
        status: 400,
      });
    let invoiceId: string;
    try {
      const buyer = { ...buyerOf(request), signedInAs: order.customer?.email ?? null, locale: lang.locale };
      await app.challenges.admit(site.shop.id, request.ip, formSolution(request.body as FormInput));
      ({ invoiceId } = await checkout(ctx, site.shop.id, body, buyer, options, app.vpnRanges, 'unlocked'));
    } catch (err) {
      const refused = formRefusal(err);
      if (!refused) throw err;
      const errors = refusalErrors(lang, refused, fieldOf);
      return showCheckout(reply, order, { ...errors, other: [...named(errors.other)] });
    }
    // The cart's order is placed: the cart is done with.
    if (order.mode === 'cart') writeCart(reply, site, { lines: [], ref: null }, secureCookies);
    return reply.redirect(flowHref(site, storefrontPaths.invoice(invoiceId)), 303);
  }

  // Each page of the buying flow also under `/embed`, framed by another site's buy button (storefrontEmbed).
  for (const [prefix, embed] of FLOW_VARIANTS) {
    app.get(`${prefix}/checkout`, { schema: hide, config: { storefrontEmbed: embed } }, async (request, reply) =>
      showCheckout(reply, await productCheckoutOf(request, request.query as FormInput), noErrors()),
    );
    // The product page's form: the same page, its answers in the body rather than the URL.
    app.post(
      `${prefix}/checkout/start`,
      { schema: hide, config: { storefrontReadOnly: true, storefrontEmbed: embed } },
      async (request, reply) =>
        showCheckout(reply, await productCheckoutOf(request, request.body as FormInput), noErrors()),
    );

    app.post(`${prefix}/checkout`, { schema: hide, config: { storefrontEmbed: embed } }, async (request, reply) => {
      const input = request.body as FormInput;
      const order = await productCheckoutOf(request, input);
      if (textOf(input, 'intent') === 'apply') return showCheckout(reply, order, noErrors(), { applying: true });
      return placeFromForm(request, reply, order);
    });
  }

  // The cart's checkout (routes/cart.tsx keeps the cart): its lines from the cookie, or as the form carries them.
  app.get('/cart/checkout', { schema: hide }, async (request, reply) => {
    const cart = readCart(request);
    if (cart.lines.length === 0) return reply.redirect(href(request.site!, '/cart'), 303);
    const order = await cartCheckoutOf(request, cart.lines, request.query as FormInput);
    if (order.lines.length === 0) return reply.redirect(href(request.site!, '/cart'), 303);
    return showCheckout(reply, order, noErrors(), { dropped: order.dropped });
  });

  app.post('/cart/checkout', { schema: hide }, async (request, reply) => {
    const input = request.body as FormInput;
    // The order is the lines the buyer saw on this page, whatever the cart has become in another tab since.
    const order = await cartCheckoutOf(request, formLines(input), input);
    if (order.lines.length === 0) return reply.redirect(href(request.site!, '/cart'), 303);
    if (order.dropped || textOf(input, 'intent') === 'apply')
      return showCheckout(reply, order, noErrors(), { applying: !order.dropped, dropped: order.dropped });
    return placeFromForm(request, reply, order);
  });

  async function renderInvoice(
    request: FastifyRequest<{ Params: { invoiceId: string } }>,
    reply: FastifyReply,
    feedback?: { values: FeedbackValues; errors: PlacedErrors },
  ) {
    const site = request.site!;
    const invoice = await invoiceOfSite(ctx, app.secrets, site, request.params.invoiceId);
    const [details, left] = await Promise.all([
      detailsOf(app, site),
      invoice.status === 'completed' ? feedbackOfInvoice(ctx, site.shop.id, invoice.id) : undefined,
    ]);
    return sendPage(
      reply,
      <InvoicePage
        site={site}
        details={details}
        invoice={invoice}
        feedback={left}
        csrf={formToken(reply)}
        now={ctx.clock.now()}
        feedbackValues={feedback?.values}
        feedbackErrors={feedback?.errors}
      />,
      { status: feedback?.errors.status ?? 200, private: true },
    );
  }

  for (const [prefix, embed] of FLOW_VARIANTS) {
    app.get<{ Params: { invoiceId: string } }>(
      `${prefix}/invoices/:invoiceId`,
      { schema: hide, config: { storefrontEmbed: embed } },
      async (request, reply) => {
        const site = request.site!;
        const invoice = await invoiceOfSite(ctx, app.secrets, site, request.params.invoiceId);
        // Every view of the page is evidence that the buyer saw the order, should a dispute come.
        await recordInvoiceView(
          ctx.db,
          site.shop.id,
          invoice.id,
          { ip: request.ip, userAgent: request.headers['user-agent'] ?? null },
          ctx.clock.now(),
        );
        return renderInvoice(request, reply);
      },
    );
  }

  // The poll of a pending invoice page: one read, of the invoice by its primary key, of the shop
  // the address names (found in the same statement: no separate shop lookup; no password: the
  // unguessable id is the capability, and the answer is only the status).
  app.get<{ Params: { shop: string; invoiceId: string } }>(
    '/invoices/:invoiceId/status',
    { schema: hide, config: { storefrontBare: true } },
    async (request, reply) => {
      const { shop, invoiceId: id } = request.params;
      const address = shop.startsWith('~') ? { domain: shop.slice(1) } : { subdomain: shop };
      const status = INVOICE_ID.test(id) ? await publicInvoiceStatus(ctx, id, address) : undefined;
      void reply.header('cache-control', 'private, no-store').header('x-content-type-options', 'nosniff');
      return reply.code(status ? 200 : 404).send({ status: status ?? null });
    },
  );

  app.get<{ Params: { invoiceId: string } }>(
    '/invoices/:invoiceId/goods.txt',
    { schema: hide },
    async (request, reply) => {
      const invoice = await invoiceOfSite(ctx, app.secrets, request.site!, request.params.invoiceId);
      if (invoice.status !== 'completed') throw new NotFoundError('Goods');
      return reply
        .header('content-type', 'text/plain; charset=utf-8')
        .header('content-disposition', `attachment; filename="order-${invoice.id}.txt"`)
        .header('cache-control', 'private, no-store')
        .header('x-content-type-options', 'nosniff')
        .header('referrer-policy', 'no-referrer')
        .send(goodsText(invoice, request.lang!));
    },
  );

  for (const [prefix, embed] of FLOW_VARIANTS) {
    app.post<{ Params: { invoiceId: string } }>(
      `${prefix}/invoices/:invoiceId/cancel`,
      { schema: hide, config: { storefrontEmbed: embed } },
      async (request, reply) => {
        const site = request.site!;
        const invoice = await invoiceOfSite(ctx, app.secrets, site, request.params.invoiceId);
        try {
          await cancelInvoice(ctx, site.shop.id, invoice.id, options.payments);
        } catch (err) {
          // Already paid, expired or cancelled (a second click): the page says which.
          if (!(err instanceof ConflictError)) throw err;
        }
        return reply.redirect(invoicePage(site, invoice), 303);
      },
    );

    app.post<{ Params: { invoiceId: string } }>(
      `${prefix}/invoices/:invoiceId/feedback`,
      { schema: hide, config: { storefrontEmbed: embed } },
      async (request, reply) => {
        const site = request.site!;
        const invoice = await invoiceOfSite(ctx, app.secrets, site, request.params.invoiceId);
        const input = request.body as FormInput;
        const values = { rating: textOf(input, 'rating'), comment: textOf(input, 'comment') };
        const problems: string[] = [];
        const { t } = request.lang!;
        if (!/^[1-5]$/.test(values.rating)) problems.push(`rating: ${t('review.chooseRating')}`);
        if (values.comment.length > 2000) problems.push(`comment: ${t('form.maxLength', { limit: 2000 })}`);
        const fieldOf = (path: string) => (path === 'rating' || path === 'comment' ? path : undefined);
        if (problems.length > 0)
          return renderInvoice(request, reply, {
            values,
            errors: { ...placeErrors(request.lang!, problems, fieldOf), status: 400 },
          });
        try {
          await postFeedback(ctx, invoice.id, {
            rating: Number(values.rating),
            comment: values.comment.trim() || null,
          });
        } catch (err) {
          // Rated already (another tab), or not completed: the page shows the review, or the status.
          if (err instanceof ConflictError) return reply.redirect(invoicePage(site, invoice), 303);
          const refused = formRefusal(err);
          if (!refused) throw err;
          return renderInvoice(request, reply, {
            values,
            errors: {
              ...placeErrors(request.lang!, refused.errors, fieldOf, refused.message),
              status: refused.statusCode,
            },
          });
        }
        return reply.redirect(invoicePage(site, invoice), 303);
      },
    );
  }
};
