import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makePrivateDir } from './file-modes.js';

/**
 * AES-256-GCM encryption of secrets at rest (payment credentials, webhook signing secrets). The
 * key comes from `SECRET_KEY` (any string of 16+ characters, stretched with HKDF) or, when unset,
 * from 32 random bytes generated once and kept in `DATA_DIR/secret.key`.
 * Sealed form: `v1.<iv>.<tag>.<ciphertext>`, each part base64url.
 */
export interface SecretBox {
  seal(plaintext: string): string;
  /** Throws `UnreadableSecretError` when this key cannot open it (another key sealed it). */
  open(sealed: string): string;
  /** `open`, or undefined when this key cannot open it. */
  tryOpen(sealed: string): string | undefined;
  /** Where the key comes from, for messages: `SECRET_KEY` or the key file's path. */
  readonly keySource: string;
  /**
   * A 32-byte key for another use of the same secret (signing cookies, say), derived with HKDF
   * under its own label: knowing one derived key reveals neither the others nor the sealing key.
   */
  deriveKey(purpose: string): Buffer;
}

/** A sealed secret this key cannot open: sealed with another key (changed or lost), or damaged. */
export class UnreadableSecretError extends Error {
  constructor() {
    super('the secret cannot be opened with this key (sealed with another key, or damaged)');
    this.name = 'UnreadableSecretError';
  }
}

export const KEY_FILE = 'secret.key';

/** The key bytes of a `secret.key` file as shopd writes it (base64 of 32 random bytes). */
export function readKeyFile(file: string): Buffer {
  return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
}

function keyMaterial(secretKey: string | undefined, dataDir: string): { material: Buffer; source: string } {
  if (secretKey) return { material: Buffer.from(secretKey, 'utf8'), source: 'SECRET_KEY' };
  const file = join(dataDir, KEY_FILE);
  const source = `DATA_DIR/${KEY_FILE} (${file})`;
  if (existsSync(file)) return { material: readKeyFile(file), source };
  makePrivateDir(dataDir);
  const generated = randomBytes(32);
  // 'wx' fails if another process created the file first; then we read theirs.
  try {
    writeFileSync(file, `${generated.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    return { material: generated, source: `DATA_DIR/${KEY_FILE} (${file}, generated now)` };
  } catch {
    return { material: readKeyFile(file), source };
  }
}

/** The box of the configured key: `SECRET_KEY`, else `DATA_DIR/secret.key` (created when missing). */
export function createSecretBox(secretKey: string | undefined, dataDir: string): SecretBox {
  const { material, source } = keyMaterial(secretKey, dataDir);
  return secretBoxFromKey(material, source);
}

/** A box of given key material: a `SECRET_KEY` string as UTF-8 bytes, or a key file's bytes. */
export function secretBoxFromKey(material: Buffer, keySource: string): SecretBox {
  const key = Buffer.from(hkdfSync('sha256', material, 'shopd', 'secrets-at-rest', 32));
  const open = (sealed: string): string => {
    const [version, iv, tag, ciphertext] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || ciphertext === undefined) throw new UnreadableSecretError();
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      // GCM's tag check failed: another key sealed it, or the text was altered.
      throw new UnreadableSecretError();
    }
  };
  return {
    keySource,
    deriveKey: (purpose) => Buffer.from(hkdfSync('sha256', material, 'shopd', `derived:${purpose}`, 32)),
    seal(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return ['v1', iv, cipher.getAuthTag(), ciphertext]
        .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
        .join('.');
    },
    open,
    tryOpen(sealed) {
      try {
        return open(sealed);
      } catch (err) {
        if (err instanceof UnreadableSecretError) return undefined;
        throw err;
      }
    },
  };
}

/** The first character of every masked value; no real secret is ever taken to start with it. */
export const MASK = '•';

/** `••••1234`: the last four characters of a long enough secret, nothing of a short one. */
export function maskSecret(secret: string): string {
  return secret.length >= 8 ? `••••${secret.slice(-4)}` : '••••';
}

/** What a read shows for a secret the configured key cannot open (never a real mask: too long). */
export const UNREADABLE_MASK = '••••unreadable';
