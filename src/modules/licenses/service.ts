import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Context } from '../../domain/context.js';
import { NotFoundError, UnprocessableError } from '../../http/errors.js';
import { toIso } from '../../schemas/common.js';
import { publishEvent } from '../webhooks/index.js';
import type { LicenseActivationRow, LicenseRow } from './licenses.table.js';
import * as repo from './repository.js';
import type { ActivateBody, DeactivateBody, ValidateBody } from './schema.js';
import { type SignerCache, signLicenseToken } from './signing.js';
import { isUsable, licenseStatus } from './status.js';
import { toCustomerLicense, toInvoiceLicense, toPublicLicense } from './views.js';

type Conn = Kysely<Database>;

/** The licences an order's part issues (products' fulfilment builds it). */
export interface IssueLicensesInput {
  invoiceId: string;
  productId: number;
  variantId: number;
  customerId: number | null;
  email: string;
  /** One licence per key: the delivered serials, or keys from generateLicenseKeys. */
  keys: string[];
  /** Instances each may be activated on at once; null = unlimited. */
  activationLimit: number | null;
  /** Epoch ms; null = never. */
  expiresAt: number | null;
}

/**
 * Issues one licence per key, in the caller's transaction (the order's completion). A key the
 * shop has already licensed — a serial restocked and sold again — keeps its existing licence:
 * the order does not fail, and that licence stays with its first buyer (the owner sees both
 * orders; disable or revoke the old one by hand if the serial changed hands on purpose).
 */
export async function issueLicenses(db: Conn, shopId: number, input: IssueLicensesInput, now: number): Promise<void> {
  const email = input.email.trim().toLowerCase();
  await repo.insertLicenses(
    db,
    [...new Set(input.keys)].map((key) => ({
      shop_id: shopId,
      license_key: key,
      product_id: input.productId,
      variant_id: input.variantId,
      invoice_id: input.invoiceId,
      customer_id: input.customerId,
      email,
      activation_limit: input.activationLimit,
      expires_at: input.expiresAt,
      created_at: now,
      updated_at: now,
    })),
  );
}

/** The licences an invoice issued, for the owner's invoice view; `now` decides which have expired. */
export async function licensesOfInvoice(db: Conn, shopId: number, invoiceId: string, now = Date.now()) {
  return (await repo.licensesOfInvoice(db, shopId, invoiceId)).map((l) => toInvoiceLicense(l, now));
}

/**
 * The activations of the order's licences (the instance's name, when, and when it ended), as a
 * dispute's evidence shows them: which licence and product, never the key.
 */
export async function licenseActivationsOfInvoice(db: Conn, shopId: number, invoiceId: string) {
  return (await repo.activationsOfInvoice(db, shopId, invoiceId)).map((a) => ({
    licenseId: a.license_id,
    productId: a.product_id,
    instance: a.name,
    activatedAt: toIso(a.created_at),
    deactivatedAt: a.deactivated_at === null ? null : toIso(a.deactivated_at),
    ip: a.ip,
    userAgent: a.user_agent,
  }));
}

/** How a licence's facts are announced to webhooks: which licence, of which order, and what happened. */
export function publishLicenseEvent(
  db: Conn,
  type: 'license.activated' | 'license.deactivated' | 'license.revoked',
  license: LicenseRow,
  extra: Record<string, unknown>,
  now: number,
): Promise<string> {
  return publishEvent(
    db,
    license.shop_id,
    type,
    {
      licenseId: license.id,
      licenseKey: license.license_key,
      productId: license.product_id,
      invoiceId: license.invoice_id,
      ...extra,
    },
    now,
  );
}

const unknownKey = () => new NotFoundError('License', ['licenseKey: is not a license key of this shop']);

async function licenseOfKey(db: Conn, shopId: number, licenseKey: string): Promise<LicenseRow> {
  const license = await repo.findLicenseByKey(db, shopId, licenseKey.trim());
  if (!license) throw unknownKey();
  return license;
}

/** Why an activation was refused, from the licence as it is now. */
function refusal(license: LicenseRow, now: number): UnprocessableError {
  const status = licenseStatus(license, now);
  if (!isUsable(status))
    return new UnprocessableError(`The license is ${status}: it cannot be activated.`, [`licenseKey: is ${status}`]);
  return new UnprocessableError(
    `The license has reached its activation limit: ${license.activation_usage} of ${license.activation_limit} instances. Deactivate one first.`,
    [`licenseKey: has reached its activation limit of ${license.activation_limit}`],
  );
}

/**
 * Activates the licence on a new instance. One transaction: the licence's usage goes up by one in
 * a single conditional update (enabled, not expired, under the limit: repo.takeActivation), then
 * the instance is written and `license.activated` published; so of any number of concurrent
 * activations exactly as many as the limit allows succeed. Refused: 422 naming the status or the
 * limit; an unknown key (or another shop's): 404. The token is signed once the activation committed.
 */
export async function activateLicense(
  ctx: Context,
  signer: SignerCache,
  shopId: number,
  body: ActivateBody,
  client: { ip: string | null; userAgent: string | null },
) {
  const { license, instanceId } = await ctx.db.transaction().execute(async (trx) => {
    const found = await licenseOfKey(trx, shopId, body.licenseKey);
    const now = ctx.clock.now();
    const taken = await repo.takeActivation(trx, shopId, found.id, now);
    if (!taken) throw refusal((await repo.findLicense(trx, shopId, found.id)) ?? found, now);
    const id = randomUUID();
    const name = body.instanceName.trim();
    await repo.insertActivation(trx, {
      id,
      shop_id: shopId,
      license_id: taken.id,
      name,
      created_at: now,
      deactivated_at: null,
      // Evidence should the order's payment be disputed, as downloads and invoice views keep it.
      ip: client.ip,
      user_agent: client.userAgent,
    });
    await publishLicenseEvent(
      trx,
      'license.activated',
      taken,
      {
        instanceId: id,
        instanceName: name,
        activationUsage: taken.activation_usage,
        activationLimit: taken.activation_limit,
      },
      now,
    );
    return { license: taken, instanceId: id };
  });
  const view = toPublicLicense(license, ctx.clock.now());
  const token = await signLicenseToken(ctx, signer, shopId, tokenFacts(license, view.status, instanceId));
  return { activated: true as const, instanceId, license: view, token };
}

function tokenFacts(license: LicenseRow, status: ReturnType<typeof licenseStatus>, instanceId: string | null) {
  return {
    licenseKey: license.license_key,
    productId: license.product_id,
    instanceId,
    status,
    licenseExpiresAt: license.expires_at,
  };
}

/**
 * Whether the licence can be used now: `active` or `inactive` and, when `instanceId` is given,
 * that instance activated on it. Only a valid licence gets a token. An unknown key is a 404, as
 * Lemon Squeezy answers it; a known key in any status is answered (valid false with its status).
 */
export async function validateLicense(ctx: Context, signer: SignerCache, shopId: number, body: ValidateBody) {
  const instanceId = body.instanceId?.toLowerCase() ?? null;
  const found = await repo.licenseForValidation(ctx.db, shopId, body.licenseKey.trim(), instanceId);
  if (!found) throw unknownKey();
  const { license, instance, signingKey } = found;
  const now = ctx.clock.now();
  const view = toPublicLicense(license, now);
  const instanceLive = instanceId === null || (instance !== undefined && instance.deactivated_at === null);
  const valid = isUsable(view.status) && instanceLive;
  const token = valid
    ? await signLicenseToken(ctx, signer, shopId, tokenFacts(license, view.status, instance?.id ?? null), signingKey)
    : null;
  return {
    valid,
    license: view,
    instance: instance
      ? {
          id: instance.id,
          name: instance.name,
          createdAt: new Date(instance.created_at).toISOString(),
          deactivatedAt: instance.deactivated_at === null ? null : new Date(instance.deactivated_at).toISOString(),
        }
      : null,
    token,
  };
}

/** Who freed an instance, as `license.deactivated` reports it. */
export type DeactivatedBy = 'program' | 'customer' | 'owner';

/**
 * Frees one instance of the licence, in the caller's transaction: the instance is marked
 * deactivated by a conditional update, and only the call that did so gives the activation back and
 * publishes `license.deactivated` — concurrent calls for one instance count it once. 404 when the
 * instance is not one of this licence; false when it was already free.
 */
async function freeInstance(
  db: Conn,
  license: LicenseRow,
  instanceId: string,
  by: DeactivatedBy,
  now: number,
): Promise<boolean> {
  const shopId = license.shop_id;
  const instance = await repo.findActivation(db, shopId, license.id, instanceId.toLowerCase());
  if (!instance) throw new NotFoundError('Instance', ['instanceId: is not an instance of this license']);
  if (!(await repo.deactivateInstance(db, shopId, license.id, instance.id, now))) return false;
  const usage = await repo.releaseActivations(db, shopId, license.id, 1, now);
  await publishLicenseEvent(
    db,
    'license.deactivated',
    license,
    { instanceId: instance.id, instanceName: instance.name, by, activationUsage: usage ?? 0 },
    now,
  );
  return true;
}

/** The program frees its instance (any status: a disabled or expired licence can still be moved). */
export async function deactivateLicense(ctx: Context, shopId: number, body: DeactivateBody) {
  const deactivated = await ctx.db.transaction().execute(async (trx) => {
    const license = await licenseOfKey(trx, shopId, body.licenseKey);
    return freeInstance(trx, license, body.instanceId, 'program', ctx.clock.now());
  });
  return { deactivated };
}

/** The owner's reset: every live instance freed, each announced; answers how many. */
export async function freeAllInstances(db: Conn, license: LicenseRow, now: number): Promise<number> {
  const freed = await repo.deactivateAllInstances(db, license.shop_id, license.id, now);
  if (freed.length === 0) return 0;
  const left = (await repo.releaseActivations(db, license.shop_id, license.id, freed.length, now)) ?? 0;
  let usage = left + freed.length;
  for (const instance of freed) {
    usage--;
    await publishLicenseEvent(
      db,
      'license.deactivated',
      license,
      { instanceId: instance.id, instanceName: instance.name, by: 'owner', activationUsage: usage },
      now,
    );
  }
  return freed.length;
}

// --- the buyer's customer area ---------------------------------------------------------------------

async function customerViews(db: Conn, shopId: number, licenses: LicenseRow[], now: number) {
  const live = await repo.activationsOf(
    db,
    shopId,
    licenses.map((l) => l.id),
    true,
  );
  const byLicense = new Map<number, LicenseActivationRow[]>();
  for (const a of live) byLicense.set(a.license_id, [...(byLicense.get(a.license_id) ?? []), a]);
  return licenses.map((l) => toCustomerLicense(l, byLicense.get(l.id) ?? [], now));
}

/** The signed-in buyer's licences of this shop (bought with their address), newest first, with their live instances. */
export async function customerLicenses(ctx: Context, shopId: number, email: string) {
  const licenses = await repo.licensesOfEmail(ctx.db, shopId, email.toLowerCase());
  return customerViews(ctx.db, shopId, licenses, ctx.clock.now());
}

/** The buyer frees one of their instances; another buyer's licence is the same 404 as none. */
export async function freeCustomerInstance(
  ctx: Context,
  shopId: number,
  email: string,
  licenseId: number,
  instanceId: string,
) {
  const deactivated = await ctx.db.transaction().execute(async (trx) => {
    const license = await repo.findLicense(trx, shopId, licenseId);
    if (!license || license.email !== email.toLowerCase()) throw new NotFoundError('License');
    return freeInstance(trx, license, instanceId, 'customer', ctx.clock.now());
  });
  const license = (await repo.findLicense(ctx.db, shopId, licenseId))!;
  const [view] = await customerViews(ctx.db, shopId, [license], ctx.clock.now());
  return { deactivated, license: view! };
}

// --- revocation ------------------------------------------------------------------------------------

/** Revokes every licence of the invoice not revoked yet (a full refund), each announced as `license.revoked`. */
export async function revokeInvoiceLicenses(
  db: Conn,
  shopId: number,
  invoiceId: string,
  reason: string,
  now: number,
): Promise<void> {
  for (const license of await repo.revokeLicensesOfInvoice(db, shopId, invoiceId, now))
    await publishLicenseEvent(db, 'license.revoked', license, { reason }, now);
}

/** Moves an order's licences to its delivery time (the demo seed's history; see the repository). */
export function backdateLicenses(
  db: Conn,
  shopId: number,
  invoiceId: string,
  issuedAt: number,
  endFromSale: boolean,
): Promise<void> {
  return repo.backdateLicensesOfInvoice(db, shopId, invoiceId, issuedAt, endFromSale);
}
