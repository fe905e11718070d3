import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { OptionalKind } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { tagGroups, tags } from './openapi-tags.js';
import { withMultipartBody } from './uploads.js';

/**
 * The OpenAPI document is generated from the same TypeBox schemas that validate requests and
 * serialise responses. Choices the contract leaves open are written down here.
 */
const description = `
shopd runs online shops that sell digital goods. This document is the API reference: the
conventions below hold for every operation, each tag's description explains its resource, and each
operation and field states its own rules. Owner paths live under \`/self\` and need an API key or
the web admin's session; public storefront and checkout paths live under \`/v2/public\` and need
none.

## Authentication

\`Authorization: Bearer <key>\` (the bare key is accepted too); keys come from \`shopd keys create\`
or \`POST /self/keys\`. Missing or unknown key: 401. A shop of another account: 404, as for one that
does not exist. A key without the \`write\` scope on a mutating call, or without \`read\` on a read:
403.

The web admin signs in with e-mail and password instead (\`POST /self/session\`, see *Account*) and
is sent the \`shopd_session\` cookie (HttpOnly, SameSite=Strict), which opens every owner path with
both scopes when the request has no \`Authorization\` header. A session lasts 12 hours from its last
use, at most 7 days. Every call with the cookie other than GET, HEAD and OPTIONS must also send the
session's CSRF token as \`X-CSRF-Token\` (from \`POST\` or \`GET /self/session\`): missing or wrong,
403 \`forbidden\` and nothing changes. Calls with an API key need no CSRF token.

Public paths need no key. The customer area (\`/v2/public/shops/{shopId}/customer…\`) and a checkout
paid from the store balance take a buyer's session token the same way, \`Authorization: Bearer
<token>\`, from a code mailed to the buyer (see *Customer area*).

## Envelope and errors

Every JSON answer is \`{ data, message, errors, code }\`. Success is HTTP 200 (creates too) with
\`message: "OK"\`, \`errors: []\`, \`code: "ok"\`. Errors carry \`data: null\`, a sentence in \`message\`,
one \`"<field path>: <what is wrong>"\` string per problem in \`errors\` and a stable \`code\`:

| status | code |
|---|---|
| 400 | \`validation_error\` |
| 401 | \`unauthorized\` |
| 403 | \`forbidden\`; \`shop_locked\` (a storefront password is missing or wrong) |
| 404 | \`not_found\` (also an unknown path) |
| 405 | \`method_not_allowed\`: the path exists but not with this method; the \`Allow\` header lists the methods it answers (HEAD with every GET; OPTIONS is answered this way too) |
| 409 | \`conflict\` |
| 413 | \`payload_too_large\` |
| 415 | \`unsupported_media_type\` |
| 422 | \`unprocessable\` |
| 429 | \`rate_limited\`, with \`Retry-After\` |
| 500 | \`internal_error\` (its text is never shown) |
| 502 | \`payment_provider_error\`: a payment provider refused or did not answer a call shopd made for this request (starting a card or crypto payment, a refund); nothing was changed |
| 503 | \`service_unavailable\`: \`/health\` when the database does not answer; on SQLite, any call that found the database file locked by another process for over 5 s, with \`Retry-After\` — retry it |

## Validation

Unknown body fields are ignored; known ones are validated strictly (a number sent as a string is a
400 — bodies are never coerced). Path and query parameters are coerced from text. Ids are positive
32-bit integers in plain digits (\`0x1\`, \`1e0\`, \`1.0\` are 400s). An empty JSON body counts as no
body: a call whose body fields are all optional may omit it. JSON bodies up to 1 MiB by default.

No string (in a body, query, path or header such as \`Idempotency-Key\`) may contain U+0000 (NUL):
every string schema carries the pattern \`^[^\\x00]*$\`, and such a request is a 400
(\`"<field>: must not contain NUL characters"\`), the same on both database engines, nothing written.

## Null and partial updates

An optional request field also takes \`null\`, meaning the same as leaving it out (its default; on a
full PUT, "not set"), unless its description says otherwise (\`stock: null\` is unlimited). What a
GET answers can so be sent back as the PUT body, changed or not: read a product, change its title,
send it back.

Settings and design bodies are partial: they name the fields they change; an omitted field keeps
its value and \`null\` sets it back to its default (payment settings: clears it). Free texts set to
\`null\` or empty are cleared. Texts described as trimmed lose their surrounding whitespace and must
not be blank; their \`maxLength\` counts the text as sent.

## Rules beyond JSON Schema

This document is the validation: a request it allows is not refused with a 400, and one it does not
allow is. Rules that depend on the shop's data or tie two fields together are written as extension
keywords next to the field they concern, and are checked by the service (a 400 naming the field
unless the description says 404, 409 or 422):

- \`x-references: <kind>\` — the value must name an existing object of the shop (\`product\`;
  \`variant\` of the product in the path; \`publicProduct\`, one neither private nor internal, and
  \`publicVariant\`, a variant of it; \`listing\`; \`invoice\`; \`invoicePart\` of the invoice in the
  path; \`cursor\`, a \`nextCursor\` the list answered; \`currency\`, the shop's currency);
- \`x-minor-units\` — an amount with at most as many decimals as the shop currency's minor unit;
- \`x-at-least: <field>\` — not below (for dates: not before) that sibling field when both are set;
- \`x-unique-by: <property>\` — no two items share that property;
- \`x-alias-of: <field>\` — another spelling of that field, which must agree with it when both are
  given;
- \`x-rule\` — a further rule on the field, in words.

\`errorMessage\` gives the sentence a refused pattern answers (never the pattern itself).

## Lists and paging

\`pageNumber\` (1-based), \`pageSize\` (default 20, max 100), \`searchString\`; unbounded lists also take
an opaque keyset \`cursor\` and answer \`nextCursor\`. Newest first, id as tie-break, unless the
operation says otherwise. \`PageNumber\` and \`PageSize\`, as the original clients send them, are
accepted as deprecated aliases; giving both spellings with different values is a 400.

## Money

An amount is a decimal number in the major unit paired with an ISO 4217 currency, stored as integer
minor units. An amount with more decimals than the currency's minor unit (0.295 or 0.00000001 in
USD, 1.5 in JPY) is a 400 naming the field, never rounded; the decimals counted are those of the
number's shortest decimal form (9.99, 1e2 = 100). Percentages (coupon discounts, the affiliate
commission) take at most 2 decimals, the same way.

## Dates and times

Timestamps in answers are ISO 8601 UTC. Date filters and dates in bodies (\`fromDate\`/\`toDate\`,
coupon \`startDate\`/\`endDate\`) take a real date \`YYYY-MM-DD\` — the whole day in the shop's timezone
(\`settings/timezone\`) — or an ISO 8601 date-time; one without an offset is read in the shop's
timezone. Dates must be real: \`2026-02-29\` and \`0000-00-00\` are 400s.

## Idempotency

Creating a shop, checkout, processing or cancelling an invoice (owner), a replacement, and adding to
or removing from a customer's balance honour an \`Idempotency-Key\` header (marked on each of them). A retry with the
same key and request within 24 h is answered with the first response (header
\`idempotent-replayed: true\`) and acts once; the same key with another request is a 409, and so is a
retry while the first is still running (with \`Retry-After: 1\`). Server errors (5xx) are not
remembered, so a retry after one acts again — unless the work had committed before the error (a
database connection lost after the order was placed): then the retry is answered what it made, as below.

A first request that never answered (the server died mid-request) holds its key for a lease of
30 s, which a running request renews for as long as it runs; after it, the next retry gets one of
two answers, never the work done twice. The key is recorded in the same database transaction as
the work it guards: if that work committed (the order was placed, the invoice completed, the refund
held), the retry is answered what it made as it is now (the invoice, the shop, the balance) with
\`idempotent-replayed: true\`; if it did not, nothing of it was kept and the retry acts — exactly one
of several sent at once. A database failure (a full disk, an unreachable database) is a 503 with
\`Retry-After\`, after which a retry with the same key acts or is answered as above.

## Rate limits

Per API key (or web admin session) on owner paths and per client IP on public ones, with
\`RateLimit-Limit\`, \`RateLimit-Remaining\` and \`RateLimit-Reset\` headers; past the limit, 429
with \`Retry-After\`. A client (an IPv4 address, or an IPv6 /64) that presents too many unknown API
keys within the window (\`RATE_LIMIT_AUTH_FAILURES_MAX\`, 20 by default) gets 429 instead of 401 for
its unknown keys until the window ends (\`Retry-After\`); a valid key is never refused for it, and a
request without a key is not counted. Failed sign-ins to the web admin have limits of their own
(see *Account*).

## Request ids and logs

Every answer carries \`X-Request-Id\`: the one the request sent (up to 128 letters, digits and
\`. _ : -\`), or a new one. Secret query parameters (\`accessKey\`, \`key\`, \`token\`, \`password\`, …) are
written to the request log as \`[REDACTED]\`.
`.trim();

/**
 * A query parameter with a default is not required of the client, whatever the schema's
 * `required` says for the handler's sake: the validator fills it in before the handler runs
 * (pageNumber, pageSize).
 */
function withDefaultsOptional(schema: unknown): unknown {
  const object = schema as { properties?: Record<string, { default?: unknown }>; required?: string[] };
  if (!object.properties || !object.required) return schema;
  return { ...object, required: object.required.filter((name) => object.properties![name]?.default === undefined) };
}

/** Redoc and Scalar show the groups as sections (`x-tagGroups`); Swagger UI shows the tags in their order. */
const tagGroupsExtension = {
  'x-tagGroups': tagGroups.map((group) => ({ name: group.name, tags: group.tags.map((tag) => tag.name) })),
};

/** Marks, between `transform` and `transformObject`, an operation whose body may be left out. */
const OPTIONAL_BODY = 'x-shopd-optional-body';

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'shopd', version: '0.1.0', description },
      tags,
      ...tagGroupsExtension,
      components: {
        securitySchemes: {
          apiKey: {
            type: 'http',
            scheme: 'bearer',
            description: 'An API key from `shopd keys create`; the bare key without "Bearer" is accepted too.',
          },
          cookieAuth: {
            type: 'apiKey',
            in: 'cookie',
            name: 'shopd_session',
            description:
              "The web admin's session, from `POST /self/session` (see *Account*). Writes with it (anything but GET, HEAD, OPTIONS) also need the session's CSRF token in `X-CSRF-Token`; a request with an `Authorization` header is authenticated by its key instead.",
          },
          customerSession: {
            type: 'http',
            scheme: 'bearer',
            description:
              'A customer session token of one shop, from `POST /v2/public/shops/{shopId}/customer/session` (see *Customer area*).',
          },
        },
      },
    },
    transform: ({ schema, url, route }) => {
      // Owner routes need the key or the web admin's session; public routes (the sign-in among them) and system
      // routes do not, unless they name a customer session.
      const owner = url.startsWith('/self') && !route.config?.public;
      const security = owner ? [{ apiKey: [] }, { cookieAuth: [] }] : (schema?.security ?? []);
      const documented = { ...withMultipartBody(schema), security } as typeof schema & { querystring?: unknown };
      if (documented.querystring) documented.querystring = withDefaultsOptional(documented.querystring);
      // A body schema wrapped in Type.Optional: the request may have no body at all (transformObject below).
      const body = (schema as { body?: Record<symbol, unknown> } | undefined)?.body;
      if (body?.[OptionalKind] === 'Optional') (documented as Record<string, unknown>)[OPTIONAL_BODY] = true;
      return { schema: documented, url };
    },
    transformObject: (document) => {
      if (!('openapiObject' in document)) return document.swaggerObject;
      const { openapiObject } = document;
      for (const methods of Object.values(openapiObject.paths ?? {}))
        for (const operation of Object.values(methods as Record<string, Record<string, unknown>>)) {
          if (typeof operation !== 'object' || !operation || !(OPTIONAL_BODY in operation)) continue;
          delete operation[OPTIONAL_BODY];
          (operation.requestBody as { required: boolean }).required = false;
        }
      return openapiObject;
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: true } });
}
