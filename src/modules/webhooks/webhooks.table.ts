import type { Generated, Selectable } from 'kysely';

export interface WebhookEndpointsTable {
  id: Generated<number>;
  shop_id: number;
  url: string;
  /** JSON array of event types. */
  events: string;
  enabled: Generated<number>;
  /** Why the service turned it off (the endpoint answered 410), or null. */
  disabled_reason: Generated<string | null>;
  /** Sealed `whsec_…` signing secret. */
  secret: string;
  created_at: number;
  updated_at: number;
}

export type DeliveryStatus = 'pending' | 'delivering' | 'succeeded' | 'failed';

export interface WebhookDeliveriesTable {
  id: Generated<number>;
  shop_id: number;
  webhook_id: number;
  event_id: string;
  /**
   * The object the event is about (`invoice:<id>`, ...): deliveries of one endpoint with the
   * same key go out one at a time, in order. Null (rows from before keys): in order with all.
   */
  ordering_key: Generated<string | null>;
  status: Generated<DeliveryStatus>;
  attempts: Generated<number>;
  next_attempt_at: number;
  created_at: number;
  delivered_at: Generated<number | null>;
}

export interface WebhookAttemptsTable {
  id: Generated<number>;
  shop_id: number;
  webhook_id: number;
  delivery_id: number;
  event_id: string;
  event_type: string;
  attempt: number;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  created_at: number;
}

export type WebhookRow = Selectable<WebhookEndpointsTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
