import type { DomainEventBus, DomainEvents } from '../../domain/events.js';
import { type RollupChange, type RollupSource, recordRollupChanges } from './rollups.js';

type InvoiceRow = DomainEvents['invoice.created']['invoice'];
type InvoiceSource = Extract<RollupSource, { kind: 'invoice' }>;

/** A pending invoice as the rollups count it. */
const pendingSource = (invoice: InvoiceRow): InvoiceSource => ({
  kind: 'invoice',
  createdAt: invoice.created_at,
  status: 'pending',
  gateway: invoice.gateway,
  total: invoice.total,
  completedAt: null,
  repeatPurchase: false,
  parts: [],
});

/**
 * The dashboards' rollups follow every change of what they count. Registered `last`: the shop's
 * rollup lock (`rollup_state`), which recordRollupChanges takes, is the last lock of every write
 * transaction (the lock order, docs/internals.md).
 */
export function subscribe(events: DomainEventBus): void {
  const record = <K extends keyof DomainEvents>(
    type: K,
    changes: (event: DomainEvents[K]) => [number, RollupChange[]],
  ) =>
    events.on(
      type,
      (tx, event) => {
        const [shopId, list] = changes(event);
        return recordRollupChanges(tx.db, shopId, list);
      },
      { last: true },
    );

  record('invoice.created', ({ invoice, customerCreated, now }) => {
    const list: RollupChange[] = [{ before: null, after: pendingSource(invoice) }];
    if (customerCreated) list.push({ before: null, after: { kind: 'customer', createdAt: now } });
    return [invoice.shop_id, list];
  });
  record('invoice.completed', ({ invoice, parts, now, repeatPurchase }) => [
    invoice.shop_id,
    [
      {
        before: pendingSource(invoice),
        after: {
          ...pendingSource(invoice),
          status: 'completed',
          completedAt: now,
          repeatPurchase,
          parts: parts.map((p) => ({ id: p.id, productId: p.product_id, quantity: p.quantity, total: p.total })),
        },
      },
    ],
  ]);
  for (const status of ['expired', 'cancelled'] as const) {
    record(`invoice.${status}`, ({ invoice }) => [
      invoice.shop_id,
      [{ before: pendingSource(invoice), after: { ...pendingSource(invoice), status } }],
    ]);
  }
  record('invoice.replaced', ({ invoice, replacement, now }) => [
    invoice.shop_id,
    [{ before: null, after: { kind: 'replacement', createdAt: now, quantity: replacement.quantity } }],
  ]);
  record('invoice.refunded', ({ invoice, refund }) => [
    invoice.shop_id,
    [{ before: null, after: { kind: 'refund', createdAt: refund.createdAt, amount: refund.amount } }],
  ]);
  record('feedback.created', ({ feedback }) => [
    feedback.shopId,
    [{ before: null, after: { kind: 'feedback', createdAt: feedback.createdAt, rating: feedback.rating } }],
  ]);
  record('feedback.withdrawn', ({ shopId, feedback }) => [
    shopId,
    [{ before: { kind: 'feedback', createdAt: feedback.createdAt, rating: feedback.rating }, after: null }],
  ]);
}
