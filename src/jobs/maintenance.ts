import type { FastifyBaseLogger } from 'fastify';
import { atTime, type Context } from '../domain/context.js';
import { sweepIdempotencyKeys } from '../http/idempotency.js';
import { sweepOwnerSessions } from '../modules/accounts/index.js';
import { sweepChallenges } from '../modules/challenge/index.js';
import { sweepCustomerSessions } from '../modules/customer-sessions/index.js';
import { expireOverdue, type PaymentPort, sendDueReminders } from '../modules/orders/index.js';
import { sweepPaymentEvents } from '../modules/payments/index.js';
import type { Job } from './runner.js';

const HOUR = 60 * 60 * 1000;

/**
 * Expires every overdue invoice of every shop, every INVOICE_EXPIRY_INTERVAL_MS. Reads that show
 * invoices expire their shop's overdue ones first (orders' `expireOverdue`), so the job only
 * bounds how long an invoice nobody looks at holds its stock; it need not drain. Then it closes
 * the provider pages that outlive expired orders (PaymentPort `closeLapsedPages`), however those
 * expired. Answers how many invoices it expired.
 */
export function invoiceExpiryJob(ctx: Context, payments?: Pick<PaymentPort, 'closeLapsedPages'>): Job {
  return {
    name: 'invoice-expiry',
    intervalMs: ctx.config.invoices.expiryIntervalMs,
    scheduled: true,
    drains: false,
    async run(now) {
      const at = atTime(ctx, now);
      const expired = await expireOverdue(at);
      await payments?.closeLapsedPages(at);
      return expired;
    },
  };
}

/**
 * Sends the one reminder of every unpaid order whose reminder is due (orders' payment-reminders.ts),
 * as often as invoices expire. Answers how many it sent.
 */
export function paymentRemindersJob(ctx: Context): Job {
  return {
    name: 'payment-reminders',
    intervalMs: ctx.config.invoices.expiryIntervalMs,
    scheduled: true,
    drains: false,
    run: (now) => sendDueReminders(atTime(ctx, now)),
  };
}

/**
 * Hourly: deletes what has outlived its use (Idempotency-Keys past their 24 h, customer and owner
 * sessions and codes that can open nothing any more, applied payment events past their
 * retention). Each sweep is tried on its own: one that fails is logged, the others still run, and
 * it is tried again at the next pass. A row a stopped server missed is refused all the same.
 */
export function sweepsJob(ctx: Context, log: FastifyBaseLogger, health?: { report(err: unknown): unknown }): Job {
  const sweeps: [string, (now: number) => Promise<number>][] = [
    ['idempotency keys', (now) => sweepIdempotencyKeys(ctx.db, now)],
    ['customer sessions', (now) => sweepCustomerSessions(ctx.db, now)],
    ['owner sessions', (now) => sweepOwnerSessions(ctx.db, now)],
    ['payment events', (now) => sweepPaymentEvents(ctx, now)],
    ['challenges', (now) => sweepChallenges(ctx, now)],
  ];
  const sweepLog = log.child({ job: 'sweeps' });
  return {
    name: 'sweeps',
    intervalMs: HOUR,
    scheduled: true,
    drains: false,
    async run(now) {
      let swept = 0;
      for (const [what, sweep] of sweeps) {
        try {
          swept += await sweep(now);
        } catch (err) {
          // A database outage is logged once by the database's health (storage-health.ts).
          if (health?.report(err)) sweepLog.debug({ err, sweep: what }, 'sweep failed');
          else sweepLog.warn({ err, sweep: what }, 'sweep failed; tried again at the next pass');
        }
      }
      return swept;
    },
  };
}
