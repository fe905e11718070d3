import { type Static, Type } from '@sinclair/typebox';

/**
 * A shop's protection against abuse of its public flows. Every limit counts per client: an IPv4
 * address, an IPv6 /64 (src/http/client-net.ts), and, where the flow has them, the buyer's
 * e-mail address and customer. 0 turns a limit off.
 */
/** The largest value of a limit: enough for a bench or a flash sale, still a number every engine keeps. */
const MAX_LIMIT = 10_000_000;

export const ShopProtection = Type.Object({
  holdMinutesHosted: Type.Integer({
    minimum: 5,
    maximum: 10_080,
    description:
      'How long an unpaid card or crypto order holds its stock, in minutes (default 15; the invoice lifetime when that is ' +
      'shorter): its payment page closes then, and the order expires 10 minutes later, the time a payment made at the ' +
      'last moment takes to be reported; a page the provider keeps open longer (Stripe: 30 minutes at least) is closed at ' +
      'the provider once the order has expired. Orders paid by a manual method ' +
      '(tip jar, wallet e-mail, cashtag…) keep the invoice lifetime (`settings/invoices`), since their buyers pay by hand.',
  }),
  unitsPerClient: Type.Integer({
    minimum: 0,
    maximum: MAX_LIMIT,
    description:
      'Units of one product one client may hold in unpaid orders, a new order included (default 10; 0 = no limit). ' +
      'Past it, the checkout is a 422 naming the part.',
  }),
  pendingPerClient: Type.Integer({
    minimum: 0,
    maximum: MAX_LIMIT,
    description:
      'Unpaid orders one client may have open in this shop (default 3; 0 = no limit). Past it, the checkout is a 429 ' +
      "with `Retry-After` until the client's earliest pending order expires.",
  }),
  hostedCheckoutsPerHour: Type.Integer({
    minimum: 0,
    maximum: MAX_LIMIT,
    description:
      'Card and crypto checkouts one client may start per hour, whatever became of them (default 10; 0 = no limit): ' +
      'what stops card testing. Past it, the checkout is a 429 with `Retry-After`.',
  }),
  mailPerRecipientHour: Type.Integer({
    minimum: 0,
    maximum: MAX_LIMIT,
    description:
      'Mails this shop sends one address per hour (default 5; 0 = no limit). Over it a mail is recorded as suppressed.',
  }),
  mailPerClientHour: Type.Integer({
    minimum: 0,
    maximum: MAX_LIMIT,
    description: "Mails one client's actions may cause per hour (default 10; 0 = no limit).",
  }),
  mailPerShopDay: Type.Integer({
    minimum: 0,
    maximum: MAX_LIMIT,
    description: 'Mails this shop sends per day (default 2000; 0 = no limit).',
  }),
  disputeBlacklist: Type.Boolean({
    description: "Whether a payment dispute blacklists the order's e-mail address and IP in this shop (default false).",
  }),
  disputeAutoSubmit: Type.Boolean({
    description: "Whether a dispute's assembled evidence is submitted to the provider at once (default false).",
  }),
  challenge: Type.Union([Type.Literal('off'), Type.Literal('suspicious'), Type.Literal('always')], {
    description:
      'When a checkout, a support ticket or a customer sign-in code needs a solved proof-of-work challenge (ALTCHA, ' +
      'self-hosted: `GET /v2/public/shops/{shopId}/challenge`): `always`; `suspicious` (default) once the client took ' +
      '`challengeThreshold` of these actions in this shop in the last hour; `off` never. The storefront shows the ' +
      'challenge in the form (a browser solves it in a second or two, with JavaScript); the public API takes the ' +
      'solution in the `X-Altcha` header and answers 428 `challenge_required` without one.',
  }),
  challengeThreshold: Type.Integer({
    minimum: 1,
    maximum: MAX_LIMIT,
    description:
      "Checkouts, tickets and sign-in codes one client may ask for per hour without a challenge (default 5), when `challenge` is 'suspicious'.",
  }),
});
export type ShopProtection = Static<typeof ShopProtection>;

export const DEFAULT_PROTECTION: Readonly<ShopProtection> = Object.freeze({
  holdMinutesHosted: 15,
  unitsPerClient: 10,
  pendingPerClient: 3,
  hostedCheckoutsPerHour: 10,
  mailPerRecipientHour: 5,
  mailPerClientHour: 10,
  mailPerShopDay: 2000,
  disputeBlacklist: false,
  disputeAutoSubmit: false,
  challenge: 'suspicious',
  challengeThreshold: 5,
});

/** The body of `PUT settings/protection`: any of the settings, at least one. */
export const ProtectionBody = Type.Partial(ShopProtection, { minProperties: 1, additionalProperties: false });
export type ProtectionBody = Static<typeof ProtectionBody>;
