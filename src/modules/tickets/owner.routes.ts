import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { currentShop } from '../../http/auth.js';
import { CursorPage, ok, ownerResponses, ShopParams } from '../../schemas/common.js';
import * as schema from './schema.js';
import * as service from './service.js';

const tags = ['Tickets'];

const lifecycle =
  'Status moves by a declared table: a shop message makes a ticket `answered`, a customer message `open`, closing `closed`; a closed ticket takes no message and no second close (409).';

export const ticketOwnerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const ctx = app.ctx;
  const mail = { links: app.config, secrets: app.secrets };

  app.get('/:shopId/tickets', {
    schema: {
      tags,
      summary: 'List tickets',
      description:
        'Latest activity first (updatedAt, then id: a new message or a close moves a ticket to the top), each with its messages. ' +
        '`status` keeps one status; `searchString` matches title and e-mail. Keyset `cursor` paging; a ticket that moves while you page may be seen twice or not at all.',
      params: ShopParams,
      querystring: schema.TicketListQuery,
      response: ownerResponses(CursorPage(schema.OwnerTicket)),
    },
    handler: async (request) => ok(await service.listTickets(ctx, currentShop(request), request.query)),
  });

  app.get('/:shopId/tickets/:ticketId', {
    schema: {
      tags,
      summary: 'Get one ticket with its messages',
      params: schema.TicketParams,
      response: ownerResponses(schema.OwnerTicket),
    },
    handler: async (request) => ok(await service.getTicket(ctx, currentShop(request), request.params.ticketId)),
  });

  app.post('/:shopId/tickets/:ticketId/message', {
    schema: {
      tags,
      summary: 'Answer a ticket',
      description: `content 1–5,000 characters, trimmed (blank is a 400). The customer is mailed the answer and the ticket page link (a ticket opened before links were mailed gets the answer without the link). ${lifecycle} Writes a \`ticket.message\` event.`,
      params: schema.TicketParams,
      body: schema.MessageBody,
      response: ownerResponses(schema.OwnerTicket, [409]),
    },
    handler: async (request) =>
      ok(await service.postShopMessage(ctx, currentShop(request), request.params.ticketId, request.body.content, mail)),
  });

  app.post('/:shopId/tickets/:ticketId/close', {
    schema: {
      tags,
      summary: 'Close a ticket',
      description: `${lifecycle} Closing is final.`,
      params: schema.TicketParams,
      response: ownerResponses(schema.OwnerTicket, [409]),
    },
    handler: async (request) => ok(await service.closeTicket(ctx, currentShop(request), request.params.ticketId)),
  });
};
