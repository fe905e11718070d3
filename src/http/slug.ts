import slugifyText from '@sindresorhus/slugify';

/** URL slugs for subdomains and listing paths: lower-case ASCII letters, digits and inner hyphens. */
export const SLUG_PATTERN = '^[a-z0-9]+(?:-[a-z0-9]+)*$';

export function slugify(text: string, maxLength: number): string {
  return slugifyText(text).slice(0, maxLength).replace(/-+$/, '');
}
