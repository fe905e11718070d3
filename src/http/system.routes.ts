import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { sql } from 'kysely';
import { causeText } from '../db/storage-health.js';
import { Envelope, ErrorEnvelope, ok } from '../schemas/common.js';

/** `answer`, or false when it has not settled within `ms` (PROBE_TIMEOUT_MS): a stalled database or Redis is a 503, not a hung probe. */
async function within(answer: Promise<boolean>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([answer, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A 503 in the error envelope, sent as the probe's answer rather than thrown: an outage polled by
 * a load balancer would otherwise log an error with a stack at every poll (the request log line
 * still records each 503).
 */
function unavailable(reply: FastifyReply, message: string, errors: string[]) {
  return reply.code(503).send({ data: null, message, errors, code: 'service_unavailable' });
}

/** Health, readiness and discovery: outside every rate limit and every key. */
export const systemRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // Health checks that arrive while one is asking the database share its answer: a monitor or a
  // load balancer polling hard costs one round trip at a time, not one per request.
  // The probe is compiled once: building the query is most of its cost on SQLite.
  const db = app.db.kysely;
  const select1 = sql`select 1`.compile(db);
  // The query is shared until it settles, even past the probe's deadline: during a stall, polls
  // wait on the one `select 1` in flight instead of queueing one each. Polls that arrive within one
  // deadline share its answer too (one timer, not one per poll).
  let probe: Promise<boolean> | null = null;
  let answer: Promise<boolean> | null = null;
  const databaseAnswers = () => {
    probe ??= db
      .executeQuery(select1)
      .then(
        () => true,
        () => false,
      )
      .finally(() => (probe = null));
    answer ??= within(probe, app.config.probeTimeoutMs).finally(() => (answer = null));
    return answer;
  };

  app.get('/health', {
    config: { rateLimit: false },
    schema: {
      tags: ['System'],
      summary: 'Liveness and database check',
      description:
        '200 while the process runs and its database answers (within `PROBE_TIMEOUT_MS`, 2 s by default); otherwise 503.',
      response: {
        200: Envelope(Type.Object({ status: Type.Literal('ok'), database: Type.Literal('ok') })),
        503: Type.Ref(ErrorEnvelope),
      },
    },
    handler: async (_request, reply) => {
      if (!(await databaseAnswers()))
        return unavailable(reply, 'The database does not answer.', ['database: does not answer']);
      return ok({ status: 'ok' as const, database: 'ok' as const });
    },
  });

  // While the storage under the database fails (a full disk, a read-only file system, a lock held
  // past its bound: storage-health.ts), `select 1` still answers: readiness tries a write instead,
  // one at a time however many probes poll, and is ready again once it succeeds.
  const health = app.db.health;
  let storageProbe: Promise<boolean> | null = null;
  const storageWrites = (): Promise<boolean> => {
    if (health.failure === null || health.failure.cause === 'unreachable') return Promise.resolve(true);
    storageProbe ??= within(
      db
        .insertInto('storage_probes')
        .values({ id: 1, written_at: app.ctx.clock.now() })
        .onConflict((oc) => oc.column('id').doUpdateSet({ written_at: app.ctx.clock.now() }))
        .execute()
        .then(
          () => health.failure === null,
          () => false,
        ),
      app.config.probeTimeoutMs,
    ).finally(() => (storageProbe = null));
    return storageProbe;
  };

  // Redis answers when ioredis holds a ready connection and PING comes back. It is reported, not
  // required: without it the instance still serves (src/http/redis-health.ts, issue 33).
  const redis = app.redis;
  const redisAnswers = async (): Promise<boolean> => {
    if (redis?.status !== 'ready') return false;
    return within(
      redis.ping().then(
        (answer) => answer === 'PONG',
        () => false,
      ),
      app.config.probeTimeoutMs,
    );
  };

  app.get('/ready', {
    config: { rateLimit: false },
    schema: {
      tags: ['System'],
      summary: 'Readiness: the database answers (and whether Redis does)',
      description:
        'For a load balancer or an orchestrator: 200 when this instance can serve, that is the database answers (within ' +
        '`PROBE_TIMEOUT_MS`, 2 s by default). Otherwise 503 naming what does not answer, and the instance should get no traffic. ' +
        '`redis` tells whether Redis answered PING within the same time (`ok`, `down`, or `not_configured` without `REDIS_URL`), ' +
        'but a Redis that is down leaves the instance ready: it is an accelerator, and without it rate limits count in the ' +
        'instance’s memory and public pages are computed for every request. Taking every instance out of the load balancer ' +
        'because the shared cache is down would be the outage itself. After a write failed for want of storage (a full disk, a read-only file system, a write lock ' +
        'held past its bound), it is a 503 naming that cause (`database: the database disk is full (SQLITE_FULL)`) until a write ' +
        'succeeds again: readiness tries one itself while the failure lasts, so it turns 200 on its own once space is freed. ' +
        'From the signal to stop on (SIGTERM), it is a 503 naming `instance: shutting down` while every other request is still served ' +
        'for `SHUTDOWN_DELAY_MS` (3 s by default); then the listener closes and requests in flight have `SHUTDOWN_TIMEOUT_MS` ' +
        '(20 s) to finish. ' +
        '`/health` checks the database alone and stays the cheap liveness probe.',
      response: {
        200: Envelope(
          Type.Object({
            status: Type.Literal('ready'),
            database: Type.Literal('ok'),
            redis: Type.Union([Type.Literal('ok'), Type.Literal('down'), Type.Literal('not_configured')]),
          }),
        ),
        503: Type.Ref(ErrorEnvelope),
      },
    },
    handler: async (_request, reply) => {
      const [database, writes, cache] = await Promise.all([
        databaseAnswers(),
        storageWrites(),
        redis ? redisAnswers() : true,
      ]);
      const failure = health.failure;
      const problems = [
        ...(app.lifecycle.draining ? ['instance: shutting down'] : []),
        ...(database ? [] : ['database: does not answer']),
        ...(database && !writes && failure ? [`database: ${causeText[failure.cause]} (${failure.code})`] : []),
      ];
      if (problems.length > 0) return unavailable(reply, 'This instance is not ready.', problems);
      return ok({
        status: 'ready' as const,
        database: 'ok' as const,
        redis: redis ? (cache ? ('ok' as const) : ('down' as const)) : ('not_configured' as const),
      });
    },
  });

  app.get('/openapi.json', { config: { rateLimit: false }, schema: { hide: true } }, async () => app.swagger());
};
