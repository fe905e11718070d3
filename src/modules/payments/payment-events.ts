import type { Context } from '../../domain/context.js';
import * as events from './events.repository.js';

/**
 * The hourly sweep of applied provider events (src/jobs/maintenance.ts): a delivery older than
 * PAYMENT_EVENT_RETENTION_MS is no longer retried, so its key has nothing left to guard. The
 * number of events deleted.
 */
export function sweepPaymentEvents(ctx: Context, now = ctx.clock.now()): Promise<number> {
  return events.sweepPaymentEvents(ctx.db, now);
}
