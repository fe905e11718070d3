import type { FastifyRequest } from 'fastify';

/**
 * What the request log may say about a request. Secrets travel in some query strings (a
 * ticket's `accessKey`, the storefront password as `key`), and the URL is in every request's
 * log line: their values are replaced before anything is written. Names are compared without
 * regard to case, after %-decoding, as the query parser would read them.
 */
const SECRET_QUERY_PARAMETERS = new Set([
  'accesskey',
  'access_key',
  'access_token',
  'key',
  'apikey',
  'api_key',
  'token',
  'password',
  'secret',
  'signature',
  // An invoice id is the key to its page (the support form's `?invoice=`); an address is the buyer's.
  'invoice',
  'email',
]);

/**
 * Path segments that are capabilities: an invoice id opens the invoice's page and goods
 * (`/v2/public/invoices/{id}`, the storefront's `/s/{shop}/invoices/{id}`), a download token
 * an order's file (`/v2/public/shops/{shopId}/downloads/{token}`). Owner paths name the same
 * invoice ids (`/self/{shopId}/invoices/{id}/…`, the admin's `/admin/{shopId}/orders/{id}`):
 * they are hidden there as well, since a log is read by more people, and kept longer, than the
 * keys that guard those paths; the request id ties a log line to its invoice when needed.
 */
const SECRET_PATH = /(\/(?:invoices|downloads)\/)[^/?#]+/g;
const ADMIN_ORDER_PATH = /^(\/admin\/[^/?#]+\/orders\/)[^/?#]+/;

export const REDACTED = '[REDACTED]';

function decodeName(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' ')).toLowerCase();
  } catch {
    return raw.toLowerCase();
  }
}

/** The URL with secret path segments and the values of secret query parameters replaced; everything else as it came. */
export function redactUrl(raw: string): string {
  const url = redactPath(raw);
  const queryAt = url.indexOf('?');
  if (queryAt === -1) return url;
  const hashAt = url.indexOf('#', queryAt);
  const query = url.slice(queryAt + 1, hashAt === -1 ? undefined : hashAt);
  const redacted = query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq === -1 ? pair : pair.slice(0, eq);
      return SECRET_QUERY_PARAMETERS.has(decodeName(name)) && eq !== -1 ? `${name}=${REDACTED}` : pair;
    })
    .join('&');
  return `${url.slice(0, queryAt + 1)}${redacted}${hashAt === -1 ? '' : url.slice(hashAt)}`;
}

function redactPath(url: string): string {
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  const redacted = path.replace(SECRET_PATH, `$1${REDACTED}`).replace(ADMIN_ORDER_PATH, `$1${REDACTED}`);
  return redacted + (queryAt === -1 ? '' : url.slice(queryAt));
}

/** Fastify's own `req` serializer, with the URL redacted. */
export function serializeRequest(request: FastifyRequest) {
  return {
    method: request.method,
    url: redactUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}
