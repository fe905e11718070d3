import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sql } from 'kysely';
import { AppError } from './errors.js';
import { Envelope, ErrorEnvelope, ok } from '../schemas/common.js';

/** Health and discovery: outside every rate limit and every key. */
export const systemRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/health', {
    config: { rateLimit: false },
    schema: {
      tags: ['System'],
      summary: 'Liveness and database check',
      response: { 200: Envelope(Type.Object({ status: Type.Literal('ok'), database: Type.Literal('ok') })), 503: Type.Ref(ErrorEnvelope) },
    },
    handler: async () => {
      try {
        await sql`select 1`.execute(app.db.kysely);
      } catch {
        throw new AppError(503, 'service_unavailable', 'The database does not answer.');
      }
      return ok({ status: 'ok' as const, database: 'ok' as const });
    },
  });

  app.get('/openapi.json', { config: { rateLimit: false }, schema: { hide: true } }, async () => app.swagger());
};
