import { type DomainEventBus, shopOf, webhookEventTypes } from '../../domain/events.js';
import { publishEvent } from './publish.js';

/** The webhook outbox: every event that carries a webhook's facts is recorded, and queued for the endpoints subscribed to it. */
export function subscribe(events: DomainEventBus): void {
  for (const type of webhookEventTypes) {
    events.on(type, async (tx, event) => {
      const { webhook } = event;
      await publishEvent(tx.db, shopOf(type, event), type, webhook.data, webhook.at, webhook.detail);
    });
  }
}
