import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { withMultipartBody } from './uploads.js';

/**
 * The OpenAPI document is generated from the same TypeBox schemas that validate requests and
 * serialise responses. Choices the contract leaves open are written down here.
 */
const description = `
shopd runs online shops that sell digital goods. Owner paths live under \`/self\` and need an API
key; public storefront paths live under \`/v2/public\` and need none.

**Authentication.** \`Authorization: Bearer <key>\` (the bare key is accepted too). Missing or
unknown key: 401. A shop of another account: 404, as for one that does not exist. A read-only
key on a mutating call: 403.

**Envelope.** Every JSON answer is \`{ data, message, errors, code }\`. Success is HTTP 200 (creates
too) with \`message: "OK"\`, \`errors: []\`, \`code: "ok"\`. Errors carry \`data: null\`, a sentence in
\`message\`, one \`"<field path>: <what is wrong>"\` string per problem in \`errors\` and a stable \`code\`:
validation_error (400), unauthorized (401), forbidden / shop_locked (403), not_found (404),
conflict (409), payload_too_large (413), unsupported_media_type (415), unprocessable (422),
rate_limited (429, with Retry-After), internal_error (500), service_unavailable (503, /health).

**Validation.** Unknown body fields are ignored; known ones are validated strictly (a number sent
as a string is a 400 — bodies are never coerced). Path and query parameters are coerced from text.
Ids are positive 32-bit integers: anything else is a 400. JSON bodies up to 1 MiB by default.

**Partial updates.** Settings bodies name the fields they change; in payment settings an omitted
field keeps its value and \`null\` clears it. Free texts set to \`null\` or empty are cleared.

**Lists.** \`pageNumber\` (1-based), \`pageSize\` (default 20, max 100), \`searchString\`; unbounded lists
also take an opaque keyset \`cursor\` and answer \`nextCursor\`. Newest first, id as tie-break.

**Money** is a decimal number in the major unit paired with an ISO 4217 currency, stored as
integer minor units. **Time** is ISO 8601 UTC.

**Idempotency.** Calls marked with an \`idempotency-key\` header answer a retry with the same key
and request within 24 h with the first response (header \`idempotent-replayed: true\`) and act
once; the same key with another request, or while the first is still running, is a 409 (with
\`Retry-After\`). Server errors (5xx) are not remembered, so a retry after one acts again. A first
request that never answered (the server stopped mid-request) holds its key only for a lease of
25 × DYNAMIC_DELIVERY_TIMEOUT_MS + 60 s (about 5 minutes by default); the next retry then acts.

**Rate limits.** Per API key on owner paths and per client IP on public ones, with
RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset headers.
`.trim();

export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'shopd', version: '0.1.0', description },
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'An API key from `shopd keys create`; the bare key without "Bearer" is accepted too.' },
        },
      },
    },
    transform: ({ schema, url }) => {
      // Owner routes need the key; public and system routes do not.
      const security = url.startsWith('/self') ? [{ apiKey: [] }] : [];
      return { schema: { ...withMultipartBody(schema), security } as typeof schema, url };
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: true } });
}
