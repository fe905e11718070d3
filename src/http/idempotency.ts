import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest, onSendHookHandler, preHandlerHookHandler } from 'fastify';
import type { Kysely } from 'kysely';
import { constraintViolation } from '../db/database.js';
import type { Database } from '../db/schema.js';
import { type Clock, type Context, systemClock } from '../domain/context.js';
import { ConflictError } from './errors.js';
import * as keys from './idempotency-keys.js';

/**
 * `Idempotency-Key` for calls that move money or stock (contract section 1): a retry with the
 * same key and the same request within 24 h answers the first response without acting again;
 * the same key with another request is a 409, and so is a retry while the first is running.
 * Responses of 5xx, 428 and 429 are not kept: a retry after one acts again, unless the work had committed
 * before the failure (then it is answered what the work made, as after a crash).
 *
 * A key is claimed before the handler runs and its answer recorded after. In between, the work the
 * key guards marks the claim done in its own transaction (`recordIdempotentWork`, with what it made:
 * an invoice id, a shop id), so the claim and the work commit together or not at all. A process that
 * dies leaves one of two claims behind:
 * - work not committed (nothing of it is in the database): once the claim's lease is over, the next
 *   retry takes the key and runs the request, once;
 * - work committed, answer not recorded: the next retry is answered what the work made as it is now
 *   (the route's `replay`, e.g. the invoice), with `Idempotent-Replayed: true`. It is never run again.
 * The lease is short (CLAIM_LEASE_MS) because a running request renews it (ClaimLeases): after a
 * crash a key is free, or its answer replayable, within seconds; while a request runs, however
 * long, its retries are told it is in progress.
 *
 * Use on a route: `{ schema: { headers: IdempotencyHeaders }, ...idempotent(replay) }`.
 */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** How long a claim without an answer holds its key after the last renewal of its request. */
export const CLAIM_LEASE_MS = 30_000;
/** How often the leases of running requests are renewed: a few times per lease. */
const LEASE_RENEW_MS = CLAIM_LEASE_MS / 3;

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

type Claim = NonNullable<Awaited<ReturnType<typeof keys.findClaim>>>;
type ClaimResult = { claimed: number } | { existing: Claim };

async function claim(
  ctx: Context,
  scope: string,
  shopId: number | null,
  key: string,
  print: string,
): Promise<ClaimResult> {
  const { db } = ctx;
  // A row deleted between our failed insert and our read (its request ended in a 5xx) frees
  // the key: try again rather than fail. Two rounds settle it; three leave room for bad luck.
  for (let round = 0; ; round++) {
    const now = ctx.clock.now();
    // Gone: keys past 24 h, and claims whose request died before its work committed. Several
    // retries may get here at once; the unique (scope, key) lets exactly one insert win.
    await keys.dropLapsed(db, scope, key, now - IDEMPOTENCY_TTL_MS, now);
    try {
      return {
        claimed: await keys.insertClaim(db, {
          scope,
          shop_id: shopId,
          key,
          fingerprint: print,
          created_at: now,
          lease_until: now + CLAIM_LEASE_MS,
        }),
      };
    } catch (err) {
      if (constraintViolation(err) !== 'unique') throw err;
    }
    const existing = await keys.findClaim(db, scope, key);
    if (existing) return { existing };
    if (round === 2) throw inProgress();
  }
}

function inProgress(): ConflictError {
  return new ConflictError('A request with this Idempotency-Key is still in progress.', [
    'idempotency-key: request in progress',
  ]);
}

/**
 * What a retry is answered when the first request's work committed but its answer was lost (the
 * process died in between): the current view of what the work made. `ref` is what the work
 * recorded with `recordIdempotentWork`.
 */
export type Replay = (request: FastifyRequest, ref: string) => Promise<unknown>;

function claimKey(replay: Replay): preHandlerHookHandler {
  return async function claimIdempotencyKey(request: FastifyRequest, reply: FastifyReply) {
    const key = request.headers['idempotency-key'];
    if (typeof key !== 'string') return;
    const { scope, shopId } = scopeOf(request);
    const print = fingerprint(request);
    const result = await claim(request.server.ctx, scope, shopId, key, print);
    if ('claimed' in result) {
      request.idempotencyClaim = result.claimed;
      request.server.idempotencyLeases.hold(result.claimed);
      return;
    }
    const { existing } = result;
    if (existing.fingerprint !== print) {
      throw new ConflictError('This Idempotency-Key was used with a different request.', [
        'idempotency-key: was used with a different request',
      ]);
    }
    if (existing.status_code !== null && existing.response_body !== null) {
      return reply
        .code(existing.status_code)
        .header('idempotent-replayed', 'true')
        .type('application/json; charset=utf-8')
        .send(existing.response_body);
    }
    if (
      existing.committed_at !== null &&
      existing.result_ref !== null &&
      (existing.lease_until ?? 0) < request.server.ctx.clock.now()
    ) {
      // The work committed and its request died before answering: answer what it made, and keep that answer.
      request.idempotencyClaim = existing.id;
      return reply.header('idempotent-replayed', 'true').send(await replay(request, existing.result_ref));
    }
    // The running request usually answers within a second; should it have died, its lease lapses
    // within CLAIM_LEASE_MS and the retries that follow run it or get its result.
    void reply.header('retry-after', '1');
    throw inProgress();
  };
}

/**
 * The work a claimed key guards, for `recordIdempotentWork` inside the handler's transactions,
 * with the app's clock: the work's services are handed a transaction, not the request.
 */
const guardedWork = new AsyncLocalStorage<{ claimId: number; clock: Clock }>();

/**
 * Runs the rest of the request (the handler) with its claim in reach of `recordIdempotentWork`.
 * A callback hook: `done` calls the handler synchronously, so the handler and everything it awaits
 * run inside `guardedWork.run`.
 */
function enterGuardedWork(request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  const claimId = request.idempotencyClaim;
  if (claimId === null) done();
  else guardedWork.run({ claimId, clock: request.server.ctx.clock }, done);
}

/**
 * Called by the work an Idempotency-Key guards, inside its write transaction `trx`: the key's claim
 * is marked done with `ref` (what the work made, for the route's replay) in that same transaction.
 * Outside a request with a claimed key it does nothing.
 */
export async function recordIdempotentWork(trx: Conn, ref: string | number): Promise<void> {
  const work = guardedWork.getStore();
  if (work) await keys.markCommitted(trx, work.claimId, String(ref), work.clock.now());
}

const recordResponse: onSendHookHandler = async (request, reply, payload) => {
  const id = request.idempotencyClaim;
  if (id === null) return payload;
  request.idempotencyClaim = null;
  request.server.idempotencyLeases.release(id);
  const db = request.server.ctx.db;
  try {
    // A 429 says "not now" (a checkout over a client limit, with Retry-After): were it kept, the
    // retry with the key after the wait would be answered the refusal for 24 h. So would a 428 (a
    // proof-of-work challenge asked for): the retry carries the solution.
    if (reply.statusCode >= 500 || reply.statusCode === 428 || reply.statusCode === 429 || typeof payload !== 'string')
      await keys.releaseClaim(db, id);
    else await keys.recordAnswer(db, id, reply.statusCode, payload);
  } catch (err) {
    // The database failing now (a full disk, a lost connection) must not turn the answer into an
    // error: the claim's lease lapses on its own, and a retry then acts or is answered as after a crash.
    request.log.warn({ err }, 'the answer to an Idempotency-Key could not be recorded');
  }
  return payload;
};

/**
 * The hooks of a route that honours `Idempotency-Key`; `replay` answers a retry whose first request
 * committed its work but died before answering.
 */
export function idempotent(replay: Replay): {
  preHandler: preHandlerHookHandler[];
  onSend: onSendHookHandler;
} {
  return { preHandler: [claimKey(replay), enterGuardedWork as preHandlerHookHandler], onSend: recordResponse };
}

/**
 * The claims of this process's running requests, whose leases it renews every LEASE_RENEW_MS: a
 * request runs as long as it needs to (dynamic deliveries, a payment provider), and a claim whose
 * process died is over within CLAIM_LEASE_MS.
 */
export class ClaimLeases {
  private readonly held = new Set<number>();
  private readonly timer: NodeJS.Timeout;

  /** `clock`: the app's (`app.ctx.clock`), which retries compare the stored leases with. */
  constructor(db: Conn, onError: (err: unknown) => void, clock: Clock = systemClock) {
    this.timer = setInterval(() => {
      if (this.held.size === 0) return;
      keys.renewLeases(db, [...this.held], clock.now() + CLAIM_LEASE_MS).catch(onError);
    }, LEASE_RENEW_MS);
    this.timer.unref();
  }

  hold(id: number): void {
    this.held.add(id);
  }

  release(id: number): void {
    this.held.delete(id);
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

/** Drops keys past their 24 hours; run periodically. */
export function sweepIdempotencyKeys(db: Conn, now: number): Promise<number> {
  return keys.dropExpired(db, now - IDEMPOTENCY_TTL_MS);
}
