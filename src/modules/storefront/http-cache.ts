import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ShopRow } from '../shops/index.js';

/**
 * HTTP caching of the public pages: answers change whenever the catalog does, so caches must
 * revalidate every time (max-age=0), which a strong ETag over the serialised body makes cheap:
 * a matching If-None-Match gets a bodyless 304. Pages of a password-protected shop are `private`
 * so a shared cache never hands them to someone without the key.
 */
export function cacheControlFor(shop: Pick<ShopRow, 'password_hash'>): string {
  return `${shop.password_hash === null ? 'public' : 'private'}, max-age=0, must-revalidate`;
}

export function etagOf(body: string | Buffer): string {
  return `"${createHash('sha256').update(body).digest('base64url')}"`;
}

/** If-None-Match uses the weak comparison (RFC 9110 13.1.2): `W/` prefixes are ignored, `*` matches anything. */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const candidate = tag.trim().replace(/^W\//, '');
    return candidate === '*' || candidate === etag;
  });
}

/** For an onSend hook: ETag on every 200, and a 304 without a body when the client already holds it (the payload to send). */
export function conditionalGet(request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
  if (reply.statusCode !== 200 || (typeof payload !== 'string' && !Buffer.isBuffer(payload))) return payload;
  // A page from the page cache already carries the ETag computed when it was stored.
  const etag = (reply.getHeader('etag') as string | undefined) ?? etagOf(payload);
  void reply.header('etag', etag);
  if (!matchesIfNoneMatch(request.headers['if-none-match'], etag)) return payload;
  void reply.code(304);
  reply.removeHeader('content-type');
  reply.removeHeader('content-length');
  return null;
}
