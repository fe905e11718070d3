import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { adminPagesOnOperatorHosts } from '../../src/http/admin-hosts.js';

/** Where `npm run build:admin` (run by `npm install`, and by `npm start` when it is missing) puts the admin. */
export const adminDist = join(import.meta.dirname, 'dist');

const YEAR = 365 * 24 * 60 * 60;

/**
 * The admin's page: scripts and styles from this origin only, no inline script, never framed
 * (clickjacking); it frames only the storefront's own pages (the design preview) and calls only
 * this origin's API.
 */
const securityHeaders = {
  'content-security-policy': [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob: https:",
    "connect-src 'self'",
    "frame-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "object-src 'none'",
  ].join('; '),
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
};

/**
 * Serves the owner's admin at `/admin`: the built files under `/admin/assets/` have hashed names
 * and are cached for a year; every other path under `/admin` is the single page app's
 * `index.html` (its router shows the screen), revalidated on every load so a new build is picked
 * up at once. Before a build exists, `/admin` says how to make one.
 */
export async function adminRoutes(app: FastifyInstance, options: { dist?: string } = {}): Promise<void> {
  const dist = options.dist ?? adminDist;
  const indexFile = join(dist, 'index.html');
  const built = existsSync(indexFile);
  if (built) {
    await app.register(fastifyStatic, {
      root: join(dist, 'assets'),
      prefix: '/admin/assets/',
      index: false,
      wildcard: true,
      cacheControl: false,
      setHeaders: (res) => {
        res.setHeader('cache-control', `public, max-age=${YEAR}, immutable`);
        res.setHeader('x-content-type-options', 'nosniff');
      },
    });
  }
  // Read once: a new build comes with a restart.
  const index = built ? readFileSync(indexFile) : null;
  const page = async (_request: unknown, reply: FastifyReply) => {
    if (!index) {
      return reply
        .status(503)
        .type('text/plain; charset=utf-8')
        .send(
          'The admin is not built yet: run `npm run build:admin` (npm install and npm start do it), then restart.\n',
        );
    }
    return reply
      .headers(securityHeaders)
      .header('cache-control', 'no-cache')
      .type('text/html; charset=utf-8')
      .send(index);
  };
  // Only on the operator's hosts (PUBLIC_URL's, ADMIN_HOSTS): never on a shop's subdomain or custom domain.
  const route = { schema: { hide: true }, config: { public: true }, onRequest: adminPagesOnOperatorHosts } as const;
  app.get('/admin', route, page);
  app.get('/admin/*', route, page);
}
