import { toIso } from '../../schemas/common.js';
import type { LicenseActivationRow, LicenseRow } from './licenses.table.js';
import { licenseStatus } from './status.js';

/** Row → wire shapes: what a program is told, the buyer's view, the owner's. */

/** What the program calling activate/validate sees (and `licensesOfInvoice` adds id and key to). */
export function toPublicLicense(l: LicenseRow, now: number) {
  return {
    status: licenseStatus(l, now),
    activationLimit: l.activation_limit,
    activationUsage: l.activation_usage,
    expiresAt: toIso(l.expires_at),
    productId: l.product_id,
  };
}

export function toInvoiceLicense(l: LicenseRow, now: number) {
  return { id: l.id, licenseKey: l.license_key, ...toPublicLicense(l, now) };
}

export function toCustomerLicense(l: LicenseRow, live: LicenseActivationRow[], now: number) {
  return {
    ...toInvoiceLicense(l, now),
    invoiceId: l.invoice_id,
    createdAt: toIso(l.created_at),
    instances: live.map((a) => ({ id: a.id, name: a.name, createdAt: toIso(a.created_at) })),
  };
}

export function toOwnerLicense(l: LicenseRow, now: number) {
  return {
    ...toInvoiceLicense(l, now),
    variantId: l.variant_id,
    invoiceId: l.invoice_id,
    customerId: l.customer_id,
    email: l.email,
    createdAt: toIso(l.created_at),
    updatedAt: toIso(l.updated_at),
  };
}

export function toActivation(a: LicenseActivationRow) {
  return { id: a.id, name: a.name, createdAt: toIso(a.created_at), deactivatedAt: toIso(a.deactivated_at) };
}
