// The mail module's door: what other modules and the composition root (src/app.ts, src/cli.ts) use of it.

export type { MailWorker } from './service.js';
export { deliveryMail, enqueueMail, startMailWorker } from './service.js';
