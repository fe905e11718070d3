import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { currentShop } from '../../http/auth.js';
import { Nullable, ok, ownerResponses, Page, PageQuery, ShopParams, Timestamp } from '../../schemas/common.js';
import { shopOutbox } from './service.js';

const STATUSES = [
  Type.Literal('pending'),
  Type.Literal('sending'),
  Type.Literal('sent'),
  Type.Literal('failed'),
  Type.Literal('dropped'),
];

const MailStatus = Type.Union(STATUSES, {
  description:
    '`pending` waits to be sent (or to be tried again), `sending` is being sent, `sent` was taken by the mail server, ' +
    '`failed` was given up after its tries, `dropped` will never be sent (an address that cannot receive mail, or ' +
    "held back by the shop's mail budgets: then `suppressed`).",
});

const OutboxMail = Type.Object({
  id: Type.Integer(),
  to: Type.String(),
  subject: Type.String(),
  status: MailStatus,
  suppressed: Type.Boolean({
    description: "Held back by the shop's mail budgets (`settings/protection`); `reason` says which.",
  }),
  reason: Nullable(Type.String({ description: 'Why it was dropped, or the last error of a try.' })),
  attempts: Type.Integer(),
  createdAt: Timestamp,
  sentAt: Nullable(Timestamp),
});

const OutboxQuery = Type.Composite([
  PageQuery,
  Type.Object({
    status: Type.Optional(
      Type.Union([...STATUSES, Type.Literal('suppressed')], {
        description: 'Only mails in this status; `suppressed`: only the mails the budgets held back.',
      }),
    ),
  }),
]);

export const mailOwnerRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/:shopId/mail', {
    schema: {
      tags: ['Mail'],
      summary: "List the shop's mail",
      description:
        'Every mail the shop sent or was to send, newest first: to whom, the subject, its status and why it was dropped. ' +
        "A mail held back by the shop's mail budgets is `dropped` with `suppressed: true` and the budget in `reason` " +
        '(`status=suppressed` lists only those); `searchString` matches the recipient and the subject. Never the body: ' +
        'a delivery mail carries the goods.',
      params: ShopParams,
      querystring: OutboxQuery,
      response: ownerResponses(Page(OutboxMail)),
    },
    handler: async (request) => ok(await shopOutbox(app.ctx, currentShop(request).id, request.query)),
  });
};
