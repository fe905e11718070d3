// The blacklist module's door: what other modules and the composition root (src/app.ts, src/cli.ts, src/server.ts) use of it.
export { blacklistOwnerRoutes } from './owner.routes.js';
export { blockBuyer, findBlock } from './service.js';
export type { VpnRanges } from './vpn-ranges.js';
export { assertVpnBlockingAvailable, BLOCK_VPN_DESCRIPTION, loadVpnRanges } from './vpn-ranges.js';
