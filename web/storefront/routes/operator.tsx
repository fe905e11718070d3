import type { FastifyPluginAsync } from 'fastify';
import { shopDirectory } from '../../../src/modules/shops/index.js';
import { OperatorPage } from '../pages/operator.js';
import { sendPage } from '../render.js';
import { BUYER_PATHS, canonicalBase } from '../seo.js';

/** How many shops the operator's page names, newest first. */
const LISTED = 50;
/** How many sitemaps of shops living under `/s/…` of this host its robots.txt names. */
const SITEMAPS = 1000;

/**
 * `/` and `/robots.txt` of the operator's own host (PUBLIC_URL's, ADMIN_HOSTS, an address): a
 * shop's host never gets here, its paths are rewritten to its storefront (addressing.ts).
 */
export const operatorRoutes: FastifyPluginAsync = async (app) => {
  const config = app.config;
  /** Shops by canonical address; `local` when it lives under `/s/…` of this host (then `url` is a path). */
  const directory = async (limit: number) => {
    const { shops, total } = await shopDirectory(app.db.kysely, limit);
    const listed = shops.map((row) => {
      const base = canonicalBase(config, row);
      const local = base.startsWith(`${config.publicUrl}/s/`);
      return { name: row.name, base, local, url: local ? `${base.slice(config.publicUrl.length)}/` : `${base}/` };
    });
    return { listed, total };
  };

  app.get('/', { schema: { hide: true }, config: { public: true } }, async (_request, reply) => {
    const shops = config.rootPageShops ? await directory(LISTED) : null;
    void reply.header('cache-control', 'no-cache');
    return sendPage(reply, <OperatorPage shops={shops} />);
  });

  // The service's own paths and the buyers' pages of the shops under `/s/` are off limits; those
  // shops' sitemaps are named here (with ROOT_PAGE_SHOPS), as robots.txt is read only at a host's root.
  app.get('/robots.txt', { schema: { hide: true }, config: { public: true } }, async (_request, reply) => {
    const lines = ['User-agent: *', 'Disallow: /admin/', 'Disallow: /self/', 'Disallow: /v2/'];
    for (const path of BUYER_PATHS) lines.push(`Disallow: /s/*${path}`);
    lines.push('');
    if (config.rootPageShops) {
      const { listed } = await directory(SITEMAPS);
      for (const shop of listed) if (shop.local) lines.push(`Sitemap: ${shop.base}/sitemap.xml`);
    }
    return reply
      .type('text/plain; charset=utf-8')
      .header('cache-control', 'public, max-age=3600')
      .send(`${lines.join('\n')}\n`);
  });
};
