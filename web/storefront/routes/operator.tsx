import type { FastifyPluginAsync } from 'fastify';
import { storefrontBase } from '../../../src/http/storefront-url.js';
import { shopDirectory } from '../../../src/modules/shops/index.js';
import { OperatorPage } from '../pages/operator.js';
import { sendPage } from '../render.js';

/** How many shops the operator's page names, newest first. */
const LISTED = 50;

/**
 * `/` of the operator's own host (PUBLIC_URL's, ADMIN_HOSTS, an address): a shop's host never gets
 * here, its `/` is rewritten to its storefront (addressing.ts).
 */
export const operatorRoutes: FastifyPluginAsync = async (app) => {
  const config = app.config;
  app.get('/', { schema: { hide: true }, config: { public: true } }, async (_request, reply) => {
    let shops = null;
    if (config.rootPageShops) {
      const { shops: rows, total } = await shopDirectory(app.db.kysely, LISTED);
      const listed = rows.map((row) => {
        // Same host as this page when the shop lives under `/s/…` of it; its own address otherwise.
        const base = storefrontBase(config, { subdomain: row.subdomain, customDomain: row.custom_domain });
        const url = base.startsWith(`${config.publicUrl}/`) ? `${base.slice(config.publicUrl.length)}/` : `${base}/`;
        return { name: row.name, url };
      });
      shops = { listed, total };
    }
    void reply.header('cache-control', 'no-cache');
    return sendPage(reply, <OperatorPage shops={shops} />);
  });
};
