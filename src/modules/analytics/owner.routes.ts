import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { currentShop } from '../../http/auth.js';
import { ok, ownerResponses, ShopParams } from '../../schemas/common.js';
import { parseInstant } from '../../schemas/dates.js';
import * as schema from './schema.js';
import { realTimeVisits, startVisitPruner, visitStoreOf } from './visits.js';

const tags = ['Analytics'];

export const analyticsOwnerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // The visits table belongs to this module alone, and so does keeping it short.
  const pruner = startVisitPruner(app);
  app.addHook('onClose', async () => pruner.stop());

  app.get('/:shopId/analytics/visits/real-time', {
    schema: {
      tags,
      summary: 'Visitors and page views of the last minutes',
      description:
        'Counted from the public storefront pages, in whole minutes. A visitor is a hash of the shop, IP and user agent; raw IPs are not kept. ' +
        'With REDIS_URL the counters live in Redis and are shared by every instance; otherwise in the database, kept for two hours.',
      params: ShopParams,
      querystring: schema.RealTimeQuery,
      response: ownerResponses(schema.RealTimeVisits),
    },
    handler: async (request) => {
      const at = request.query.at === undefined ? app.ctx.clock.now() : parseInstant(request.query.at, 'at');
      await app.visitRecorder.flush();
      return ok(await realTimeVisits(visitStoreOf(app), currentShop(request).id, at));
    },
  });
};
