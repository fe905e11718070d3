import type { LicenseStatus } from '../../api/queries/licenses';
import { strings } from '../../strings';

export const licenseStatusLabels: Record<LicenseStatus, string> = strings.licenses.statusLabels;
export const licenseStatusTones = {
  active: 'ok',
  inactive: 'info',
  expired: 'muted',
  disabled: 'warn',
  revoked: 'bad',
} as const;

/** "2 of 3", "1 of unlimited": the instances a licence is activated on. */
export function activationText(license: { activationUsage: number; activationLimit: number | null }): string {
  return strings.licenses.activations(
    license.activationUsage,
    license.activationLimit === null ? strings.licenses.unlimited : license.activationLimit,
  );
}
