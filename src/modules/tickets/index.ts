// The tickets module's door: what other modules and the composition root (src/app.ts, src/cli.ts) use of it.
export { ticketOwnerRoutes } from './owner.routes.js';
export { ticketPublicRoutes } from './public.routes.js';
export type { CreateTicketBody } from './schema.js';
export { getPublicTicket, openTicket, postCustomerMessage, type TicketMailOptions } from './service.js';
