import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Context } from '../../domain/context.js';
import { uploadUrl } from '../../http/uploads.js';
import { type FileStorage, replaceStoredFile } from '../../storage/file-storage.js';
import { lockShop } from '../shops/index.js';
import type { DesignOverrides, ImageSlot } from './design.table.js';
import * as repo from './repository.js';
import {
  type Design,
  DesignFlagsBody,
  defaultDesign,
  type LinksBody,
  SeoBody,
  StorefrontBody,
  WidgetsBody,
} from './schema.js';

/**
 * One stored design behind both path families (`settings/design/*`, `customization/*`):
 * every write is a read-modify-write of the shop's overrides JSON in one transaction, under
 * the shop row lock on PostgreSQL (SQLite transactions are already serial), so concurrent
 * partial updates never lose each other's fields.
 */
type Conn = Kysely<Database>;

const image = (overrides: DesignOverrides, slot: ImageSlot): string | null =>
  uploadUrl(overrides.images?.[slot] ?? null);

/** The stored overrides laid section by section over the defaults, image names as URLs. */
export function toDesign(stored: DesignOverrides): Design {
  return {
    design: { ...defaultDesign.design, ...stored.design },
    widgets: { ...defaultDesign.widgets, ...stored.widgets },
    storefront: { ...defaultDesign.storefront, ...stored.storefront, imageUrl: image(stored, 'storefrontImage') },
    seo: {
      ...defaultDesign.seo,
      ...stored.seo,
      imageUrl: image(stored, 'seoImage'),
      faviconUrl: image(stored, 'favicon'),
    },
    logoUrl: image(stored, 'logo'),
    links: { socialLinks: stored.links?.socialLinks ?? defaultDesign.links.socialLinks },
  };
}

/**
 * The shop's design, as the owner and the public storefront pages see it. A read of one row that
 * needs no clock, on the connection its caller reads on (storefront/service.ts has no context).
 */
export async function getDesign(db: Conn, shopId: number): Promise<Design> {
  return toDesign(await repo.findDesignOverrides(db, shopId));
}

async function updateOverrides(
  ctx: Context,
  shopId: number,
  change: (current: DesignOverrides) => DesignOverrides,
): Promise<Design> {
  return ctx.db.transaction().execute(async (trx) => {
    await lockShop(trx, shopId);
    const next = change(await repo.findDesignOverrides(trx, shopId));
    await repo.saveDesignOverrides(trx, shopId, next, ctx.clock.now());
    return toDesign(next);
  });
}

/** Free texts: null or blank clears, as the shop's popup and terms do. */
function clearBlank<T extends Record<string, unknown>>(patch: T, fields: readonly (keyof T)[]): T {
  const out: Record<string, unknown> = { ...patch };
  for (const field of fields) {
    const value = out[field as string];
    if (typeof value === 'string' && value.trim() === '') out[field as string] = null;
  }
  return out as T;
}

/**
 * A section's overrides with a partial update laid over them: an omitted field keeps its
 * value, a null one is no longer overridden (it reads as its default, null for free texts).
 */
function applyPatch(
  current: Record<string, unknown> | undefined,
  patch: Record<string, unknown>,
): Record<string, unknown> {
  const next: Record<string, unknown> = { ...current };
  for (const [field, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    if (value === null) delete next[field];
    else next[field] = value;
  }
  return next;
}

const colourFields = [
  'primaryColor',
  'primaryColorAccent',
  'backgroundColor',
  'secondaryColor',
  'primaryTextColor',
  'secondaryTextColor',
] as const;

/** Colours and display flags; colours are stored lower-case. */
export async function updateDesignFlags(ctx: Context, shopId: number, patch: DesignFlagsBody): Promise<Design> {
  const next: Record<string, unknown> = ownFields(patch, DesignFlagsBody);
  for (const field of colourFields) next[field] = patch[field]?.toLowerCase() ?? patch[field];
  return updateOverrides(ctx, shopId, (current) => ({ ...current, design: applyPatch(current.design, next) }));
}

export async function updateWidgets(ctx: Context, shopId: number, patch: WidgetsBody): Promise<Design> {
  const next = clearBlank(ownFields(patch, WidgetsBody), [
    'crispKey',
    'googleAnalyticsKey',
    'hotjarKey',
    'intercomKey',
  ]);
  return updateOverrides(ctx, shopId, (current) => ({ ...current, widgets: applyPatch(current.widgets, next) }));
}

export async function updateStorefront(ctx: Context, shopId: number, patch: StorefrontBody): Promise<Design> {
  const next = clearBlank(ownFields(patch, StorefrontBody), ['title', 'description', 'buttonText']);
  return updateOverrides(ctx, shopId, (current) => ({ ...current, storefront: applyPatch(current.storefront, next) }));
}

export async function updateSeo(ctx: Context, shopId: number, patch: SeoBody): Promise<Design> {
  const next = clearBlank(ownFields(patch, SeoBody), ['metaTitle', 'metaDescription']);
  return updateOverrides(ctx, shopId, (current) => ({ ...current, seo: applyPatch(current.seo, next) }));
}

/**
 * The fields its schema declares, and no others: unknown fields of a body are ignored, and a
 * view sent back carries read-only ones (imageUrl) that are not set here.
 */
function ownFields<T extends object>(body: T, schema: { properties: object }): T {
  return Object.fromEntries(
    Object.keys(schema.properties).flatMap((f) => (f in body ? [[f, body[f as keyof T]]] : [])),
  ) as T;
}

/** Replaces the list (null clears it); the schema checks each link against its platform. */
export async function setSocialLinks(ctx: Context, shopId: number, body: LinksBody): Promise<Design> {
  const socialLinks = (body.socialLinks ?? []).map(({ platform, link }) => ({ platform, link }));
  return updateOverrides(ctx, shopId, (current) => ({ ...current, links: { socialLinks } }));
}

/**
 * Replaces one of the design's images: stores the upload, points the design at its name, and
 * removes the previous file once that has committed (the new one if it did not). Both path
 * families write the same slot, so a replacement through either removes the other's file.
 */
export async function setDesignImage(
  ctx: Context,
  storage: FileStorage,
  shopId: number,
  slot: ImageSlot,
  receive: () => Promise<string>,
): Promise<string> {
  return replaceStoredFile(storage, receive, (name) =>
    ctx.db.transaction().execute(async (trx) => {
      await lockShop(trx, shopId);
      const current = await repo.findDesignOverrides(trx, shopId);
      const next = { ...current, images: { ...current.images, [slot]: name } };
      await repo.saveDesignOverrides(trx, shopId, next, ctx.clock.now());
      return current.images?.[slot];
    }),
  );
}
