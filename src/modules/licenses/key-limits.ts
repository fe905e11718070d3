import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { consumeOrRefuse, createCounter } from '../../http/auth-failures.js';

/**
 * The licence calls' second rate limit. The public limit (src/http/rate-limit.ts) already counts
 * every call per client IP; this one counts the calls naming one key of one shop, whoever makes
 * them, so a key shared around (or a program stuck in a loop on many machines) cannot use up the
 * server: a tenth of the per-IP budget in the same window — 60 a minute by default, as Lemon
 * Squeezy allows its licence API. `RATE_LIMIT_PUBLIC_MAX=0` turns both off. Past it, 429 with
 * `Retry-After`. Counters in Redis when `REDIS_URL` is set, shared by the instances (in this
 * process while Redis is down), as for sign-in codes; a key is counted as its hash, never stored.
 */
export interface LicenseKeyLimit {
  take(shopId: number, licenseKey: string): Promise<void>;
}

export const KEY_SHARE_OF_PUBLIC_LIMIT = 10;

export function createLicenseKeyLimit(options: {
  redis: Redis | null;
  keyPrefix: string;
  publicMax: number;
  windowMs: number;
}): LicenseKeyLimit {
  if (options.publicMax === 0) return { take: async () => {} };
  const counter = createCounter(options, {
    points: Math.max(1, Math.floor(options.publicMax / KEY_SHARE_OF_PUBLIC_LIMIT)),
    seconds: Math.ceil(options.windowMs / 1000),
    name: 'license-key',
  });
  return {
    take: (shopId, licenseKey) =>
      consumeOrRefuse(
        counter,
        `${shopId}:${createHash('sha256').update(licenseKey.trim()).digest('base64url')}`,
        'Too many calls for this license key',
      ),
  };
}
