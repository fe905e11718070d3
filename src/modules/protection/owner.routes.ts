import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { currentShop } from '../../http/auth.js';
import { ok, ownerResponses, ShopParams } from '../../schemas/common.js';
import { ProtectionBody, ShopProtection } from './schema.js';
import { updateProtection } from './service.js';

export const protectionOwnerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.put('/:shopId/settings/protection', {
    schema: {
      tags: ['Shops and settings'],
      summary: 'Update the protection of the public flows',
      description:
        'Limits on what anonymous visitors can do: how long unpaid orders hold stock, how much one client may hold, card ' +
        'and crypto checkouts per hour, mail budgets and what a payment dispute does. Send any ' +
        'of the settings (at least one); the others keep their values. Answers them all; `GET settings` shows them as ' +
        '`protection`. A client is an IPv4 address or an IPv6 /64, and where the flow has them the e-mail address and the customer.',
      params: ShopParams,
      body: ProtectionBody,
      response: ownerResponses(ShopProtection),
    },
    handler: async (request) => ok(await updateProtection(app.ctx, currentShop(request).id, request.body)),
  });
};
