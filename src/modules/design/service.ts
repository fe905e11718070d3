import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { ValidationError } from '../../http/errors.js';
import { uploadUrl } from '../../http/uploads.js';
import { replaceStoredFile, type FileStorage } from '../../storage/file-storage.js';
import { lockShop } from '../shops/repository.js';
import type { DesignOverrides, ImageSlot } from './design.table.js';
import * as repo from './repository.js';
import {
  defaultDesign,
  type Design,
  type DesignFlagsBody,
  type LinksBody,
  type SeoBody,
  type StorefrontBody,
  type WidgetsBody,
} from './schema.js';

/**
 * One stored design behind both path families (`settings/design/*`, `customization/*`):
 * every write is a read-modify-write of the shop's overrides JSON in one transaction, under
 * the shop row lock on PostgreSQL (SQLite transactions are already serial), so concurrent
 * partial updates never lose each other's fields.
 */
type Conn = Kysely<Database>;

const image = (overrides: DesignOverrides, slot: ImageSlot): string | null => uploadUrl(overrides.images?.[slot] ?? null);

/** The stored overrides laid section by section over the defaults, image names as URLs. */
export function toDesign(stored: DesignOverrides): Design {
  return {
    design: { ...defaultDesign.design, ...stored.design },
    widgets: { ...defaultDesign.widgets, ...stored.widgets },
    storefront: { ...defaultDesign.storefront, ...stored.storefront, imageUrl: image(stored, 'storefrontImage') },
    seo: { ...defaultDesign.seo, ...stored.seo, imageUrl: image(stored, 'seoImage'), faviconUrl: image(stored, 'favicon') },
    logoUrl: image(stored, 'logo'),
    links: { socialLinks: stored.links?.socialLinks ?? defaultDesign.links.socialLinks },
  };
}

/** The shop's design, as the owner and the public storefront pages see it. */
export async function getDesign(db: Conn, shopId: number): Promise<Design> {
  return toDesign(await repo.findDesignOverrides(db, shopId));
}

async function updateOverrides(db: Conn, shopId: number, change: (current: DesignOverrides) => DesignOverrides): Promise<Design> {
  return db.transaction().execute(async (trx) => {
    await lockShop(trx, shopId);
    const next = change(await repo.findDesignOverrides(trx, shopId));
    await repo.saveDesignOverrides(trx, shopId, next);
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

/** https, a host, no spaces: what a storefront can safely put in a link or a stylesheet tag. */
function isHttpsUrl(text: string): boolean {
  if (/\s/.test(text)) return false;
  try {
    const url = new URL(text);
    return url.protocol === 'https:' && url.hostname !== '';
  } catch {
    return false;
  }
}

const EMAIL = /^[^\s@<>()",;:]+@[^\s@<>()",;:]+\.[^\s@<>()",;:]+$/;
const colourFields = ['primaryColor', 'primaryColorAccent', 'backgroundColor', 'secondaryColor', 'primaryTextColor', 'secondaryTextColor'] as const;

/** Colours and display flags; colours are stored lower-case. */
export async function updateDesignFlags(db: Conn, shopId: number, patch: DesignFlagsBody): Promise<Design> {
  if (typeof patch.fontLink === 'string' && !isHttpsUrl(patch.fontLink)) throw ValidationError.field('fontLink', 'must be an https URL');
  const next: Record<string, unknown> = { ...patch };
  for (const field of colourFields) if (patch[field] !== undefined) next[field] = patch[field].toLowerCase();
  return updateOverrides(db, shopId, (current) => ({ ...current, design: { ...current.design, ...next } }));
}

export async function updateWidgets(db: Conn, shopId: number, patch: WidgetsBody): Promise<Design> {
  const next = clearBlank(patch, ['crispKey', 'googleAnalyticsKey', 'hotjarKey', 'intercomKey']);
  return updateOverrides(db, shopId, (current) => ({ ...current, widgets: { ...current.widgets, ...next } }));
}

export async function updateStorefront(db: Conn, shopId: number, patch: StorefrontBody): Promise<Design> {
  const next = clearBlank(patch, ['title', 'description', 'buttonText']);
  return updateOverrides(db, shopId, (current) => ({ ...current, storefront: { ...current.storefront, ...next } }));
}

export async function updateSeo(db: Conn, shopId: number, patch: SeoBody): Promise<Design> {
  const next = clearBlank(patch, ['metaTitle', 'metaDescription']);
  return updateOverrides(db, shopId, (current) => ({ ...current, seo: { ...current.seo, ...next } }));
}

/** Replaces the list. Links are https URLs, except `email`: an address or a `mailto:` link. */
export async function setSocialLinks(db: Conn, shopId: number, body: LinksBody): Promise<Design> {
  const problems: string[] = [];
  body.socialLinks.forEach(({ platform, link }, i) => {
    if (platform === 'email') {
      if (!EMAIL.test(link.replace(/^mailto:/i, ''))) problems.push(`socialLinks[${i}].link: must be an e-mail address or a mailto: link`);
    } else if (!isHttpsUrl(link)) {
      problems.push(`socialLinks[${i}].link: must be an https URL`);
    }
  });
  if (problems.length > 0) throw new ValidationError(problems);
  const socialLinks = body.socialLinks.map(({ platform, link }) => ({ platform, link }));
  return updateOverrides(db, shopId, (current) => ({ ...current, links: { socialLinks } }));
}

/**
 * Replaces one of the design's images: stores the upload, points the design at its name, and
 * removes the previous file once that has committed (the new one if it did not). Both path
 * families write the same slot, so a replacement through either removes the other's file.
 */
export async function setDesignImage(db: Conn, storage: FileStorage, shopId: number, slot: ImageSlot, receive: () => Promise<string>): Promise<string> {
  return replaceStoredFile(storage, receive, (name) =>
    db.transaction().execute(async (trx) => {
      await lockShop(trx, shopId);
      const current = await repo.findDesignOverrides(trx, shopId);
      await repo.saveDesignOverrides(trx, shopId, { ...current, images: { ...current.images, [slot]: name } });
      return current.images?.[slot];
    }),
  );
}
