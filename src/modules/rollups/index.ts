// The rollups module's door. Rollups are the dashboards' figures per shop-local day, kept as
// deltas in day buckets: written by their subscriber to the domain events (subscribers.ts) in the
// transaction of each change, rebuilt from the invoices by `shopd rollups rebuild` and after a
// timezone change, read by the dashboards and by the invoice list's counts.
export type { LocalDaySplit } from './local-days.js';
export { DAY_MS, dayStart, localDayOf, splitAtLocalMidnights } from './local-days.js';
export { rebuildRollupsCommand } from './rebuild-command.js';
export type { ProductSales, Range, Rollups } from './repository.js';
export {
  countCreatedInvoices,
  partTitles,
  rawGateways,
  rawHours,
  rawProducts,
  rawTotals,
  rollupGateways,
  rollupHours,
  rollupLastParts,
  rollupProducts,
  rollupSeries,
  rollupTotals,
  rollupView,
  zeroTotals,
} from './repository.js';
export type { DayTotals } from './rollup-rows.js';
export { TOTAL_COLUMNS } from './rollup-rows.js';
export type { RollupSource } from './rollups.js';
export {
  rebuildInBackground,
  rebuildRollups,
  resumeRollupRebuilds,
  startRollupRebuild,
  stopRollupRebuilds,
} from './rollups.js';
export { subscribe as subscribeRollups } from './subscribers.js';
