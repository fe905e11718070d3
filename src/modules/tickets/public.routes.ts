import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { acceptedLocale } from '../../i18n/negotiate.js';
import { ok, publicResponses } from '../../schemas/common.js';
import { AltchaHeaders } from '../challenge/index.js';
import { PublicShopParams } from '../shops/index.js';
import * as schema from './schema.js';
import * as service from './service.js';

const tags = ['Tickets'];

const keyRule =
  'An unknown ticket and a wrong `accessKey` are the same 404 (keys are compared as SHA-256 hashes in constant time).';

export const ticketPublicRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  const mail = { links: app.config, secrets: app.secrets };

  app.post('/shops/:shopId/tickets', {
    config: { public: true },
    schema: {
      tags,
      summary: 'Open a support ticket',
      description:
        'email, title 1–200 and message 1–5,000 characters (trimmed; blank is a 400); `invoiceId`, when given, must be an invoice of this shop (400 otherwise). ' +
        'A shop with a storefront password needs it as `key` (403 shop_locked). The answer carries the ticket id and its `accessKey`, ' +
        'the only way to read and answer the ticket; the customer is also mailed the ticket page link with the key in it, so the key ' +
        'is never shown only once. The key is stored as a hash (what requests are checked against) and sealed with the server key ' +
        '(so the mail of a later answer can carry the link again). Writes a `ticket.created` event. When the shop asks ' +
        'this client for a proof-of-work challenge (`settings/protection`), a ticket without a solution in `X-Altcha` is a ' +
        '428 `challenge_required` and nothing is opened; see `GET /v2/public/shops/{shopId}/challenge`.',
      params: PublicShopParams,
      headers: AltchaHeaders,
      body: schema.CreateTicketBody,
      response: publicResponses(schema.TicketCreated, [403, 428]),
    },
    handler: async (request) => {
      await app.challenges.admit(request.params.shopId, request.ip, request.headers['x-altcha']);
      return ok(
        await service.openTicket(
          ctx,
          request.params.shopId,
          request.body,
          mail,
          'key',
          { limits: app.passwordGuesses, ip: request.ip },
          acceptedLocale(request.headers['accept-language']),
        ),
      );
    },
  });

  app.get('/tickets/:ticketId', {
    config: { public: true },
    schema: {
      tags,
      summary: "The customer's view of a ticket",
      description: `Title, status, linked invoice and every message, oldest first; never the e-mail. ${keyRule}`,
      params: schema.PublicTicketParams,
      querystring: schema.AccessKeyQuery,
      response: publicResponses(schema.PublicTicket),
    },
    handler: async (request) =>
      ok(await service.getPublicTicket(ctx, request.params.ticketId, request.query.accessKey)),
  });

  app.post('/tickets/:ticketId/message', {
    config: { public: true },
    schema: {
      tags,
      summary: 'Write on a ticket as the customer',
      description: `content 1–5,000 characters (trimmed; blank is a 400). The ticket becomes \`open\`; a closed ticket is a 409. Writes a \`ticket.message\` event. ${keyRule}`,
      params: schema.PublicTicketParams,
      querystring: schema.AccessKeyQuery,
      body: schema.MessageBody,
      response: publicResponses(schema.PublicTicket, [409]),
    },
    handler: async (request) =>
      ok(
        await service.postCustomerMessage(ctx, request.params.ticketId, request.query.accessKey, request.body.content),
      ),
  });
};
