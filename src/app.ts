import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyServerOptions,
} from 'fastify';
import { Redis } from 'ioredis';
import type { Config } from './config.js';
import { type Db, openDatabase } from './db/database.js';
import { migrateToLatest } from './db/migrate.js';
import { type Clock, createContext } from './domain/context.js';
import { invoiceExpiryJob, paymentRemindersJob, sweepsJob } from './jobs/maintenance.js';
import { JobRunner } from './jobs/runner.js';
import {
  authenticateOwner,
  ownerSessionPublicRoutes,
  ownerSessionRoutes,
  registerOwnerCookies,
} from './modules/accounts/index.js';
import { loadOwnedShop, resolvePublicShopId } from './modules/shops/index.js';
import './context.js';
import { adminRoutes } from '../web/admin/serve.js';
import { storefrontRewrite, storefrontWebRoutes } from '../web/storefront/index.js';
import { ownerSessionsOnOperatorHosts } from './http/admin-hosts.js';
import { createPasswordGuessLimits } from './http/auth-failures.js';
import { registerBodyTimeout } from './http/body-timeout.js';
import { registerPublicCors } from './http/cors.js';
import { registerErrorHandling } from './http/error-handler.js';
import { ClaimLeases } from './http/idempotency.js';
import { registerOpenApi } from './http/openapi.js';
import { registerRateLimit } from './http/rate-limit.js';
import { logRedisOutages } from './http/redis-health.js';
import { serializeRequest } from './http/request-log.js';
import { reusedSerializers } from './http/serialization.js';
import { systemRoutes } from './http/system.routes.js';
import { registerUploads } from './http/uploads.js';
import { addSharedSchema, refuseNulInRequests, validatorCompiler } from './http/validation.js';
import { affiliateOwnerRoutes } from './modules/affiliates/index.js';
import { analyticsOwnerRoutes, startVisitRecorder } from './modules/analytics/index.js';
import { announcementOwnerRoutes } from './modules/announcements/index.js';
import { blacklistOwnerRoutes, loadVpnRanges } from './modules/blacklist/index.js';
import { categoryOwnerRoutes } from './modules/categories/index.js';
import { challengePublicRoutes, createChallengeGate } from './modules/challenge/index.js';
import { couponOwnerRoutes } from './modules/coupons/index.js';
import {
  createSignInLimits,
  customerSessionPublicRoutes,
  identifyCustomer,
} from './modules/customer-sessions/index.js';
import { customerOwnerRoutes } from './modules/customers/index.js';
import { dashboardOwnerRoutes } from './modules/dashboards/index.js';
import { designOwnerRoutes } from './modules/design/index.js';
import { disputeOwnerRoutes } from './modules/disputes/index.js';
import { faqOwnerRoutes } from './modules/faqs/index.js';
import { feedbackOwnerRoutes, feedbackPublicRoutes } from './modules/feedbacks/index.js';
import { createFileStore, fileDownloadRoutes, fileOwnerRoutes, fileUploadSweepJob } from './modules/files/index.js';
import { groupOwnerRoutes } from './modules/groups/index.js';
import { licenseCustomerRoutes, licenseOwnerRoutes, licensePublicRoutes } from './modules/licenses/index.js';
import { listingOwnerRoutes } from './modules/listings/index.js';
import { mailOutboxJob, mailOwnerRoutes } from './modules/mail/index.js';
import { metricsRoutes, registerMetrics } from './modules/metrics/index.js';
import { invoiceOwnerRoutes, invoicePublicRoutes, orderOptions } from './modules/orders/index.js';
import { paymentCallbackRoutes, paymentContext, paymentOwnerRoutes, paymentPort } from './modules/payments/index.js';
import { productOwnerRoutes } from './modules/products/index.js';
import { protectionOwnerRoutes } from './modules/protection/index.js';
import { resumeRollupRebuilds, stopRollupRebuilds } from './modules/rollups/index.js';
import { checkStoredSecrets } from './modules/secrets/index.js';
import { settingsOwnerRoutes, warnOfUnenforcedVpnRules } from './modules/settings/index.js';
import { shopOwnerRoutes, tlsAskRoutes } from './modules/shops/index.js';
import {
  invalidateAfterWrite,
  PageCache,
  registerPageCache,
  storefrontPublicRoutes,
} from './modules/storefront/index.js';
import { ticketOwnerRoutes, ticketPublicRoutes } from './modules/tickets/index.js';
import { webhookDeliveryJob, webhookOwnerRoutes } from './modules/webhooks/index.js';
import { ErrorEnvelope } from './schemas/common.js';
import { makePrivateDir, tightenDataModes } from './security/file-modes.js';
import { createSecretBox } from './security/secret-box.js';
import { createDiskStorage } from './storage/file-storage.js';
import { wireSubscribers } from './subscribers.js';

export interface BuildOptions {
  config: Config;
  /**
   * False silences the log; pino options (a level, a stream) are added to the app's own, so
   * every log keeps the redaction of secrets. Default: the configured level, on stdout.
   */
  logger?: false | PinoLoggerOptions;
  /** The clock every service reads; default the system's. Tests pass one they advance (test/helpers/clock.ts). */
  clock?: Clock;
}

type PinoLoggerOptions = Exclude<FastifyServerOptions['logger'], boolean | undefined>;

function loggerOptions(config: Config, given: BuildOptions['logger']): FastifyServerOptions['logger'] {
  if (given === false) return false;
  return {
    level: config.logLevel,
    redact: ['req.headers.authorization'],
    ...given,
    // Secret query parameters (ticket access keys, storefront passwords) never reach a log line.
    serializers: { ...given?.serializers, req: serializeRequest as never },
  };
}

/**
 * The Redis client, an accelerator (src/http/redis-health.ts). Commands fail at once while the
 * connection is down (no offline queue, no command retried across reconnections), and after
 * PROBE_TIMEOUT_MS when a connected Redis stops answering: each use then falls back, and no
 * request waits on a dead Redis. ioredis reconnects on its own; an outage is logged once when it
 * starts and once when it ends. The start waits for the first connection attempt to succeed or
 * fail (ioredis gives up an attempt after 10 s), so that a Redis that is up serves the first requests.
 */
async function connectRedis(url: string, commandTimeoutMs: number, log: FastifyBaseLogger): Promise<Redis> {
  const redis = new Redis(url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: commandTimeoutMs,
  });
  logRedisOutages(redis, log);
  await new Promise<void>((resolve) => {
    const settled = () => {
      redis.off('ready', settled).off('reconnecting', settled).off('end', settled);
      resolve();
    };
    redis.on('ready', settled).on('reconnecting', settled).on('end', settled);
  });
  return redis;
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** The one place the service is assembled; the server and every test build it this way. */
export async function buildApp(options: BuildOptions): Promise<FastifyInstance> {
  const { config } = options;
  // First: a bad ranges file stops the start before anything is opened.
  const vpnRanges = loadVpnRanges(config.vpnRangesFile);
  const app = Fastify({
    logger: loggerOptions(config, options.logger),
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustProxy as FastifyServerOptions['trustProxy'],
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    // Response serializers built once per schema in the process, not once per app (serialization.ts).
    schemaController: { compilersFactory: { buildSerializer: reusedSerializers } },
    // A storefront host (`{subdomain}.{STOREFRONT_DOMAIN}`, a custom domain) is served its shop's pages at `/`.
    rewriteUrl: storefrontRewrite(config),
    // Errors the router raises before any route runs (a malformed %-escape, an over-long path
    // segment) get the same envelope and request id as everything else.
    frameworkErrors: (error, request, reply) => {
      const problem =
        error.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? 'path: has a segment longer than 200 characters'
          : 'path: is not a valid URL';
      void (reply as FastifyReply)
        .status(400)
        .header('x-request-id', request.id)
        .send({ data: null, message: 'The request URL is not valid.', errors: [problem], code: 'validation_error' });
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  // Before any route is added: the rule lands in the schemas that both validate and document it.
  app.addHook('onRoute', refuseNulInRequests);
  // A request without a body is checked as `{}`: optional-only bodies (resend, partial updates)
  // may be left out, and missing required fields are named one by one instead of "body".
  app.addHook('preValidation', async (request) => {
    if (request.body === undefined && request.routeOptions.schema?.body) request.body = {};
  });
  // JSON only: any other body type is a 415, not a string that fails validation.
  app.removeContentTypeParser('text/plain');
  // An empty JSON body is no body (clients often send the header on every call); anything else
  // goes to Fastify's own parser, with its prototype-poisoning protection.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if ((body as string).trim() === '') done(null, undefined);
    else parseJson(request, body as string, done);
  });
  addSharedSchema(ErrorEnvelope);
  app.addSchema(ErrorEnvelope);

  // DATA_DIR and the database are readable by this user only; older installs are tightened here.
  makePrivateDir(config.dataDir);
  const sqliteFile =
    config.database.dialect === 'sqlite' && config.database.file !== ':memory:' ? config.database.file : undefined;
  for (const path of tightenDataModes(config.dataDir, sqliteFile))
    app.log.warn({ path }, 'file mode tightened: other users could read it');
  const db: Db = openDatabase(config.database);
  // What is derived from a change follows it through its owner's subscriber (src/domain/dispatcher.ts).
  wireSubscribers();
  if (db.reader) db.reader.log = (err, msg) => app.log.error({ err }, msg);
  db.onError = (err, msg) => app.log.warn({ err }, msg);
  db.health.log = app.log;
  app.decorate('config', config);
  app.decorate('db', db);
  app.decorate('ctx', createContext(db.kysely, config, options.clock));
  app.decorate('secrets', createSecretBox(config.secretKey, config.dataDir));
  app.decorate('storage', createDiskStorage(join(config.dataDir, 'uploads')));
  app.decorate(
    'files',
    createFileStore(config, (err, msg) => app.log.warn({ err }, msg)),
  );
  app.decorate('vpnRanges', vpnRanges);
  const leases = new ClaimLeases(
    db.kysely,
    (err) => app.log.warn({ err }, 'renewing idempotency claims failed'),
    app.ctx.clock,
  );
  app.decorate('idempotencyLeases', leases);
  app.decorate('redis', config.redisUrl ? await connectRedis(config.redisUrl, config.probeTimeoutMs, app.log) : null);
  app.decorateRequest('principal', null);
  app.decorateRequest('shop', null);
  app.decorateRequest('customer', null);
  app.decorateRequest('idempotencyClaim', null);
  app.decorateRequest('pageFill', null);
  app.decorate('lifecycle', { draining: false });
  const pageCache = new PageCache({
    maxBytes: config.pageCacheMaxBytes,
    redis: app.redis ? { client: app.redis, prefix: config.redisKeyPrefix } : null,
  });
  app.decorate('pageCache', pageCache);
  const unregisterPageCache = registerPageCache(pageCache);
  app.addHook('onClose', async () => {
    leases.stop();
    unregisterPageCache();
    await db.destroy();
    // QUIT needs a connection (commands are not queued while down): without one, stop reconnecting.
    await app.redis?.quit().catch(() => app.redis?.disconnect());
  });

  try {
    await migrateToLatest(db.kysely);
    await checkStoredSecrets(db.kysely, app.secrets, { allowUnreadable: config.allowUnreadableSecrets, log: app.log });
  } catch (err) {
    await app.close();
    throw err;
  }
  if (!vpnRanges) await warnOfUnenforcedVpnRules(db.kysely, app.log);

  app.addHook('onSend', async (request, reply, payload) => {
    void reply.header('x-request-id', request.id);
    // Stopping: each answer closes its keep-alive connection, so the client's next request opens a
    // new one (to another instance), and no idle connection is left to hold the listener open.
    if (app.lifecycle.draining) void reply.header('connection', 'close');
    return payload;
  });
  // Before every route, so that every answer is counted.
  const metrics = config.metricsToken ? registerMetrics(app) : null;
  app.decorate('metrics', metrics);
  // Orders take payments through the payments module's port: the one place both are named.
  app.decorate(
    'passwordGuesses',
    createPasswordGuessLimits({ redis: app.redis, keyPrefix: `${config.redisKeyPrefix}rl:` }),
  );
  app.decorate('orders', orderOptions(app, paymentPort(paymentContext(app))));
  app.decorate('challenges', createChallengeGate(app.ctx, app.secrets));
  registerErrorHandling(app);
  registerBodyTimeout(app, config.requestBody);
  await registerOpenApi(app);
  await registerRateLimit(app, config);
  app.decorate('signInLimits', createSignInLimits({ redis: app.redis, keyPrefix: `${config.redisKeyPrefix}rl:` }));
  await registerUploads(app);

  await app.register(systemRoutes);
  await app.register(tlsAskRoutes);
  if (metrics) await app.register(metricsRoutes, { metrics, token: config.metricsToken! });
  await app.register(
    async (self) => {
      // Sessions (sign-in, sign-out, the cookie) only on the operator's hosts; API keys on any (admin-hosts.ts).
      self.addHook('onRequest', ownerSessionsOnOperatorHosts);
      // The web admin's session cookie and CSRF protection, for both scopes below.
      await registerOwnerCookies(self);
      // Sign-in and password links: no key or session needed, limited per client IP.
      await self.register(ownerSessionPublicRoutes);
      await self.register(async (owner) => {
        owner.addHook('onRequest', authenticateOwner);
        owner.addHook('preHandler', loadOwnedShop);
        owner.addHook('onSend', invalidateAfterWrite);
        await owner.register(ownerSessionRoutes);
        await owner.register(shopOwnerRoutes);
        await owner.register(settingsOwnerRoutes);
        await owner.register(designOwnerRoutes);
        await owner.register(protectionOwnerRoutes);
        await owner.register(productOwnerRoutes);
        await owner.register(groupOwnerRoutes);
        await owner.register(listingOwnerRoutes);
        await owner.register(categoryOwnerRoutes);
        await owner.register(couponOwnerRoutes);
        await owner.register(blacklistOwnerRoutes);
        await owner.register(customerOwnerRoutes);
        await owner.register(invoiceOwnerRoutes);
        await owner.register(paymentOwnerRoutes);
        await owner.register(disputeOwnerRoutes);
        await owner.register(mailOwnerRoutes);
        await owner.register(affiliateOwnerRoutes);
        await owner.register(webhookOwnerRoutes);
        await owner.register(faqOwnerRoutes);
        await owner.register(announcementOwnerRoutes);
        await owner.register(feedbackOwnerRoutes);
        await owner.register(ticketOwnerRoutes);
        await owner.register(fileOwnerRoutes);
        await owner.register(licenseOwnerRoutes);
        await owner.register(dashboardOwnerRoutes);
        await owner.register(analyticsOwnerRoutes);
      });
    },
    { prefix: '/self' },
  );
  await app.register(
    async (pub) => {
      // First: preflights are answered before anything else, and every answer (errors too) carries the CORS headers.
      await registerPublicCors(pub, config.corsOrigins);
      // Before the routes' own hooks: `{shopId}` given as a subdomain becomes the id the page cache and handlers read.
      pub.addHook('onRequest', resolvePublicShopId);
      pub.addHook('onSend', invalidateAfterWrite);
      // After validation: routes with `config.customerSession` get `request.customer` from `Authorization: Bearer`.
      pub.addHook('preHandler', identifyCustomer);
      await pub.register(invoicePublicRoutes);
      await pub.register(challengePublicRoutes);
      await pub.register(paymentCallbackRoutes);
      await pub.register(storefrontPublicRoutes);
      await pub.register(feedbackPublicRoutes);
      await pub.register(ticketPublicRoutes);
      await pub.register(customerSessionPublicRoutes);
      await pub.register(fileDownloadRoutes);
      await pub.register(licensePublicRoutes);
      await pub.register(licenseCustomerRoutes);
    },
    { prefix: '/v2/public' },
  );

  await app.register(storefrontWebRoutes);
  await app.register(adminRoutes);

  // The background work, on one runner with one discipline (src/jobs/runner.ts); every pass reads the app's clock.
  const jobs = new JobRunner({ clock: app.ctx.clock, log: app.log, health: db.health });
  app.decorate('jobs', jobs);
  app.decorate('mailWorker', jobs.add(mailOutboxJob(app)));
  app.decorate('webhookWorker', jobs.add(webhookDeliveryJob(app)));
  jobs.add(invoiceExpiryJob(app.ctx, app.orders.payments));
  jobs.add(paymentRemindersJob(app.ctx));
  jobs.add(sweepsJob(app.ctx, app.log, db.health));
  jobs.add(fileUploadSweepJob(app.ctx, app.files));
  // onClose hooks run last-added first: every job has stopped before the database closes.
  app.addHook('onClose', () => jobs.stop());
  // Rollup rebuilds (a timezone change) that a stopped process left unfinished go on here.
  const rebuildFailed = (err: unknown) => app.log.error({ err }, 'rollup rebuild failed; resumed at the next start');
  await resumeRollupRebuilds(app.db.kysely, rebuildFailed);
  app.addHook('onClose', () => stopRollupRebuilds(app.db.kysely));
  const visitRecorder = startVisitRecorder(app);
  app.decorate('visitRecorder', visitRecorder);
  app.addHook('onClose', () => visitRecorder.stop());

  return app;
}
