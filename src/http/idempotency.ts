import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest, onSendHookHandler, preHandlerHookHandler } from 'fastify';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import { constraintViolation } from '../db/database.js';
import type { Database } from '../db/schema.js';
import { MAX_ORDER_PARTS } from '../schemas/rules.js';
import { ConflictError } from './errors.js';
import * as keys from './idempotency-keys.js';

/**
 * `Idempotency-Key` for calls that move money or stock (contract section 1): a retry with the
 * same key and the same request within 24 h answers the first response without acting again;
 * the same key with another request is a 409, and so is a retry while the first is running.
 * Responses of 5xx are not kept, so a retry after a failure acts again.
 *
 * A key is claimed before the handler runs and its answer recorded after. A claim that never
 * got its answer (the process died in between) holds the key only for a lease, then the next
 * retry takes it over and runs: see `claimLeaseMs`.
 *
 * Use on a route: `{ schema: { headers: IdempotencyHeaders }, ...idempotent }`.
 */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** Room for everything in a request besides dynamic deliveries: database work, lock waits. */
const REQUEST_SLACK_MS = 60_000;

/**
 * How long a claim without an answer holds its key. It must outlast the longest legitimate
 * request, or a retry would run beside a request still working: the longest are completions
 * (checkout with balance, process) that ask every dynamic part's URL in turn, each up to
 * DYNAMIC_DELIVERY_TIMEOUT_MS. About 5 minutes with the default 10 s timeout.
 */
export function claimLeaseMs(config: Pick<Config, 'invoices'>): number {
  return MAX_ORDER_PARTS * config.invoices.dynamicTimeoutMs + REQUEST_SLACK_MS;
}

export const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'Makes a retry of this call safe: same key and body within 24 h answer the first response.',
    }),
  ),
});

type Conn = Kysely<Database>;

function scopeOf(request: FastifyRequest): { scope: string; shopId: number | null } {
  const shopId = (request.params as { shopId?: number } | undefined)?.shopId ?? null;
  if (request.principal) return { scope: `account:${request.principal.accountId}`, shopId };
  return { scope: `shop:${shopId ?? '-'}`, shopId };
}

/** JSON with object keys sorted, so the same body written in another key order is the same request. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

function fingerprint(request: FastifyRequest): string {
  return createHash('sha256')
    .update(`${request.method} ${request.url}\n${canonicalJson(request.body)}`)
    .digest('hex');
}

type ClaimResult =
  | { claimed: number }
  | { existing: { fingerprint: string; status_code: number | null; response_body: string | null; created_at: number } };

async function claim(
  db: Conn,
  scope: string,
  shopId: number | null,
  key: string,
  print: string,
  leaseMs: number,
): Promise<ClaimResult> {
  // A row deleted between our failed insert and our read (its request ended in a 5xx) frees
  // the key: try again rather than fail. Two rounds settle it; three leave room for bad luck.
  for (let round = 0; ; round++) {
    const now = Date.now();
    // Gone: keys past 24 h, and claims that never got an answer within the lease. Several
    // retries may get here at once; the unique (scope, key) lets exactly one insert win.
    await keys.dropLapsed(db, scope, key, now - IDEMPOTENCY_TTL_MS, now - leaseMs);
    try {
      return {
        claimed: await keys.insertClaim(db, { scope, shop_id: shopId, key, fingerprint: print, created_at: now }),
      };
    } catch (err) {
      if (constraintViolation(err) !== 'unique') throw err;
    }
    const existing = await keys.findClaim(db, scope, key);
    if (existing) return { existing };
    if (round === 2)
      throw new ConflictError('A request with this Idempotency-Key is still in progress.', [
        'idempotency-key: request in progress',
      ]);
  }
}

const claimKey: preHandlerHookHandler = async (request: FastifyRequest, reply: FastifyReply) => {
  const key = request.headers['idempotency-key'];
  if (typeof key !== 'string') return;
  const { scope, shopId } = scopeOf(request);
  const print = fingerprint(request);
  const leaseMs = claimLeaseMs(request.server.config);
  const result = await claim(request.server.db.kysely, scope, shopId, key, print, leaseMs);
  if ('claimed' in result) {
    request.idempotencyClaim = result.claimed;
    return;
  }
  const { existing } = result;
  if (existing.fingerprint !== print) {
    throw new ConflictError('This Idempotency-Key was used with a different request.', [
      'idempotency-key: was used with a different request',
    ]);
  }
  if (existing.status_code === null || existing.response_body === null) {
    // The running request usually answers within a second; should it have died, the retries
    // that follow find its claim lapsed once the lease is over.
    void reply.header('retry-after', '1');
    throw new ConflictError('A request with this Idempotency-Key is still in progress.', [
      'idempotency-key: request in progress',
    ]);
  }
  return reply
    .code(existing.status_code)
    .header('idempotent-replayed', 'true')
    .type('application/json; charset=utf-8')
    .send(existing.response_body);
};

const recordResponse: onSendHookHandler = async (request, reply, payload) => {
  const id = request.idempotencyClaim;
  if (id === null) return payload;
  request.idempotencyClaim = null;
  const db = request.server.db.kysely;
  if (reply.statusCode >= 500 || typeof payload !== 'string') await keys.dropClaim(db, id);
  else await keys.recordAnswer(db, id, reply.statusCode, payload);
  return payload;
};

export const idempotent = { preHandler: claimKey, onSend: recordResponse };

/** Drops keys past their 24 hours; run periodically. */
export function sweepIdempotencyKeys(db: Conn, now = Date.now()): Promise<number> {
  return keys.dropExpired(db, now - IDEMPOTENCY_TTL_MS);
}
