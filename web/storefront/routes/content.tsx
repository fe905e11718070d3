import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { NotFoundError } from '../../../src/http/errors.js';
import {
  announcementPage,
  faqsPage,
  feedbacksPage,
  listingPage,
  mainPage,
  sitemapEntries,
} from '../../../src/modules/storefront/index.js';
import { AnnouncementPage } from '../pages/announcement.js';
import { FaqPage } from '../pages/faq.js';
import { FeedbacksPage } from '../pages/feedbacks.js';
import { HomePage } from '../pages/home.js';
import { ProductPage } from '../pages/product.js';
import { TermsPage } from '../pages/terms.js';
import { shopRobotsTxt, sitemapXml } from '../seo.js';
import { detailsOf, serveCachedPage } from '../shop-scope.js';
import { canonicalUrl, FLOW_VARIANTS } from '../site.js';

/**
 * The pages every visitor sees alike (home, product, reviews, FAQ, terms, announcements): served
 * through the page cache. A malformed parameter (an over-long search, a damaged cursor) is a 400
 * page in the shop's design.
 */
const Path = Type.String({ minLength: 1, maxLength: 200 });
const optionalText = (max: number) => Type.Optional(Type.String({ maxLength: max }));

export const contentRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.db.kysely;
  const hide = { hide: true };

  app.get(
    '/',
    { schema: { ...hide, querystring: Type.Object({ q: optionalText(100), category: optionalText(20) }) } },
    async (request, reply) => {
      const site = request.site!;
      const category = Number(request.query.category);
      const query = { q: request.query.q, category: Number.isSafeInteger(category) ? category : undefined };
      return serveCachedPage(app, request, reply, query, async () => {
        const [page, faqs] = await Promise.all([mainPage(db, site.shop), faqsPage(db, site.shop)]);
        return <HomePage site={site} page={page} faqs={faqs.faqs} query={query} />;
      });
    },
  );

  // A product's page, and its embed page (framed by another site's buy button, assets/embed.js).
  for (const [prefix, embed] of FLOW_VARIANTS) {
    app.get(
      `${prefix}/products/:path`,
      {
        config: { storefrontEmbed: embed },
        schema: {
          ...hide,
          params: Type.Object({ shop: Type.String(), path: Path }),
          querystring: Type.Object({ ref: optionalText(64) }),
        },
      },
      async (request, reply) => {
        const site = request.site!;
        return serveCachedPage(app, request, reply, { ref: request.query.ref }, async () => (
          <ProductPage
            site={site}
            data={await listingPage(db, site.shop, request.params.path)}
            ref={request.query.ref}
          />
        ));
      },
    );
  }

  app.get(
    '/feedbacks',
    { schema: { ...hide, querystring: Type.Object({ cursor: optionalText(200) }) } },
    async (request, reply) => {
      const site = request.site!;
      return serveCachedPage(app, request, reply, { cursor: request.query.cursor }, async () => {
        const data = await feedbacksPage(db, site.shop, { pageNumber: 1, pageSize: 20, cursor: request.query.cursor });
        return <FeedbacksPage site={site} data={data} />;
      });
    },
  );

  app.get('/faq', { schema: hide }, async (request, reply) => {
    const site = request.site!;
    return serveCachedPage(app, request, reply, {}, async () => (
      <FaqPage site={site} data={await faqsPage(db, site.shop)} />
    ));
  });

  app.get('/terms', { schema: hide }, async (request, reply) => {
    const site = request.site!;
    return serveCachedPage(app, request, reply, {}, async () => {
      const details = await detailsOf(app, site);
      if (!details.terms) throw new NotFoundError('Terms');
      return <TermsPage site={site} details={details} />;
    });
  });

  app.get(
    '/announcements/:path',
    { schema: { ...hide, params: Type.Object({ shop: Type.String(), path: Path }) } },
    async (request, reply) => {
      const site = request.site!;
      return serveCachedPage(app, request, reply, {}, async () => (
        <AnnouncementPage site={site} data={await announcementPage(db, site.shop, request.params.path)} />
      ));
    },
  );

  // For search engines: every page meant to be found, at the shop's canonical address.
  app.get('/sitemap.xml', { schema: hide }, async (request, reply) => {
    const site = request.site!;
    const entries = await sitemapEntries(db, site.shop);
    const paths: `/${string}`[] = [
      '/',
      ...entries.listingPaths.map((path) => `/products/${encodeURIComponent(path)}` as const),
      ...entries.announcementPaths.map((path) => `/announcements/${encodeURIComponent(path)}` as const),
      ...(entries.reviews ? (['/feedbacks'] as const) : []),
      '/faq',
      ...(entries.terms ? (['/terms'] as const) : []),
    ];
    return reply
      .type('application/xml; charset=utf-8')
      .header('cache-control', 'public, max-age=3600')
      .send(sitemapXml(paths.map((path) => canonicalUrl(site, path))));
  });

  // Answered also while the shop is password-protected: then it keeps every crawler out.
  app.get('/robots.txt', { schema: hide, config: { storefrontOpen: true } }, async (request, reply) => {
    const site = request.site!;
    return reply
      .type('text/plain; charset=utf-8')
      .header('cache-control', 'public, max-age=3600')
      .send(shopRobotsTxt(site, site.shop.password_hash !== null));
  });
};
