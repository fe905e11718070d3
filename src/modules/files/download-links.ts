import { createHmac, timingSafeEqual } from 'node:crypto';
import type { SecretBox } from '../../security/secret-box.js';

/**
 * Signed download links. A token is one base64url string of 45 bytes: a version byte, the grant's
 * id (6 bytes) and the link's expiry in epoch ms (6 bytes), then the HMAC-SHA256 (32 bytes, key
 * `deriveKey('download-links')`) of the shop, grant, file, invoice and expiry. Only the grant id
 * and the expiry travel in clear: the file and the invoice are read from the grant and go into
 * the MAC, so a link names no invoice (whose id opens the order's page) and cannot be moved to
 * another shop, file or order, and its expiry cannot be changed.
 */
const VERSION = 1;
const ID_BYTES = 6;
const MAC_BYTES = 32;
const TOKEN_BYTES = 1 + ID_BYTES + ID_BYTES + MAC_BYTES;
/** base64url of 45 bytes: 60 characters, no padding. */
export const TOKEN_PATTERN = '^[A-Za-z0-9_-]{60}$';
const TOKEN = new RegExp(TOKEN_PATTERN);
const MAX_GRANT_ID = 2147483647;

/** What a link is signed over. */
export interface LinkFacts {
  shopId: number;
  grantId: number;
  fileId: string;
  invoiceId: string;
  /** Epoch ms. */
  expiresAt: number;
}

/** What a token says before its MAC is checked against the grant it names. */
export interface ReadToken {
  grantId: number;
  expiresAt: number;
  mac: Buffer;
}

const keys = new WeakMap<SecretBox, Buffer>();

function linkKey(secrets: SecretBox): Buffer {
  let key = keys.get(secrets);
  if (!key) {
    key = secrets.deriveKey('download-links');
    keys.set(secrets, key);
  }
  return key;
}

function macOf(secrets: SecretBox, facts: LinkFacts): Buffer {
  // Fields joined with a separator none of them can contain (ids are digits, url-safe text).
  const text = ['download', VERSION, facts.shopId, facts.grantId, facts.fileId, facts.invoiceId, facts.expiresAt].join(
    '\n',
  );
  return createHmac('sha256', linkKey(secrets)).update(text).digest();
}

/** The token of a link to `facts`. */
export function signLink(secrets: SecretBox, facts: LinkFacts): string {
  const token = Buffer.alloc(TOKEN_BYTES);
  token.writeUInt8(VERSION, 0);
  token.writeUIntBE(facts.grantId, 1, ID_BYTES);
  token.writeUIntBE(facts.expiresAt, 1 + ID_BYTES, ID_BYTES);
  macOf(secrets, facts).copy(token, 1 + 2 * ID_BYTES);
  return token.toString('base64url');
}

/** The grant id and expiry a token claims; undefined for anything that is not a token of this format. */
export function readToken(token: string): ReadToken | undefined {
  if (!TOKEN.test(token)) return undefined;
  const bytes = Buffer.from(token, 'base64url');
  // A 60-character string decodes to 45 bytes; re-encoding catches non-canonical trailing bits.
  if (bytes.length !== TOKEN_BYTES || bytes.toString('base64url') !== token || bytes.readUInt8(0) !== VERSION)
    return undefined;
  const grantId = bytes.readUIntBE(1, ID_BYTES);
  // Grant ids are the table's integer ids; anything else names no grant (and is never sent to the database).
  if (grantId < 1 || grantId > MAX_GRANT_ID) return undefined;
  return {
    grantId,
    expiresAt: bytes.readUIntBE(1 + ID_BYTES, ID_BYTES),
    mac: bytes.subarray(1 + 2 * ID_BYTES),
  };
}

/** Whether `read`'s MAC is the one of `facts` (compared in constant time). */
export function macMatches(secrets: SecretBox, read: ReadToken, facts: LinkFacts): boolean {
  return timingSafeEqual(read.mac, macOf(secrets, facts));
}
