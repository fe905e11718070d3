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
  publicInvoiceStatus,
} from '../../../src/modules/orders/index.js';
import { MAX_ANSWER_LENGTH } from '../../../src/modules/products/index.js';
import { checkoutPage } from '../../../src/modules/storefront/index.js';
import type { SecretBox } from '../../../src/security/secret-box.js';
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
import {
  CheckoutPage,
  type CheckoutProduct,
  type CheckoutValues,
  type CheckoutVariant,
  type GatewayOption,
} from '../pages/checkout.js';
import { type FeedbackValues, goodsText, InvoicePage, type PublicInvoiceView } from '../pages/invoice.js';
import { checkoutFieldName } from '../pages/product.js';
import { sendPage } from '../render.js';
import { detailsOf } from '../shop-scope.js';
import { FLOW_VARIANTS, flowHref, type Site } from '../site.js';
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

/** The variant asked for; without one, the product's only variant or its first that can be bought. */
function variantOf(product: CheckoutProduct, variantId: number | undefined): CheckoutVariant {
  const variant =
    variantId === undefined
      ? (product.variants.find((v) => v.inStock && v.gateways.length > 0) ?? product.variants[0])
      : product.variants.find((v) => v.id === variantId);
  if (!variant) throw new NotFoundError('Variant');
  return variant;
}

function checkoutValuesOf(input: FormInput, variant: CheckoutVariant): CheckoutValues {
  const fields: Record<string, string> = {};
  for (const f of variant.customFields) fields[f.id] = textOf(input, checkoutFieldName(f.id));
  return {
    quantity: textOf(input, 'quantity') || String(variant.minAmount),
    email: textOf(input, 'email'),
    gateway: textOf(input, 'gateway'),
    coupon: textOf(input, 'coupon'),
    ref: textOf(input, 'ref'),
    chatUserId: textOf(input, 'chatUserId'),
    fields,
    terms: textOf(input, 'terms') !== '',
  };
}

/** Where a service's error path belongs on the checkout form. */
function checkoutFieldOf(path: string): string | undefined {
  if (path === 'customerEmail') return 'email';
  if (/^parts\[\d+\]\.quantity$/.test(path)) return 'quantity';
  if (path.startsWith('customFields.')) return checkoutFieldName(path.slice('customFields.'.length));
  if (path === 'affiliateCode') return 'ref';
  if (path === 'gateway' || path === 'coupon' || path === 'chatUserId' || path === 'terms') return path;
  return undefined;
}

/** The invoice of this shop with this id; any other (unknown, malformed, another shop's) is the 404 page. */
async function invoiceOfSite(ctx: Context, secrets: SecretBox, site: Site, id: string) {
  const invoice = INVOICE_ID.test(id) ? await getPublicInvoice(ctx, secrets, id) : undefined;
  if (!invoice || invoice.shopId !== site.shop.id) throw new NotFoundError('Invoice');
  return invoice;
}

const invoicePage = (site: Site, invoice: PublicInvoiceView) => flowHref(site, storefrontPaths.invoice(invoice.id));

export const orderRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { ctx } = app;
  const db = ctx.db;
  const options = app.orders;
  const hide = { hide: true };

  /** What a checkout page is about: the product and variant asked for, and the form as sent. */
  async function checkoutOf(request: FastifyRequest, input: FormInput) {
    const site = request.site!;
    const productId = idOf(input, 'product');
    if (productId === undefined) throw new NotFoundError('Product');
    const data = await checkoutPage(db, site.shop, productId);
    const variant = variantOf(data.product, idOf(input, 'variant'));
    // An embed page takes no cookie's word (see storefrontEmbed): its buyer is never signed in.
    const customer = site.embed ? null : await currentCustomer(app, request);
    const values = checkoutValuesOf(input, variant);
    // A signed-in buyer orders as themselves: the address is the session's, whatever the form says.
    if (customer) values.email = customer.email;
    return { site, data, variant, gateways: buyerGateways(customer, variant), values, customer };
  }

  async function showCheckout(
    reply: FastifyReply,
    order: Awaited<ReturnType<typeof checkoutOf>>,
    errors: PlacedErrors,
  ) {
    const challenge = await formChallenge(reply.request, errors);
    return sendPage(
      reply,
      <CheckoutPage
        site={order.site}
        data={order.data}
        variant={order.variant}
        gateways={order.gateways}
        values={order.values}
        errors={errors}
        csrf={formToken(reply)}
        maxAnswerLength={MAX_ANSWER_LENGTH}
        customer={order.customer}
        challenge={challenge}
      />,
      { status: errors.status ?? 200, private: true },
    );
  }

  // Each page of the buying flow also under `/embed`, framed by another site's buy button (storefrontEmbed).
  for (const [prefix, embed] of FLOW_VARIANTS) {
    app.get(`${prefix}/checkout`, { schema: hide, config: { storefrontEmbed: embed } }, async (request, reply) =>
      showCheckout(reply, await checkoutOf(request, request.query as FormInput), noErrors()),
    );
    // The product page's form: the same page, its answers in the body rather than the URL.
    app.post(
      `${prefix}/checkout/start`,
      { schema: hide, config: { storefrontReadOnly: true, storefrontEmbed: embed } },
      async (request, reply) => showCheckout(reply, await checkoutOf(request, request.body as FormInput), noErrors()),
    );

    app.post(`${prefix}/checkout`, { schema: hide, config: { storefrontEmbed: embed } }, async (request, reply) => {
      const order = await checkoutOf(request, request.body as FormInput);
      const { site, data, variant } = order;
      const { body, problems } = orderOf(
        order.values,
        data.product,
        variant,
        order.gateways,
        data.mainDetails.terms !== null,
        request.lang!,
      );
      if (problems.length > 0)
        return showCheckout(reply, order, {
          ...placeErrors(request.lang!, problems, checkoutFieldOf, request.lang!.t('form.someCorrections')),
          status: 400,
        });
      let invoiceId: string;
      try {
        const buyer = { ...buyerOf(request), signedInAs: order.customer?.email ?? null, locale: request.lang!.locale };
        await app.challenges.admit(site.shop.id, request.ip, formSolution(request.body as FormInput));
        ({ invoiceId } = await checkout(ctx, site.shop.id, body, buyer, options, app.vpnRanges, 'unlocked'));
      } catch (err) {
        const refused = formRefusal(err);
        if (!refused) throw err;
        return showCheckout(reply, order, refusalErrors(request.lang!, refused, checkoutFieldOf));
      }
      return reply.redirect(flowHref(site, storefrontPaths.invoice(invoiceId)), 303);
    });
  }

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
