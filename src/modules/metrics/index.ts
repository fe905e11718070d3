// The metrics module's door: what the composition root (src/app.ts) uses of it.
export { type Metrics, metricsRoutes, registerMetrics } from './metrics.js';
