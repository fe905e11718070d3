import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';
import { sql } from 'kysely';
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

  // Redis answers when ioredis holds a ready connection and PING comes back: a connection that is
  // down fails at once (ioredis would otherwise queue the command until it reconnects).
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
      summary: 'Readiness: the database and Redis answer',
      description:
        'For a load balancer or an orchestrator: 200 when this instance can serve, that is the database answers and, when ' +
        '`REDIS_URL` is set, Redis answers PING (each within `PROBE_TIMEOUT_MS`, 2 s by default). Otherwise 503 naming what does not answer, and the ' +
        'instance should get no traffic. While the server shuts down, every new request, this one included, is a 503. ' +
        '`/health` checks the database alone and stays the cheap liveness probe.',
      response: {
        200: Envelope(
          Type.Object({
            status: Type.Literal('ready'),
            database: Type.Literal('ok'),
            redis: Type.Union([Type.Literal('ok'), Type.Literal('not_configured')]),
          }),
        ),
        503: Type.Ref(ErrorEnvelope),
      },
    },
    handler: async (_request, reply) => {
      const [database, cache] = await Promise.all([databaseAnswers(), redis ? redisAnswers() : true]);
      const problems = [
        ...(database ? [] : ['database: does not answer']),
        ...(cache ? [] : ['redis: does not answer']),
      ];
      if (problems.length > 0) return unavailable(reply, 'This instance is not ready.', problems);
      return ok({
        status: 'ready' as const,
        database: 'ok' as const,
        redis: redis ? ('ok' as const) : ('not_configured' as const),
      });
    },
  });

  app.get('/openapi.json', { config: { rateLimit: false }, schema: { hide: true } }, async () => app.swagger());
};
