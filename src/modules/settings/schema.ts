import { type TSchema, Type } from '@sinclair/typebox';
import { Nullable, OptionalNullable, StringEnum } from '../../schemas/common.js';
import { currencyCodes } from '../../schemas/currencies.js';
import { rule } from '../../schemas/rules.js';
import { LOCALES } from '../../shared/locales.js';
import { BLOCK_VPN_DESCRIPTION } from '../blacklist/index.js';
import { Design } from '../design/index.js';
import { ShopProtection } from '../protection/index.js';
import {
  DOMAIN_PATTERN,
  DOMAIN_RULES,
  type PaymentProvider,
  paymentProviderNames,
  providerFields,
  reservedSubdomains,
  Shop,
  ShopName,
  SUBDOMAIN_PATTERN,
} from '../shops/index.js';

export const NameBody = Type.Object({ newName: ShopName });
export const SubdomainBody = Type.Object({
  newSubDomain: Type.String({
    pattern: `^(?!(?:${[...reservedSubdomains].join('|')})$)${SUBDOMAIN_PATTERN.slice(1)}`,
    description: `3–32 lower-case letters, digits and inner hyphens; unique across all shops (409). Reserved, refused: ${[...reservedSubdomains].join(', ')}.`,
    errorMessage: { pattern: 'must be 3–32 lower-case letters, digits and inner hyphens, and not a reserved word' },
  }),
});
export const DomainBody = Type.Object({
  domain: Nullable(
    Type.String({
      maxLength: 254,
      pattern: DOMAIN_PATTERN,
      description:
        'A hostname such as `shop.example.com`: dot-separated labels of letters, digits and inner hyphens, either case, with an ' +
        'optional trailing dot; unique across all shops (409). null clears it.',
      errorMessage: { pattern: 'must be a hostname such as shop.example.com' },
      ...rule(DOMAIN_RULES),
    }),
  ),
});
export const CurrencyBody = Type.Object({
  currency: StringEnum(currencyCodes as [string, ...string[]], {
    description: 'An ISO 4217 code of money a shop can price in. Prices keep their major-unit numbers.',
  }),
});
export const PasswordBody = Type.Object({
  password: Nullable(
    Type.String({
      minLength: 8,
      maxLength: 128,
      description:
        'Storefront password, 8–128 characters (the contract allowed 4: a password set before keeps working, a new one ' +
        'needs 8, since a short one is guessed quickly even at 10 tries per client per 15 minutes); null removes it. ' +
        'Stored as a scrypt hash. Wrong passwords are limited per shop: 10 per client and 100 over all clients per 15 ' +
        'minutes, then 429 with `Retry-After`; buyers who have unlocked the shop are not asked again.',
    }),
  ),
});
export const TimezoneBody = Type.Object(
  {
    timezone: OptionalNullable(
      Type.String({
        minLength: 1,
        maxLength: 64,
        pattern: '^[A-Za-z][A-Za-z0-9_+/-]*$',
        description:
          'Beyond the seed. An IANA time zone (`Europe/Berlin`, `America/New_York`, `UTC`): days, dates and dashboards follow ' +
          'its daylight saving, so a day there may last 23 or 25 hours. Stored as the time zone list spells it; `utcTimezoneOffset` ' +
          "then reads the zone's offset at the time asked. Null or omitted: the fixed `utcTimezoneOffset` of this body.",
        ...rule('a time zone this server knows, by its IANA name with a slash or `UTC` (400 otherwise)'),
      }),
    ),
    utcTimezoneOffset: Type.Optional(
      Type.Integer({
        minimum: -720,
        maximum: 840,
        description: "Minutes east of UTC, all year round (no daylight saving). The original API's setting.",
      }),
    ),
  },
  {
    description:
      "The shop's clock: an IANA `timezone`, or a fixed `utcTimezoneOffset` (exactly one of them; 400 otherwise). Dashboards " +
      "count by local day: after a change the shop's rollups are rebuilt in the new days in the background, in short " +
      'batches; meanwhile the dashboards say `rollupsRebuilding: true`.',
    ...rule(
      'exactly one of `timezone` (not null) and `utcTimezoneOffset` (400 naming the other, or `utcTimezoneOffset` when neither)',
    ),
  },
);
export const LanguageBody = Type.Object({
  language: StringEnum([...LOCALES], {
    description:
      "The shop's default language (`en` English, `de` German): its storefront's for buyers whose browser asks for " +
      "none the storefront has, and its mails' for orders and tickets placed that way.",
  }),
});
export const StatusBody = Type.Object({ onHold: Type.Boolean() });
export const PopupBody = Type.Object({
  message: Nullable(Type.String({ maxLength: 2000, description: 'null or empty clears.' })),
});
export const TermsBody = Type.Object({
  terms: Nullable(Type.String({ maxLength: 50000, description: 'null or empty clears.' })),
});
export const AffiliateBody = Type.Object({
  percentage: Type.Number({
    minimum: 0,
    maximum: 100,
    multipleOf: 0.01,
    description: '0–100 with at most 2 decimals; 0 turns commissions off.',
    errorMessage: { multipleOf: 'must have at most 2 decimals' },
  }),
});
export const InvoicesBody = Type.Object({
  lifetimeMinutes: Type.Integer({ minimum: 5, maximum: 10080, description: 'Default 60.' }),
});

const GatewayRules = Type.Object({ blockVpn: Type.Boolean({ description: BLOCK_VPN_DESCRIPTION }) });

const SECRET_INPUT =
  'The secret itself; stored encrypted. The masked value as read (`••••1234`, or `••••unreadable`) keeps the stored ' +
  'secret, so a GET view sent back unchanged changes nothing; any other value starting with • is a 400.';

/** PUT body of one provider: every field optional (omitted keeps, null clears). */
export function paymentBodySchema(provider: PaymentProvider): TSchema {
  const props: Record<string, TSchema> = {
    enabled: OptionalNullable(Type.Boolean({ description: 'null or omitted keeps the current value.' })),
    gatewayRules: OptionalNullable(
      Type.Object({
        blockVpn: OptionalNullable(Type.Boolean({ description: `${BLOCK_VPN_DESCRIPTION} null or omitted keeps it.` })),
      }),
    ),
  };
  for (const [name, spec] of providerFields(provider)) {
    props[name] = Type.Optional(Nullable(spec.secret ? { ...spec.schema, description: SECRET_INPUT } : spec.schema));
  }
  return Type.Object(props, {
    description:
      'Partial update: omitted fields keep their value, null clears one. Enabling needs every required field set. ' +
      'When the stored secrets cannot be read (`secretsUnreadable`), leaving them out keeps them sealed as they are ' +
      '(they work again once the server has its old key back); replacing them needs every secret field of the provider ' +
      '(a value, or null to clear it) — giving only some is a 409 naming the others, and so is enabling the provider without them.',
  });
}

/** Masked read view of one provider: secrets appear as `••••1234`. */
export function paymentViewSchema(provider: PaymentProvider): TSchema {
  const props: Record<string, TSchema> = {
    enabled: Type.Boolean(),
    configured: Type.Boolean({ description: 'Every required field is set (and its secrets can be read).' }),
    secretsUnreadable: Type.Boolean({
      description:
        "The stored secrets cannot be opened with the server's key (SECRET_KEY or DATA_DIR/secret.key was changed or lost): " +
        'each secret field reads `••••unreadable`. Enter them again (a PUT giving every secret field), or have the operator ' +
        'restore the old key or run `shopd secrets rotate`.',
    }),
    gatewayRules: GatewayRules,
  };
  for (const [name, spec] of providerFields(provider)) {
    props[name] = Nullable(
      Type.String(
        spec.secret
          ? {
              description:
                'Masked: `••••` and the last four characters (none of a short secret); `••••unreadable` when `secretsUnreadable`.',
            }
          : {},
      ),
    );
  }
  return Type.Object(props);
}

export const Payments = Type.Object(Object.fromEntries(paymentProviderNames.map((p) => [p, paymentViewSchema(p)])));

export const Settings = Type.Composite([
  Shop,
  Type.Object({ payments: Payments, design: Design, protection: ShopProtection }),
]);
