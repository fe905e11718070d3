import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Context } from '../../domain/context.js';
import { ConflictError, NotFoundError, ValidationError } from '../../http/errors.js';
import { decodeCursor, keysetPage, pageWindow, toPage } from '../../http/pagination.js';
import type { LicenseRow } from './licenses.table.js';
import * as repo from './repository.js';
import type { ExtendBody, LicenseListQuery } from './schema.js';
import { freeAllInstances, publishLicenseEvent } from './service.js';
import { type LicenseAction, nextLicenseState } from './status.js';
import { toActivation, toOwnerLicense } from './views.js';

type Conn = Kysely<Database>;

const DAY_MS = 24 * 60 * 60 * 1000;

/** Newest first, filtered by status (as derived now), product, buyer and a text in the key or e-mail; keyset `cursor`. */
export async function listLicenses(ctx: Context, shopId: number, query: LicenseListQuery) {
  const { db } = ctx;
  const now = ctx.clock.now();
  const filter = {
    status: query.status,
    productId: query.productId,
    email: query.email?.trim().toLowerCase(),
    search: query.searchString,
  };
  const { limit, offset } = pageWindow(query);
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  const [rows, totalCount] = await Promise.all([
    repo.listLicenses(db, shopId, filter, now, { limit: limit + 1, offset, after }),
    repo.countLicenses(db, shopId, filter, now),
  ]);
  const { items, nextCursor } = keysetPage(rows, limit, (l) => ({ value: l.created_at, id: l.id }));
  return {
    ...toPage(
      items.map((l) => toOwnerLicense(l, now)),
      totalCount,
      query,
    ),
    nextCursor,
  };
}

async function detail(db: Conn, license: LicenseRow, now: number) {
  const activations = await repo.activationsOf(db, license.shop_id, [license.id]);
  return { ...toOwnerLicense(license, now), activations: activations.map(toActivation) };
}

/** One licence with every instance it was activated on. */
export async function getLicense(ctx: Context, shopId: number, licenseId: number) {
  const license = await repo.findLicense(ctx.db, shopId, licenseId);
  if (!license) throw new NotFoundError('License');
  return detail(ctx.db, license, ctx.clock.now());
}

/**
 * Changes the licence under a lock: `change` is given the licence as it is and writes what it
 * must in the same transaction; answers the licence afterwards.
 */
async function changeLicense(
  ctx: Context,
  shopId: number,
  licenseId: number,
  change: (trx: Conn, license: LicenseRow, now: number) => Promise<void>,
) {
  await ctx.db.transaction().execute(async (trx) => {
    const license = await repo.lockLicense(trx, shopId, licenseId);
    if (!license) throw new NotFoundError('License');
    await change(trx, license, ctx.clock.now());
  });
  return getLicense(ctx, shopId, licenseId);
}

/**
 * Disables, enables or revokes the licence by the declared table (status.ts; 409 where it does
 * not allow it). Revoking is final and published as `license.revoked` (reason `owner`).
 */
export function changeLicenseState(ctx: Context, shopId: number, licenseId: number, action: LicenseAction) {
  return changeLicense(ctx, shopId, licenseId, async (trx, license, now) => {
    const state = nextLicenseState(license.state, action);
    await repo.setLicenseState(trx, shopId, license.id, state, now);
    if (state === 'revoked') await publishLicenseEvent(trx, 'license.revoked', license, { reason: 'owner' }, now);
  });
}

/**
 * A new end for the licence: `expiresAt` (null: never), or `addDays` past its current end (from
 * now when that has passed). A revoked licence is a 409.
 */
export function extendLicense(ctx: Context, shopId: number, licenseId: number, body: ExtendBody) {
  const given = 'expiresAt' in body && body.expiresAt !== undefined;
  if (given === (body.addDays !== undefined))
    throw ValidationError.field('addDays', 'give exactly one of addDays and expiresAt');
  return changeLicense(ctx, shopId, licenseId, async (trx, license, now) => {
    if (license.state === 'revoked')
      throw new ConflictError('The license is revoked; it cannot be extended.', ['state: is revoked']);
    let expiresAt: number | null;
    if (body.addDays === undefined) expiresAt = body.expiresAt == null ? null : Date.parse(body.expiresAt);
    else if (license.expires_at === null)
      throw ValidationError.field('addDays', 'the license never expires: set expiresAt to give it an end');
    else expiresAt = Math.max(license.expires_at, now) + body.addDays * DAY_MS;
    await repo.setLicenseExpiry(trx, shopId, license.id, expiresAt, now);
  });
}

/** Frees every instance (each published as `license.deactivated`, by `owner`); the licence keeps its state. */
export function resetLicense(ctx: Context, shopId: number, licenseId: number) {
  return changeLicense(ctx, shopId, licenseId, async (trx, license, now) => {
    await freeAllInstances(trx, license, now);
  });
}
