import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { sql } from 'kysely';
import { Envelope, ErrorEnvelope, ok } from '../schemas/common.js';
import { AppError } from './errors.js';

/** Health and discovery: outside every rate limit and every key. */
export const systemRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // Health checks that arrive while one is asking the database share its answer: a monitor or a
  // load balancer polling hard costs one round trip at a time, not one per request.
  // The probe is compiled once: building the query is most of its cost on SQLite.
  const db = app.db.kysely;
  const select1 = sql`select 1`.compile(db);
  let probe: Promise<boolean> | null = null;
  const databaseAnswers = () =>
    (probe ??= db
      .executeQuery(select1)
      .then(
        () => true,
        () => false,
      )
      .finally(() => (probe = null)));

  app.get('/health', {
    config: { rateLimit: false },
    schema: {
      tags: ['System'],
      summary: 'Liveness and database check',
      response: {
        200: Envelope(Type.Object({ status: Type.Literal('ok'), database: Type.Literal('ok') })),
        503: Type.Ref(ErrorEnvelope),
      },
    },
    handler: async () => {
      if (!(await databaseAnswers())) throw new AppError(503, 'service_unavailable', 'The database does not answer.');
      return ok({ status: 'ok' as const, database: 'ok' as const });
    },
  });

  app.get('/openapi.json', { config: { rateLimit: false }, schema: { hide: true } }, async () => app.swagger());
};
