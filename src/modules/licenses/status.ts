import { ConflictError } from '../../http/errors.js';
import type { LicenseRow, LicenseState } from './licenses.table.js';

/** What a licence is, as every answer shows it. */
export const licenseStatuses = ['active', 'inactive', 'expired', 'disabled', 'revoked'] as const;
export type LicenseStatus = (typeof licenseStatuses)[number];

/**
 * The one place a licence's status is derived, first match wins: `revoked` (a refund or the
 * owner ended it for good), `disabled` (the owner paused it), `expired` (its end has come:
 * `expires_at` ≤ now), `active` (activated on at least one instance), else `inactive`.
 */
export function licenseStatus(
  license: Pick<LicenseRow, 'state' | 'expires_at' | 'activation_usage'>,
  now: number,
): LicenseStatus {
  if (license.state === 'revoked') return 'revoked';
  if (license.state === 'disabled') return 'disabled';
  if (license.expires_at !== null && license.expires_at <= now) return 'expired';
  return license.activation_usage > 0 ? 'active' : 'inactive';
}

/** A licence in one of these statuses can be used: activated, validated. */
export function isUsable(status: LicenseStatus): boolean {
  return status === 'active' || status === 'inactive';
}

/** What the owner (or a refund) can do to a licence's stored state. */
export type LicenseAction = 'disable' | 'enable' | 'revoke';

/**
 * The stored state as a declared table: a licence is disabled and enabled again at will, and
 * revoked for good; a revoked licence takes nothing more. Expiry is not a state: it follows from
 * `expires_at` and the clock (licenseStatus).
 */
export const licenseTransitions: Readonly<
  Record<LicenseState, Readonly<Partial<Record<LicenseAction, LicenseState>>>>
> = {
  enabled: { disable: 'disabled', revoke: 'revoked' },
  disabled: { enable: 'enabled', revoke: 'revoked' },
  revoked: {},
};

const verbs: Record<LicenseAction, string> = { disable: 'be disabled', enable: 'be enabled', revoke: 'be revoked' };

/** The state after `action`, or a 409 when the table does not allow it. */
export function nextLicenseState(from: LicenseState, action: LicenseAction): LicenseState {
  const to = licenseTransitions[from][action];
  if (to === undefined)
    throw new ConflictError(`The license is ${from}; it cannot ${verbs[action]}.`, [`state: is ${from}`]);
  return to;
}
