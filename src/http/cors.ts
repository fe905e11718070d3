import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

/**
 * CORS for the public API (`/v2/public/*`) only, so that a storefront served from another origin
 * can read the pages and check out from a browser. `CORS_ORIGINS` lists the origins allowed
 * (`config.corsOrigins`): `['*']` any, `[]` none — then nothing is registered and no answer
 * carries a CORS header. Owner paths never do: an API key has no business in a browser page.
 *
 * A request without an `Origin` header, or from an origin not listed, gets no CORS headers at all
 * (the browser then refuses to hand the answer to the page); its preflight is answered as any
 * other OPTIONS request (405 with `Allow`). Preflights of listed origins are answered 204 in the
 * `onRequest` hook, before anything else runs: no lookup, no page-cache work, nothing written.
 */
export async function registerPublicCors(scope: FastifyInstance, origins: readonly string[]): Promise<void> {
  if (origins.length === 0) return;
  const anyOrigin = origins.includes('*');
  await scope.register(cors, {
    origin: (origin, callback) => {
      if (origin === undefined) callback(null, false);
      else if (anyOrigin) callback(null, '*');
      else callback(null, origins.includes(origin) ? origin : false);
    },
    // DELETE and Authorization: the customer area signs out, and carries a buyer's session token (never an API key).
    methods: ['GET', 'HEAD', 'POST', 'DELETE'],
    allowedHeaders: ['content-type', 'idempotency-key', 'x-request-id', 'authorization', 'x-altcha'],
    exposedHeaders: [
      'etag',
      'x-request-id',
      'idempotent-replayed',
      'retry-after',
      'ratelimit-limit',
      'ratelimit-remaining',
      'ratelimit-reset',
    ],
    maxAge: 600,
    // An OPTIONS request of a listed origin without Access-Control-Request-Method is still a preflight, not a plain-text 400.
    strictPreflight: false,
  });
}
