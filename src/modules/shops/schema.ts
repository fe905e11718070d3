import { type Static, Type } from '@sinclair/typebox';
import { NonBlankText, Nullable, StringEnum, Timestamp } from '../../schemas/common.js';
import { LOCALES } from '../../shared/locales.js';

export const Shop = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  subdomain: Type.String(),
  customDomain: Nullable(
    Type.String({
      description: "The owner's own host for the storefront (`settings/domain`), lower-case; null when unset.",
    }),
  ),
  domainVerification: Nullable(
    Type.Object(
      {
        record: Type.String({ description: 'The name of the DNS record to create: `_shopd-verify.<customDomain>`.' }),
        type: Type.Literal('TXT'),
        value: Nullable(
          Type.String({
            description:
              'What the TXT record must hold: the token of this shop and domain (new whenever the domain changes). Null ' +
              'for a domain set before verification existed: set the domain again to get one.',
          }),
        ),
        verified: Type.Boolean({
          description:
            'Whether the record was found. Until then /tls-ask refuses the domain, so the reverse proxy obtains no ' +
            'certificate for it. It is checked when the proxy asks and with `POST settings/domain/verify`.',
        }),
        verifiedAt: Nullable(Timestamp),
      },
      {
        description:
          "How to prove the custom domain is the owner's: a DNS TXT record at `record` holding `value`. Null without a " +
          'custom domain.',
      },
    ),
  ),
  storefrontUrl: Type.String({
    description:
      "The storefront's absolute address, the base of every link shopd writes for the shop: `https://{customDomain}` when set " +
      "(the scheme of the server's PUBLIC_URL), else `{subdomain}.{STOREFRONT_DOMAIN}` when the server has one, else " +
      '`{PUBLIC_URL}/s/{subdomain}`.',
  }),
  currency: Type.String({ description: 'ISO 4217 code; every price of the shop is in it.' }),
  onHold: Type.Boolean({ description: 'An on-hold shop shows its pages but refuses checkout (422).' }),
  popup: Nullable(Type.String()),
  terms: Nullable(Type.String()),
  utcTimezoneOffset: Type.Integer({
    description:
      "Minutes east of UTC now: the shop's fixed offset, or its time zone's at the time of the answer (it changes with daylight saving).",
  }),
  timezone: Nullable(
    Type.String({
      description:
        "Beyond the seed. The shop's IANA time zone (`Europe/Berlin`): dashboards, date filters, the storefront's and the mails' dates " +
        'and the admin count days and hours on it, daylight saving included; null: on the fixed `utcTimezoneOffset`.',
    }),
  ),
  passwordProtected: Type.Boolean(),
  affiliatePercentage: Type.Number({ description: 'Commission paid to referrers on completed orders; 0 = off.' }),
  invoiceLifetimeMinutes: Type.Integer({ description: 'How long a pending invoice holds its stock.' }),
  language: StringEnum([...LOCALES], {
    description:
      "The storefront's and the buyers' mails' language when the buyer's is not known: a buyer's page is in the " +
      "language they chose with the storefront's switcher, else the first of their browser's `Accept-Language` " +
      'the storefront has, else this one; their mails are in the language they ordered in. Beyond the seed.',
  }),
  createdAt: Timestamp,
});
export type Shop = Static<typeof Shop>;

/** An item of `GET /self/shops`: the shop, and the same shop again under `shop`, as the original SDKs read it. */
export const ShopListItem = Type.Composite([
  Shop,
  Type.Object({
    shop: Type.Object(Shop.properties, {
      description: 'The same shop again, nested: the original clients read `shops[i].shop.id`.',
    }),
  }),
]);

export const ShopName = NonBlankText({ maxLength: 64, description: 'The shop name, 1–64 characters.' });
export const CreateShopBody = Type.Object({ name: ShopName });
