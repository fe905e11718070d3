import { randomBytes } from 'node:crypto';

/** What a generated key looks like when the variant names no pattern. */
export const DEFAULT_KEY_PATTERN = 'XXXX-XXXX-XXXX-XXXX';
/** A pattern's random characters: 8 of 36 symbols are about 41 bits, too many to guess through a rate-limited API. */
export const MIN_KEY_PATTERN_XS = 8;
export const MAX_KEY_PATTERN_LENGTH = 100;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
/** The largest multiple of 36 a byte can hold (7 × 36): bytes from here up are drawn again, so no symbol is likelier. */
const UNBIASED_LIMIT = 256 - (256 % ALPHABET.length);

/**
 * Why `pattern` cannot make keys, or null when it can: at most 100 characters, at least 8 `X`s,
 * no spaces or control characters (a key is copied and pasted by people). The products module
 * checks a variant's `license.keyPattern` with it.
 */
export function validateKeyPattern(pattern: string): string | null {
  if (pattern.length > MAX_KEY_PATTERN_LENGTH) return `must be at most ${MAX_KEY_PATTERN_LENGTH} characters`;
  if (/[\p{Cc}\s]/u.test(pattern)) return 'must not contain spaces or control characters';
  const xs = [...pattern].filter((c) => c === 'X').length;
  if (xs < MIN_KEY_PATTERN_XS) return `needs at least ${MIN_KEY_PATTERN_XS} X characters`;
  return null;
}

/**
 * `count` keys of `pattern` (null: XXXX-XXXX-XXXX-XXXX): each `X` a letter A–Z or digit drawn from
 * the operating system's CSPRNG by rejection sampling (a byte of 252 or more is drawn again, so
 * `byte % 36` favours no symbol), every other character kept as it is. Unique within the batch;
 * a key equal to one the shop already licensed keeps the existing licence (issueLicenses).
 */
export function generateLicenseKeys(pattern: string | null, count: number): string[] {
  const template = pattern ?? DEFAULT_KEY_PATTERN;
  const problem = validateKeyPattern(template);
  if (problem) throw new Error(`license key pattern ${JSON.stringify(template)} ${problem}`);
  const keys = new Set<string>();
  while (keys.size < count) keys.add(fill(template));
  return [...keys];
}

function fill(template: string): string {
  const slots = [...template].filter((c) => c === 'X').length;
  const symbols = randomSymbols(slots);
  let next = 0;
  return [...template].map((c) => (c === 'X' ? symbols[next++] : c)).join('');
}

function randomSymbols(n: number): string[] {
  const out: string[] = [];
  while (out.length < n) {
    // A little more than needed: about 1.6 % of bytes are drawn again.
    for (const byte of randomBytes(n - out.length + 4)) {
      if (byte >= UNBIASED_LIMIT) continue;
      out.push(ALPHABET[byte % ALPHABET.length]!);
      if (out.length === n) break;
    }
  }
  return out;
}
