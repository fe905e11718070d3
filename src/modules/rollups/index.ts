// The rollups module's door. Rollups are the dashboards' figures per shop-local day, kept as
// deltas in day buckets: written by their subscriber to the domain events (subscribers.ts) in the
// transaction of each change, rebuilt from the invoices by `shopd rollups rebuild` and after a
// timezone change, read by the dashboards and by the invoice list's counts.
export type { RangeBreakdown, RangeBuyers, RangeSales } from './figures.js';
export { breakdownOfRange, buyersOfRange, countInvoicesCreatedIn, salesOfRange } from './figures.js';
export type { LocalDaySplit } from './local-days.js';
export { DAY_MS, splitAtLocalMidnights } from './local-days.js';
export { rebuildRollupsCommand } from './rebuild-command.js';
export type { Range } from './repository.js';
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
