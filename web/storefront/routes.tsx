import fastifyCookie from '@fastify/cookie';
import fastifyCsrf from '@fastify/csrf-protection';
import fastifyFormbody from '@fastify/formbody';
import type { FastifyError, FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { retryAfterSeconds } from '../../src/db/storage-health.js';
import { AppError, ValidationError } from '../../src/http/errors.js';
import { recordVisit } from '../../src/modules/analytics/index.js';
import { keyOpens, UnlockedKeys } from '../../src/modules/storefront/index.js';
import { isLocale, LOCALES } from '../../src/shared/locales.js';
import { storefrontAssetRoutes } from './assets.js';
import { csrfBinding, formToken } from './form.js';
import { LANGUAGE_COOKIE, requestLang } from './i18n.js';
import { PasswordPage } from './pages/password.js';
import { ProblemPage } from './pages/problem.js';
import { sendPage } from './render.js';
import { accountRoutes } from './routes/account.js';
import { cartRoutes } from './routes/cart.js';
import { contentRoutes } from './routes/content.js';
import { operatorRoutes } from './routes/operator.js';
import { orderRoutes } from './routes/orders.js';
import { supportRoutes } from './routes/support.js';
import { detailsOf, findSiteShop, isUnlocked, siteOf, unlockCookieName, unlockToken } from './shop-scope.js';
import { href, type Site } from './site.js';

/**
 * The web storefront: server-rendered pages at `/s/{subdomain}/…` (and at `/` of a storefront
 * host, see addressing.ts). Every page works without script; forms post
 * `application/x-www-form-urlencoded` and carry a CSRF token (double-submit cookie, from
 * @fastify/csrf-protection). The pages are views over the same services as the public JSON API.
 */
export const storefrontWebRoutes: FastifyPluginAsync = async (app) => {
  await app.register(storefrontAssetRoutes);
  await app.register(operatorRoutes);
  await app.register(
    async (scope) => {
      await scope.register(fastifyCookie);
      await scope.register(fastifyFormbody, { bodyLimit: 64 * 1024 });
      await scope.register(fastifyCsrf, {
        cookieKey: 'shopd_csrf',
        cookieOpts: { path: '/', sameSite: 'lax', httpOnly: true, secure: app.config.publicUrl.startsWith('https:') },
        getToken: (request) => (request.body as { _csrf?: string } | undefined)?._csrf,
        // Each token is bound to its shop (form.ts csrfBinding) and signed with a key of the server's.
        getUserInfo: csrfBinding,
        csrfOpts: { userInfo: true, hmacKey: app.secrets.deriveKey('storefront-csrf') },
      });
      scope.decorateRequest('site', null);
      scope.decorateRequest('lang', null);
      // Every storefront route is a public one: limited per client IP whatever `Authorization` says.
      scope.addHook('onRoute', (route) => {
        route.config = { ...route.config, public: true };
      });

      // The shop first: an unknown address is the bare 404 page; a locked shop shows its prompt.
      scope.addHook('preHandler', async (request, reply) => {
        // Before anything reads the input: PostgreSQL cannot store or compare text with a NUL.
        refuseNul(request, ['params']);
        // A bare read (the invoice status poll) answers from its own capability, without the shop.
        if (request.routeOptions.config.storefrontBare && request.method === 'GET') return;
        const shop = await findSiteShop(app, (request.params as { shop: string }).shop);
        if (!shop) return notFound(app, request, reply);
        const site = siteOf(request, shop);
        request.site = site;
        request.lang = requestLang(request, shop);
        // Its page in the shop's design, so the buyer can go back to the form.
        refuseNul(request, ['query', 'body']);
        const embed = request.routeOptions.config.storefrontEmbed === true;
        // An embed page takes no cookie's word: a private shop is bought on its own site only.
        if (embed && shop.password_hash !== null) {
          const { t } = request.lang;
          return sendPage(
            reply,
            <ProblemPage
              site={site}
              details={await detailsOf(app, site)}
              status={403}
              title={t('embed.privateTitle')}
              message={t('embed.private')}
            />,
            { status: 403, private: true },
          );
        }
        if (!request.routeOptions.config.storefrontOpen && !isUnlocked(app, request, shop)) {
          return sendPage(
            reply,
            <PasswordPage
              site={site}
              details={await detailsOf(app, site)}
              next={nextOf(request)}
              csrf={formToken(reply)}
            />,
            { status: 401, private: true },
          );
        }
        if (request.method === 'POST' && !request.routeOptions.config.storefrontReadOnly && !embed) {
          // The library answers a missing or wrong token itself (403, through the error handler below).
          let passed = false;
          scope.csrfProtection(request, reply, () => {
            passed = true;
          });
          if (!passed) return reply;
        }
      });
      // A shop page a buyer saw counts as a visit, as the JSON pages do (fire-and-forget).
      scope.addHook('onResponse', async (request, reply) => {
        if (request.method !== 'GET' || reply.statusCode !== 200 || !request.site) return;
        // A buyer's own pages (an invoice, a ticket, the account) are no page of the shop's analytics.
        if (String(reply.getHeader('cache-control') ?? '').includes('no-store')) return;
        const userAgent = request.headers['user-agent'];
        const path = request.url.split('?')[0]!.replace(/^\/s\/[^/]+/, '') || '/';
        recordVisit(app, {
          shopId: request.site.shop.id,
          page: path,
          ip: request.ip ?? null,
          userAgent: typeof userAgent === 'string' ? userAgent : null,
        });
      });
      scope.setNotFoundHandler(async (request, reply) => notFound(app, request, reply));
      scope.setErrorHandler(async (error: FastifyError, request, reply) => problem(app, error, request, reply));

      // The language switcher: remembers the buyer's choice (a cookie for a year) and goes back to the page.
      scope.get<{ Querystring: { to?: string; next?: string } }>(
        '/language',
        { config: { storefrontOpen: true }, schema: { hide: true } },
        async (request, reply) => {
          const site = request.site!;
          const to = request.query.to;
          if (!isLocale(to)) throw new ValidationError([`to: must be one of ${LOCALES.join(', ')}`]);
          void reply.setCookie(LANGUAGE_COOKIE, to, {
            path: '/',
            sameSite: 'lax',
            httpOnly: true,
            secure: app.config.publicUrl.startsWith('https:'),
            maxAge: 365 * 24 * 3600,
          });
          return reply.header('cache-control', 'no-store').redirect(safeNext(site, request.query.next), 303);
        },
      );

      const unlocked = new UnlockedKeys();
      scope.post<{ Body: { password?: string; next?: string } }>(
        '/unlock',
        { config: { storefrontOpen: true }, schema: { hide: true } },
        async (request, reply) => {
          const site = request.site!;
          const password = typeof request.body?.password === 'string' ? request.body.password : '';
          const next = safeNext(site, request.body?.next);
          if (site.shop.password_hash === null) return reply.redirect(next, 303);
          const guesser = { limits: app.passwordGuesses, ip: request.ip };
          if (!(await keyOpens(site.shop.password_hash, password.slice(0, 128), site.shop.id, unlocked, guesser))) {
            return sendPage(
              reply,
              <PasswordPage
                site={site}
                details={await detailsOf(app, site)}
                next={next}
                csrf={formToken(reply)}
                error={request.lang!.t('password.wrong')}
              />,
              { status: 401, private: true },
            );
          }
          void reply.setCookie(unlockCookieName(site.shop.id), unlockToken(app, site.shop), {
            path: site.base || '/',
            httpOnly: true,
            sameSite: 'lax',
            secure: app.config.publicUrl.startsWith('https:'),
          });
          return reply.redirect(next, 303);
        },
      );

      await scope.register(contentRoutes);
      await scope.register(orderRoutes);
      await scope.register(cartRoutes);
      await scope.register(supportRoutes);
      await scope.register(accountRoutes);
    },
    { prefix: '/s/:shop' },
  );
};

/**
 * A NUL character (U+0000) in any form field, query value or address segment is a 400 page that
 * names the field, before a service sees the input: PostgreSQL cannot store it in text (a ticket,
 * a reply, a review comment would fail as a 500 there) and SQLite would store what no other engine
 * can. The JSON API refuses it in its schemas (src/http/validation.ts); these pages read their
 * input by hand, so the rule is applied here once for all of them.
 */
function refuseNul(request: FastifyRequest, parts: ('params' | 'query' | 'body')[]): void {
  for (const part of parts) {
    const values = request[part];
    if (values === null || typeof values !== 'object') continue;
    for (const [name, value] of Object.entries(values as Record<string, unknown>)) {
      const texts = Array.isArray(value) ? value : [value];
      if (!name.includes('\u0000') && !texts.some((text) => typeof text === 'string' && text.includes('\u0000')))
        continue;
      const field = name.replaceAll('\u0000', '');
      throw new ValidationError(
        [`${part === 'body' ? '' : `${part}.`}${field}: must not contain NUL characters`],
        (request.lang ?? requestLang(request)).t('error.nul', { field }),
      );
    }
  }
}

/** Where the prompt sends the buyer back to: the page they asked for, never another site. */
function nextOf(request: FastifyRequest): string {
  const site = request.site!;
  if (request.method !== 'GET') return href(site, '/');
  const path = request.url.replace(/^\/s\/[^/?]+/, '');
  return `${site.base}${path.startsWith('/') ? path : `/${path}`}`;
}

function safeNext(site: Site, next: unknown): string {
  const home = href(site, '/');
  // A path of this shop only: no scheme, no host, no control characters a browser would drop.
  if (typeof next !== 'string' || !/^\/(?![/\\])[\x21-\x7e]*$/.test(next)) return home;
  const parsed = new URL(next, 'http://shop.invalid');
  if (parsed.origin !== 'http://shop.invalid') return home;
  if (site.base && parsed.pathname !== site.base && !parsed.pathname.startsWith(`${site.base}/`)) return home;
  return `${parsed.pathname}${parsed.search}`;
}

async function notFound(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply) {
  const site = request.site ?? undefined;
  const { t } = request.lang ?? requestLang(request);
  const details = site ? await detailsOf(app, site) : undefined;
  return sendPage(
    reply,
    <ProblemPage
      site={site}
      details={details}
      status={404}
      title={t('notFound.title')}
      message={site ? t('notFound.inShop') : t('notFound.noShop')}
    />,
    { status: 404, private: true },
  );
}

/**
 * Errors as pages in the shop's design. A 4xx of the services (a product that does not exist, a
 * bad parameter, a refused CSRF token) says what went wrong; anything else is logged and shown as
 * a generic 500 that reveals nothing.
 */
async function problem(app: FastifyInstance, error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  let status = error instanceof AppError ? error.statusCode : (error.statusCode ?? 500);
  if (status === 404) return notFound(app, request, reply);
  const site = request.site ?? undefined;
  const { t } = request.lang ?? requestLang(request);
  let details: Awaited<ReturnType<typeof detailsOf>> | undefined;
  if (site) details = await detailsOf(app, site).catch(() => undefined);
  // The database's storage failing (storage-health.ts) is a 503 the buyer may retry, logged once when it starts.
  const storage = app.db.health.report(error);
  if (storage) status = 503;
  else if (status >= 500) request.log.error({ err: error }, 'storefront page failed');
  if (storage) void reply.header('retry-after', String(retryAfterSeconds[storage.cause]));
  const message =
    error.code === 'FST_CSRF_INVALID_TOKEN' || error.code === 'FST_CSRF_MISSING_SECRET'
      ? t('error.expiredForm')
      : storage
        ? t('error.storage')
        : status >= 500
          ? t('error.server')
          : error.message;
  return sendPage(
    reply,
    <ProblemPage
      site={site}
      details={details}
      status={status >= 400 && status < 600 ? status : 500}
      title={t(storage ? 'error.title.storage' : status >= 500 ? 'error.title.server' : 'error.title.refused')}
      message={message}
    />,
    { status: status >= 400 && status < 600 ? status : 500, private: true },
  );
}
