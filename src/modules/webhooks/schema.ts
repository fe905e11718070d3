import { Type } from '@sinclair/typebox';
import { Id, Nullable, StringEnum, Timestamp } from '../../schemas/common.js';
import { eventTypes } from '../events/service.js';

export const WebhookParams = Type.Object({ shopId: Id, webhookId: Id });

export const WebhookInput = Type.Object({
  url: Type.String({
    minLength: 1,
    maxLength: 2048,
    description: 'http or https; must resolve to public addresses only (checked again at every delivery) unless the server allows private ones.',
  }),
  events: Type.Array(StringEnum(eventTypes), { minItems: 1, maxItems: eventTypes.length, description: 'Event types to receive.' }),
  enabled: Type.Optional(Type.Boolean({ default: true })),
});

export const Webhook = Type.Object({
  id: Type.Integer(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  enabled: Type.Boolean(),
  disabledReason: Nullable(Type.String({ description: 'Set when the service turned the endpoint off (it answered 410).' })),
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

export const PingResult = Type.Object({
  eventId: Type.String(),
  ok: Type.Boolean(),
  statusCode: Nullable(Type.Integer()),
  durationMs: Type.Integer(),
  error: Nullable(Type.String()),
});
