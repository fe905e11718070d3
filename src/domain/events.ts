import type { Selectable } from 'kysely';
import type { Database } from '../db/schema.js';
import { Dispatcher } from './dispatcher.js';

/**
 * The domain events of orders, feedbacks and the catalog and what each carries: enough for every
 * subscriber to do its part without reading the change back. Emitted by src/modules/orders (and
 * feedbacks, and products); subscribed to in each module's subscribers.ts.
 */
type Row<T extends keyof Database> = Selectable<Database[T]>;

/** What an `invoice.*` or `feedback.*` webhook event reports (src/modules/webhooks publishes it). */
export interface WebhookFacts {
  /** When it happened (the event's `created_at`). */
  at: number;
  data: Record<string, unknown>;
  /** The invoice as the owner API shows it, read in the transaction when an endpoint wants it. */
  detail?: () => Promise<Record<string, unknown>>;
}

/** What a part of an invoice delivered: `quantity` items (fewer than the part's for a replacement). */
export interface PartDelivery {
  part: Row<'invoice_parts'>;
  quantity: number;
  deliverables: string[];
}

interface InvoiceEvent {
  invoice: Row<'invoices'>;
  now: number;
  webhook: WebhookFacts;
}

export interface DomainEvents {
  /** A new pending invoice, its stock reserved and its parts written. */
  'invoice.created': InvoiceEvent & {
    shop: Row<'shops'>;
    parts: Row<'invoice_parts'>[];
    /** The gateway's public fields (its payment instructions); undefined when turned off. */
    fields: Record<string, string> | undefined;
    customerCreated: boolean;
  };
  /** A pending invoice completed: status, deliverables, balance and customer totals written. */
  'invoice.completed': InvoiceEvent & {
    parts: Row<'invoice_parts'>[];
    repeatPurchase: boolean;
    delivered: PartDelivery[];
  };
  /** A pending invoice expired unpaid. */
  'invoice.expired': InvoiceEvent & { parts: Row<'invoice_parts'>[] };
  /** A pending invoice cancelled. */
  'invoice.cancelled': InvoiceEvent & { parts: Row<'invoice_parts'>[] };
  /** Items of a completed part delivered again (the replacement row written). */
  'invoice.replaced': InvoiceEvent & { replacement: PartDelivery };
  /** A refund made: its row succeeded, the invoice's `refunded` counting it, a balance refund credited. */
  'invoice.refunded': InvoiceEvent & {
    refund: {
      id: number;
      amount: number;
      /** The amount in the shop's currency today (the buyer's lifetime spend is kept in it). */
      localAmount: number;
      reason: string | null;
      method: string;
      createdAt: number;
    };
  };
  /**
   * A payment dispute (chargeback) opened about a completed invoice (the disputes module's row
   * written): the order's licences and downloads end as on a full refund; the invoice keeps its status.
   */
  'invoice.disputed': InvoiceEvent & {
    dispute: {
      id: number;
      providerDisputeId: string;
      status: string;
      reason: string;
      amount: number;
      currency: string;
    };
  };
  /** A new feedback on an invoice (the row written). */
  'feedback.created': {
    feedback: { id: number; shopId: number; invoiceId: string; rating: number; createdAt: number };
    webhook: WebhookFacts;
  };
  /** A feedback hidden by an accepted appeal: it no longer counts anywhere. */
  'feedback.withdrawn': { shopId: number; feedback: { rating: number; createdAt: number } };
  /**
   * Products removed from the catalog (soft-deleted, their variants with them), under the owner's
   * shop lock: whatever still names them as part of the live catalog (a group's members) lets go.
   */
  'products.deleted': { shopId: number; productIds: number[]; now: number };
}

export type DomainEventType = keyof DomainEvents;

export const domainEventTypes = [
  'invoice.created',
  'invoice.completed',
  'invoice.expired',
  'invoice.cancelled',
  'invoice.replaced',
  'invoice.refunded',
  'invoice.disputed',
  'feedback.created',
  'feedback.withdrawn',
  'products.deleted',
] as const satisfies DomainEventType[];

/** The types whose events carry a webhook's facts. */
export const webhookEventTypes = [
  'invoice.created',
  'invoice.completed',
  'invoice.expired',
  'invoice.cancelled',
  'invoice.replaced',
  'invoice.refunded',
  'invoice.disputed',
  'feedback.created',
] as const satisfies DomainEventType[];

export type DomainEventBus = Dispatcher<DomainEvents>;

/** The one dispatcher; its handlers are module functions, the same for every app in the process. */
export const domainEvents: DomainEventBus = new Dispatcher<DomainEvents>();

/** The shop an event is about. */
export function shopOf<K extends DomainEventType>(type: K, event: DomainEvents[K]): number {
  if (type === 'feedback.created') return (event as DomainEvents['feedback.created']).feedback.shopId;
  if (type === 'feedback.withdrawn') return (event as DomainEvents['feedback.withdrawn']).shopId;
  if (type === 'products.deleted') return (event as DomainEvents['products.deleted']).shopId;
  return (event as InvoiceEvent).invoice.shop_id;
}
