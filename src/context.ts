import type { Redis } from 'ioredis';
import type { Config } from './config.js';
import type { Db } from './db/database.js';
import type { Context } from './domain/context.js';
import type { AuthFailureLimiter, PasswordGuessLimits } from './http/auth-failures.js';
import type { ClaimLeases } from './http/idempotency.js';
import type { JobHandle, JobRunner } from './jobs/runner.js';
import type { OwnerSignInLimits, Principal } from './modules/accounts/index.js';
import type { VisitRecorder } from './modules/analytics/index.js';
import type { VpnRanges } from './modules/blacklist/index.js';
import type { ChallengeGate } from './modules/challenge/index.js';
import type { CustomerSession, SignInLimits } from './modules/customer-sessions/index.js';
import type { FileStore } from './modules/files/index.js';
import type { Metrics } from './modules/metrics/index.js';
import type { OrderOptions } from './modules/orders/index.js';
import type { ShopRow } from './modules/shops/index.js';
import type { CachedPage, PageCache } from './modules/storefront/index.js';
import type { SecretBox } from './security/secret-box.js';
import type { FileStorage } from './storage/file-storage.js';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    db: Db;
    /** What services are given (src/domain/context.ts): the database handle, the configuration and the clock. */
    ctx: Context;
    secrets: SecretBox;
    redis: Redis | null;
    storage: FileStorage;
    /** Owners' files of file products (src/modules/files): DATA_DIR/files, or the S3 bucket when FILES_S3_BUCKET is set. */
    files: FileStore;
    /** `draining` from the first signal to stop on: `/ready` answers 503 while requests are still served (src/server.ts). */
    lifecycle: { draining: boolean };
    /** The Idempotency-Key claims of running requests, whose leases are renewed (src/http/idempotency.ts). */
    idempotencyLeases: ClaimLeases;
    /** Unknown API keys per client IP (src/http/auth-failures.ts); null when the limit is off. */
    authFailures: AuthFailureLimiter | null;
    /** Sign-in codes per e-mail and per client IP (src/modules/customer-sessions/sign-in-limits.ts). */
    signInLimits: SignInLimits;
    /** Storefront password guesses per shop and client (src/http/auth-failures.ts). */
    passwordGuesses: PasswordGuessLimits;
    /** Owner password attempts per e-mail and client (src/modules/accounts/sign-in-limits.ts); on the `/self` scope. */
    ownerSignInLimits: OwnerSignInLimits;
    /** The background work (src/jobs/runner.ts): the outboxes, invoice expiry, the hourly sweeps; stopped on close. */
    jobs: JobRunner;
    /** The mail outbox's job; tests flush the outbox with `await app.mailWorker.runOnce()`. */
    mailWorker: JobHandle;
    /** The webhook delivery job; tests drive it with `await app.webhookWorker.runOnce(now)`. */
    webhookWorker: JobHandle;
    /** Buffers public page views and stores them in batches. */
    visitRecorder: VisitRecorder;
    /** Serialised public pages (src/modules/storefront/page-cache.ts). */
    pageCache: PageCache;
    /** The operator's metrics (`GET /metrics`); null when `METRICS_TOKEN` is unset. */
    metrics: Metrics | null;
    /** What every order write takes from the server (src/modules/orders/order-options.ts): dynamic delivery, the payments port, the metrics. */
    orders: OrderOptions;
    /** The proof-of-work challenge of checkouts, tickets and sign-in codes (src/modules/challenge). */
    challenges: ChallengeGate;
    /** The operator's VPN ranges (`VPN_RANGES_FILE`), null when none are configured. */
    vpnRanges: VpnRanges | null;
  }
  interface FastifyRequest {
    /** Set by the owner scope's authentication hook. */
    principal: Principal | null;
    /** Set on owner routes with a `{shopId}` the caller's account owns. */
    shop: ShopRow | null;
    /** The buyer's customer session of the path's shop, on public routes with `config.customerSession`; else null. */
    customer: CustomerSession | null;
    /** The idempotency row this request claimed, if any. */
    idempotencyClaim: number | null;
    /** A public page the cache could not answer: its 200 answer is stored under this key and version. */
    pageFill: {
      shopId: number;
      key: string;
      version: string;
      passwordHash: string | null;
      done: (page?: CachedPage) => void;
    } | null;
  }
  interface FastifyContextConfig {
    /** Counted against the public (per-IP) rate limit rather than the owner (per-key) one. */
    public?: boolean;
    /** Resolve `Authorization: Bearer` to the shop's customer session into `request.customer` (customer-sessions' identifyCustomer). */
    customerSession?: boolean;
    /** A write that changes no public page (a licence check): the shop's page cache is not emptied after it (invalidateAfterWrite). */
    keepsPages?: boolean;
  }
}
