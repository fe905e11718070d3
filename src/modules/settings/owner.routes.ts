import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Static, TSchema } from '@sinclair/typebox';
import type { FastifyBaseLogger } from 'fastify';
import type { Context } from '../../domain/context.js';
import { currentShop } from '../../http/auth.js';
import { ok, ownerResponses, ShopParams } from '../../schemas/common.js';
import * as shops from '../shops/index.js';
import * as payments from './payment-settings.js';
import * as schema from './schema.js';
import * as service from './service.js';

const tags = ['Shops and settings'];

type App = Parameters<FastifyPluginAsyncTypebox>[0];

interface GeneralSetting<B extends TSchema> {
  summary: string;
  body: B;
  description?: string;
  extraErrors?: number[];
  apply(ctx: Context, shop: shops.ShopRow, body: Static<B>, log: FastifyBaseLogger): Promise<shops.ShopRow>;
}

/** A PUT /self/{shopId}/settings/<name> route: each answers the updated shop. */
function generalSetting<B extends TSchema>(app: App, path: string, s: GeneralSetting<B>) {
  app.put(path, {
    schema: {
      tags,
      summary: s.summary,
      ...(s.description ? { description: s.description } : {}),
      params: ShopParams,
      body: s.body,
      response: ownerResponses(shops.Shop, s.extraErrors),
    },
    handler: async (request) =>
      ok(shops.toShop(app.ctx, await s.apply(app.ctx, currentShop(request), request.body as Static<B>, request.log))),
  });
}

/** A PUT /self/{shopId}/settings/payments/<provider> route. */
function paymentSetting(app: App, path: string, provider: shops.PaymentProvider) {
  app.put(path, {
    schema: {
      tags: ['Payment settings'],
      summary: `Configure the ${provider} gateway`,
      description:
        'Secret fields are encrypted at rest and only ever returned masked (••••1234); the view read from ' +
        '`GET settings` (`payments.<provider>`) sent back unchanged is a 200 that changes nothing. ' +
        (provider === 'cardconnect'
          ? 'A new `secretKey` is checked with Stripe before it is stored (it must be a secret or restricted key that ' +
            'may list Checkout Sessions): one Stripe refuses is a 422 naming it, and no answer from Stripe a 502; ' +
            'either way nothing is saved.'
          : ''),
      params: ShopParams,
      body: schema.paymentBodySchema(provider),
      response: ownerResponses(schema.paymentViewSchema(provider), [409, 422, 502]),
    },
    handler: async (request) =>
      ok(
        await payments.updatePaymentSettings(
          app.ctx,
          app.secrets,
          currentShop(request).id,
          provider,
          request.body as payments.PaymentUpdate,
          app.vpnRanges,
        ),
      ),
  });
}

export const settingsOwnerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/:shopId/settings', {
    schema: {
      tags,
      summary: 'Read every setting: the shop, payments (secrets masked) and design',
      params: ShopParams,
      response: ownerResponses(schema.Settings),
    },
    handler: async (request) => ok(await service.getSettings(app.ctx, app.secrets, currentShop(request))),
  });

  generalSetting(app, '/:shopId/settings/name', {
    summary: 'Set the shop name',
    body: schema.NameBody,
    apply: (ctx, shop, b) => shops.renameShop(ctx, shop, b.newName),
  });
  generalSetting(app, '/:shopId/settings/subdomain', {
    summary: 'Set the subdomain',
    description:
      'Unique across all shops (409). The subdomain the shop leaves is held for its account for `SUBDOMAIN_HOLD_DAYS` ' +
      "(30 by default): another account's shop that asks for it meanwhile gets a 409 naming when it is free, and new " +
      'shops of other accounts are not given it; a shop of the same account may take it back.',
    body: schema.SubdomainBody,
    extraErrors: [409],
    apply: (ctx, shop, b) => shops.changeSubdomain(ctx, shop, b.newSubDomain),
  });
  generalSetting(app, '/:shopId/settings/domain', {
    summary: 'Set or clear the custom domain',
    description:
      "The storefront is then served at `/` of this host too (point the domain's DNS at the server), and every link shopd writes " +
      'for the shop (`storefrontUrl`, invoice `url`, mail) uses it. Stored lower-case without a trailing dot. Refused (400): IP ' +
      "addresses, localhost, the server's own host, and STOREFRONT_DOMAIN or any host under it (those are the shops' subdomain " +
      "addresses). A domain another shop has is a 409. `null` clears it. The shop's cached storefront pages are dropped. " +
      'A new domain gets a new verification token and is unverified (`domainVerification`): create the DNS TXT record ' +
      '`_shopd-verify.<domain>` holding `domainVerification.value`; until it is found, /tls-ask refuses the domain, so the ' +
      'reverse proxy obtains no certificate for it. Setting the same domain again gives a domain set before verification ' +
      'existed its token.',
    body: schema.DomainBody,
    extraErrors: [409],
    apply: (ctx, shop, b) => shops.setCustomDomain(ctx, shop, b.domain),
  });
  app.post('/:shopId/settings/domain/verify', {
    schema: {
      tags,
      summary: 'Check the custom domain’s DNS verification record now',
      description:
        'Asks DNS (the resolvers of `DNS_SERVERS`, else the system’s) for the TXT record `_shopd-verify.<domain>`; when one ' +
        'holds the token of `domainVerification.value`, the domain is verified (kept: DNS is not asked again) and the ' +
        'shop is answered. Not found (or DNS did not answer within 3 s): 422 naming the record, nothing changes. No ' +
        'custom domain: 409. Already verified: 200 without asking. /tls-ask also checks by itself when the proxy asks ' +
        'for a certificate, so this call is only needed to see the result at once.',
      params: ShopParams,
      response: ownerResponses(shops.Shop, [409, 422]),
    },
    handler: async (request) =>
      ok(shops.toShop(app.ctx, await shops.verifyCustomDomain(app.ctx, currentShop(request)))),
  });
  generalSetting(app, '/:shopId/settings/currency', {
    summary: 'Set the currency',
    body: schema.CurrencyBody,
    apply: (ctx, shop, b) => service.changeCurrency(ctx, shop, b.currency),
  });
  generalSetting(app, '/:shopId/settings/password', {
    summary: 'Set or remove the storefront password',
    body: schema.PasswordBody,
    apply: (ctx, shop, b) => shops.setPassword(ctx, shop, b.password),
  });
  generalSetting(app, '/:shopId/settings/timezone', {
    summary: 'Set the time zone or the UTC offset',
    body: schema.TimezoneBody,
    description:
      'An IANA `timezone` (beyond the seed: daylight saving included) or a fixed `utcTimezoneOffset` (the original API). Date filters, ' +
      "dashboards, the storefront's and the mails' dates and the admin use the new clock at once. The dashboards' rollups are then rebuilt in " +
      'the new local days in the background, in short batches (minutes for a million invoices): meanwhile the dashboards answer ' +
      '`rollupsRebuilding: true`, with exact totals for the range but series days and hours of day still on the previous clock.',
    apply: (ctx, shop, b, log) => service.setTimezone(ctx, shop, b, log),
  });
  generalSetting(app, '/:shopId/settings/language', {
    summary: 'Set the default language of the storefront and the mails',
    description:
      'Beyond the seed. A buyer sees the storefront in the language they chose with its switcher, else in the first of ' +
      "their browser's languages it has, else in this one; each order's and ticket's mails are in the language the buyer " +
      "used to place it (this one for those placed through the API). The shop's cached pages are dropped.",
    body: schema.LanguageBody,
    apply: (ctx, shop, b) => shops.setLanguage(ctx, shop, b.language),
  });
  generalSetting(app, '/:shopId/settings/status', {
    summary: 'Put the shop on hold or open it',
    body: schema.StatusBody,
    apply: (ctx, shop, b) => shops.setOnHold(ctx, shop, b.onHold),
  });
  generalSetting(app, '/:shopId/settings/popup', {
    summary: 'Set the storefront popup',
    body: schema.PopupBody,
    apply: (ctx, shop, b) => shops.setPopup(ctx, shop, b.message),
  });
  generalSetting(app, '/:shopId/settings/terms', {
    summary: 'Set the terms of service',
    body: schema.TermsBody,
    apply: (ctx, shop, b) => shops.setTerms(ctx, shop, b.terms),
  });
  generalSetting(app, '/:shopId/settings/affiliate', {
    summary: 'Set the affiliate commission percentage',
    body: schema.AffiliateBody,
    apply: (ctx, shop, b) => shops.setAffiliatePercentage(ctx, shop, b.percentage),
  });
  generalSetting(app, '/:shopId/settings/invoices', {
    summary: 'Set how long pending invoices hold stock',
    body: schema.InvoicesBody,
    apply: (ctx, shop, b) => shops.setInvoiceLifetime(ctx, shop, b.lifetimeMinutes),
  });
  paymentSetting(app, '/:shopId/settings/payments/cryptocommerce', 'cryptocommerce');
  paymentSetting(app, '/:shopId/settings/payments/virtual-payments', 'virtual-payments');
  paymentSetting(app, '/:shopId/settings/payments/tipjar', 'tipjar');
  paymentSetting(app, '/:shopId/settings/payments/balance', 'balance');
  paymentSetting(app, '/:shopId/settings/payments/cardconnect', 'cardconnect');
  paymentSetting(app, '/:shopId/settings/payments/walletemail', 'walletemail');
  paymentSetting(app, '/:shopId/settings/payments/mobilecash', 'mobilecash');
  paymentSetting(app, '/:shopId/settings/payments/wallet-ff', 'wallet-ff');
  paymentSetting(app, '/:shopId/settings/payments/cardreader', 'cardreader');
};
