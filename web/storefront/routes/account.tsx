import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { NotFoundError, RateLimitedError } from '../../../src/http/errors.js';
import {
  CODE_MINUTES,
  customerAccount,
  endSession,
  sendSignInCode,
  startSession,
} from '../../../src/modules/customer-sessions/index.js';
import { customerLicenses, freeCustomerInstance } from '../../../src/modules/licenses/index.js';
import { getPublicInvoice } from '../../../src/modules/orders/index.js';
import { currentCustomer, customerCookieName, forgetSession, rememberSession } from '../customer.js';
import {
  type FormInput,
  formChallenge,
  formRefusal,
  formSolution,
  formToken,
  isEmail,
  noErrors,
  type PlacedErrors,
  refusalErrors,
  textOf,
} from '../form.js';
import { AccountPage, type BuyerLicense, type FreedNotice } from '../pages/account.js';
import { SignInPage, VerifyPage } from '../pages/account-sign-in.js';
import { sendPage } from '../render.js';
import { detailsOf } from '../shop-scope.js';
import { href, type Site } from '../site.js';

/**
 * The customer area: sign-in by a one-time code mailed to the buyer (no password), then the
 * account — balance, licences (each device can be freed), orders with their goods — and
 * sign-out. The same services and sessions as the public JSON API's customer routes; the session
 * token lives in an httpOnly cookie of the shop (customer.ts). The code travels only in POST
 * bodies, never in a URL (URLs reach logs).
 */

/** A refusal of the sign-in services as the form shows it: the field it concerns, and Retry-After for a 429. */
function refusalOf(reply: FastifyReply, err: unknown, fieldOf: (path: string) => string | undefined): PlacedErrors {
  if (err instanceof RateLimitedError) {
    void reply.header('retry-after', String(err.retryAfterSeconds));
    return { fields: {}, other: [], message: err.message, status: 429 };
  }
  const refused = formRefusal(err);
  if (!refused) throw err;
  return refusalErrors(reply.request.lang!, refused, fieldOf);
}

type Account = Awaited<ReturnType<typeof customerAccount>>;

/** An instance id as `activate` answered it (a UUID); anything else names no instance. */
const INSTANCE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const LICENSE_ID = /^[1-9][0-9]{0,14}$/;

/**
 * The buyer's licences of this shop, each with the title of the product it was sold with: from the
 * orders this page shows, else from the licence's own order (an older one, on a later page).
 */
async function licensesOf(app: FastifyInstance, site: Site, email: string, account: Account): Promise<BuyerLicense[]> {
  const licenses = await customerLicenses(app.ctx, site.shop.id, email);
  if (licenses.length === 0) return [];
  const titles = new Map<string, string>();
  const remember = (invoiceId: string, parts: { productId: number; title: string }[]) => {
    for (const p of parts) titles.set(`${invoiceId} ${p.productId}`, p.title);
  };
  for (const order of account.orders.items) remember(order.id, order.parts);
  const missing = [...new Set(licenses.map((l) => l.invoiceId))].filter(
    (id) => !account.orders.items.some((o) => o.id === id),
  );
  for (const invoiceId of missing) {
    const invoice = await getPublicInvoice(app.ctx, app.secrets, invoiceId);
    if (invoice?.shopId === site.shop.id) remember(invoice.id, invoice.parts);
  }
  return licenses.map((license) => ({
    license,
    productTitle: titles.get(`${license.invoiceId} ${license.productId}`) ?? null,
  }));
}

/** `?freed=…` after the free-a-device form: what the page says happened. */
function freedNoticeOf(value: string | undefined): FreedNotice | undefined {
  return value === 'yes' ? 'freed' : value === 'already' ? 'already-free' : undefined;
}

export const accountRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  const hide = { hide: true };
  const accountPath = (site: Site) => href(site, '/account');

  async function showSignIn(reply: FastifyReply, site: Site, email: string, errors: PlacedErrors) {
    return sendPage(
      reply,
      <SignInPage
        site={site}
        details={await detailsOf(app, site)}
        csrf={formToken(reply)}
        email={email}
        errors={errors}
        challenge={await formChallenge(reply.request, errors)}
      />,
      { status: errors.status ?? 200, private: true },
    );
  }

  async function showVerify(reply: FastifyReply, site: Site, email: string, errors: PlacedErrors) {
    return sendPage(
      reply,
      <VerifyPage
        site={site}
        details={await detailsOf(app, site)}
        csrf={formToken(reply)}
        email={email}
        minutes={CODE_MINUTES}
        errors={errors}
      />,
      { status: errors.status ?? 200, private: true },
    );
  }

  app.get(
    '/account',
    {
      schema: {
        ...hide,
        querystring: Type.Object({
          cursor: Type.Optional(Type.String({ maxLength: 512 })),
          freed: Type.Optional(Type.String({ maxLength: 16 })),
        }),
      },
    },
    async (request, reply) => {
      const site = request.site!;
      const customer = await currentCustomer(app, request);
      if (!customer) {
        // A cookie whose session ended (signed out elsewhere, expired) is dropped.
        if (request.cookies[customerCookieName(site.shop.id)]) forgetSession(app, reply, site);
        return showSignIn(reply, site, '', noErrors());
      }
      const { cursor } = request.query;
      const [account, details] = await Promise.all([
        customerAccount(ctx, app.secrets, site.shop, customer.email, { pageNumber: 1, pageSize: 20, cursor }),
        detailsOf(app, site),
      ]);
      const licenses = await licensesOf(app, site, customer.email, account);
      return sendPage(
        reply,
        <AccountPage
          site={site}
          details={details}
          account={account}
          licenses={licenses}
          freed={freedNoticeOf(request.query.freed)}
          csrf={formToken(reply)}
          cursor={cursor}
        />,
        { private: true },
      );
    },
  );

  app.post('/account/sign-in', { schema: hide }, async (request, reply) => {
    const site = request.site!;
    const email = textOf(request.body as FormInput, 'email').trim();
    if (!isEmail(email))
      return showSignIn(reply, site, email, {
        fields: { email: request.lang!.t(email === '' ? 'signIn.enterEmail' : 'signIn.validEmail') },
        other: [],
        status: 400,
      });
    try {
      await app.challenges.admit(site.shop.id, request.ip, formSolution(request.body as FormInput));
      const sent = await sendSignInCode(ctx, app.signInLimits, site.shop, {
        email,
        ip: request.ip,
        locale: request.lang!.locale,
      });
      return reply.redirect(`${href(site, '/account/verify')}?email=${encodeURIComponent(sent.email)}`, 303);
    } catch (err) {
      return showSignIn(
        reply,
        site,
        email,
        refusalOf(reply, err, (path) => (path === 'email' ? 'email' : undefined)),
      );
    }
  });

  app.get(
    '/account/verify',
    { schema: { ...hide, querystring: Type.Object({ email: Type.Optional(Type.String({ maxLength: 254 })) }) } },
    async (request, reply) => {
      const site = request.site!;
      const email = (request.query.email ?? '').trim();
      if (!isEmail(email)) return reply.redirect(accountPath(site), 303);
      return showVerify(reply, site, email, noErrors());
    },
  );

  app.post('/account/verify', { schema: hide }, async (request, reply) => {
    const site = request.site!;
    const input = request.body as FormInput;
    const email = textOf(input, 'email').trim();
    const code = textOf(input, 'code').trim();
    if (!isEmail(email)) return reply.redirect(accountPath(site), 303);
    if (!/^[0-9]{6}$/.test(code))
      return showVerify(reply, site, email, {
        fields: { code: request.lang!.t('verify.enterCode') },
        other: [],
        status: 400,
      });
    try {
      const session = await startSession(ctx, site.shop, { email, code, ip: request.ip }, app.authFailures);
      rememberSession(app, reply, site, session.token, new Date(session.expiresAt));
      return reply.redirect(accountPath(site), 303);
    } catch (err) {
      const errors = refusalOf(reply, err, (path) => (path === 'code' ? 'code' : undefined));
      if (errors.fields.code) {
        errors.fields.code = request.lang!.t('verify.wrongCode');
        errors.message = undefined;
      }
      return showVerify(reply, site, email, errors);
    }
  });

  // "Free this device": the buyer deactivates one instance of their licence, as the program's own
  // deactivate would. Another buyer's licence, or an instance not of this licence, is the 404 page
  // and changes nothing (the service checks the licence's address against the session's).
  app.post<{ Params: { licenseId: string; instanceId: string } }>(
    '/account/licenses/:licenseId/instances/:instanceId/free',
    { schema: hide },
    async (request, reply) => {
      const site = request.site!;
      const customer = await currentCustomer(app, request);
      if (!customer) return reply.redirect(accountPath(site), 303);
      const { licenseId, instanceId } = request.params;
      if (!LICENSE_ID.test(licenseId) || !INSTANCE_ID.test(instanceId)) throw new NotFoundError('License');
      const freed = await freeCustomerInstance(ctx, site.shop.id, customer.email, Number(licenseId), instanceId);
      return reply.redirect(`${accountPath(site)}?freed=${freed.deactivated ? 'yes' : 'already'}#licenses`, 303);
    },
  );

  app.post('/account/sign-out', { schema: hide }, async (request, reply) => {
    const site = request.site!;
    const customer = await currentCustomer(app, request);
    if (customer) await endSession(ctx, site.shop.id, customer.sessionId);
    forgetSession(app, reply, site);
    return reply.redirect(accountPath(site), 303);
  });
};
