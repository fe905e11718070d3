// @fastify/rate-limit's own stores, which its types do not declare: rate-limit.ts wraps them.
declare module '@fastify/rate-limit/store/LocalStore.js' {
  import type { FastifyRateLimitStore } from '@fastify/rate-limit';

  type Callback = (error: Error | null, result?: { current: number; ttl: number }) => void;
  /** Fixed windows in this process, the `cache` most recently seen keys kept. */
  export default class LocalStore implements FastifyRateLimitStore {
    constructor(continueExceeding: boolean, exponentialBackoff: boolean, cache?: number);
    incr(key: string, callback: Callback, timeWindow?: number, max?: number): void;
    child(routeOptions: unknown): LocalStore;
  }
}

declare module '@fastify/rate-limit/store/RedisStore.js' {
  import type { FastifyRateLimitStore } from '@fastify/rate-limit';
  import type { Redis } from 'ioredis';

  type Callback = (error: Error | null, result?: { current: number; ttl: number }) => void;
  /** Fixed windows in Redis under `key` + the counted key, shared by every instance. */
  export default class RedisStore implements FastifyRateLimitStore {
    constructor(continueExceeding: boolean, exponentialBackoff: boolean, redis: Redis, key?: string);
    incr(key: string, callback: Callback, timeWindow?: number, max?: number): void;
    child(routeOptions: unknown): RedisStore;
  }
}
