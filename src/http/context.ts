import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { Principal } from '../modules/accounts/service.js';
import type { ShopRow } from '../modules/shops/shops.table.js';
import type { SecretBox } from '../security/secret-box.js';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    db: Db;
    secrets: SecretBox;
    redis: Redis | null;
  }
  interface FastifyRequest {
    /** Set by the owner scope's authentication hook. */
    principal: Principal | null;
    /** Set on owner routes with a `{shopId}` the caller's account owns. */
    shop: ShopRow | null;
    /** The idempotency row this request claimed, if any. */
    idempotencyClaim: number | null;
  }
  interface FastifyContextConfig {
    /** Counted against the public (per-IP) rate limit rather than the owner (per-key) one. */
    public?: boolean;
  }
}
