import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { findDesignOverrides } from './repository.js';
import { defaultDesign, type Design } from './schema.js';

/** The shop's design: the stored overrides laid section by section over the defaults. */
export async function getDesign(db: Kysely<Database>, shopId: number): Promise<Design> {
  const stored = (await findDesignOverrides(db, shopId)) as Partial<Record<keyof Design, unknown>>;
  const merged: Record<string, unknown> = {};
  for (const [section, defaults] of Object.entries(defaultDesign)) {
    const value = stored[section as keyof Design];
    merged[section] =
      defaults !== null && typeof defaults === 'object' && !Array.isArray(defaults) && value && typeof value === 'object'
        ? { ...defaults, ...value }
        : value ?? defaults;
  }
  return merged as Design;
}
