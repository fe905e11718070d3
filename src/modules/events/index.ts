// The events module's door: the event store (recording and reading the events the webhooks
// deliver). The webhooks module records through it; nothing here knows of endpoints.

export { findEvent, recordEvent, type StoredEvent } from './service.js';
