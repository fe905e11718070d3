// The events module's door: what other modules and the composition root (src/app.ts, src/cli.ts) use of it.

export type { EventType } from './service.js';
export { recordEvent } from './service.js';
export { subscribe as subscribeEvents } from './subscribers.js';
