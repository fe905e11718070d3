import { type Static, Type } from '@sinclair/typebox';
import {
  CursorPageQuery,
  Email,
  Id,
  NonBlankText,
  Nullable,
  OptionalNullable,
  StringEnum,
  Timestamp,
} from '../../schemas/common.js';
import { references } from '../../schemas/rules.js';
import { InvoiceId } from '../orders/index.js';

export const ticketStatuses = ['open', 'answered', 'closed'] as const;
const TicketStatus = StringEnum(ticketStatuses);

const MessageContent = NonBlankText({ maxLength: 5000 });

export const CreateTicketBody = Type.Object({
  email: Email('Where the shop can reach the customer; stored lower-case, never shown on public pages.'),
  title: NonBlankText({ maxLength: 200 }),
  message: MessageContent,
  invoiceId: OptionalNullable({
    ...InvoiceId,
    description: 'An invoice of this shop the ticket is about (400 otherwise).',
    ...references('invoice'),
  }),
  key: OptionalNullable(
    Type.String({
      maxLength: 128,
      description: 'The storefront password, when the shop has one (403 shop_locked otherwise).',
    }),
  ),
});
export type CreateTicketBody = Static<typeof CreateTicketBody>;

export const TicketCreated = Type.Object({
  id: Type.Integer(),
  accessKey: Type.String({
    description:
      'Opens the ticket on /v2/public/tickets/{ticketId}; also mailed to the customer inside the ticket page link.',
  }),
});

export const AccessKeyQuery = Type.Object({
  accessKey: Type.String({ minLength: 1, maxLength: 128, description: 'The key from the ticket creation.' }),
});
export type AccessKeyQuery = Static<typeof AccessKeyQuery>;

export const PublicTicketParams = Type.Object({ ticketId: Id });
export const TicketParams = Type.Object({ shopId: Id, ticketId: Id });

export const MessageBody = Type.Object({ content: MessageContent });
export type MessageBody = Static<typeof MessageBody>;

const TicketMessage = Type.Object({
  id: Type.Integer(),
  author: StringEnum(['customer', 'shop'] as const),
  content: Type.String(),
  createdAt: Timestamp,
});

export const OwnerTicket = Type.Object({
  id: Type.Integer(),
  title: Type.String(),
  email: Type.String(),
  invoiceId: Nullable(Type.String()),
  status: TicketStatus,
  messages: Type.Array(TicketMessage, { description: 'Oldest first.' }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

/** The customer's view: what they wrote and the shop's answers; no e-mail or other customer data. */
export const PublicTicket = Type.Object({
  id: Type.Integer(),
  shopId: Type.Integer(),
  title: Type.String(),
  invoiceId: Nullable(Type.String()),
  status: TicketStatus,
  messages: Type.Array(TicketMessage, { description: 'Oldest first.' }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const TicketListQuery = Type.Composite([
  CursorPageQuery,
  Type.Object({ status: Type.Optional(StringEnum(ticketStatuses, { description: 'Only tickets in this status.' })) }),
]);
export type TicketListQuery = Static<typeof TicketListQuery>;
