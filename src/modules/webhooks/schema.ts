import { Type } from '@sinclair/typebox';
import { HttpUrl, Id, Nullable, OptionalNullable, StringEnum, Timestamp } from '../../schemas/common.js';
import { eventTypes } from './event-types.js';

export const WebhookParams = Type.Object({ shopId: Id, webhookId: Id });
export const DeliveryParams = Type.Object({ shopId: Id, webhookId: Id, deliveryId: Id });

export const WebhookInput = Type.Object({
  url: HttpUrl(
    'It must resolve to public addresses only (400 otherwise; checked again at every delivery) unless the server allows private ones.',
  ),
  events: Type.Array(StringEnum(eventTypes), {
    minItems: 1,
    maxItems: eventTypes.length,
    description: 'Event types to receive.',
  }),
  enabled: OptionalNullable(Type.Boolean({ default: true, description: 'null or omitted: true.' })),
});

export const Webhook = Type.Object({
  id: Type.Integer(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  enabled: Type.Boolean(),
  disabledReason: Nullable(
    Type.String({ description: 'Set when the service turned the endpoint off (it answered 410).' }),
  ),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const CreatedWebhook = Type.Composite([
  Webhook,
  Type.Object({ secret: Type.String({ description: 'The `whsec_…` signing secret. Shown only now.' }) }),
]);

export const Attempt = Type.Object({
  id: Type.Integer(),
  deliveryId: Type.Integer(),
  eventId: Type.String(),
  eventType: Type.String(),
  attempt: Type.Integer(),
  statusCode: Nullable(Type.Integer()),
  durationMs: Type.Integer(),
  error: Nullable(Type.String()),
  createdAt: Timestamp,
});

export const Delivery = Type.Object({
  id: Type.Integer({ description: 'The deliveryId of its attempts in the deliveries log.' }),
  eventId: Type.String({ description: 'Sent as webhook-id; the same on every attempt and resend.' }),
  eventType: Type.String(),
  status: StringEnum(['pending', 'delivering', 'succeeded', 'failed'] as const),
  attempts: Type.Integer({ description: 'Attempts made so far, resends included.' }),
  nextAttemptAt: Nullable(
    Type.String({ format: 'date-time', description: 'When it is due, while it is pending; otherwise null.' }),
  ),
  deliveredAt: Nullable(
    Type.String({ format: 'date-time', description: 'When an attempt last succeeded, or null if none has.' }),
  ),
  createdAt: Timestamp,
});

export const PingResult = Type.Object({
  eventId: Type.String(),
  ok: Type.Boolean(),
  statusCode: Nullable(Type.Integer()),
  durationMs: Type.Integer(),
  error: Nullable(Type.String()),
});
