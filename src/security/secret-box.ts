import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makePrivateDir } from './file-modes.js';

/**
 * AES-256-GCM encryption of secrets at rest (payment credentials). The key comes from
 * `SECRET_KEY` (any string of 16+ characters, stretched with HKDF) or, when unset, from 32
 * random bytes generated once and kept in `DATA_DIR/secret.key`.
 * Sealed form: `v1.<iv>.<tag>.<ciphertext>`, each part base64url.
 */
export interface SecretBox {
  seal(plaintext: string): string;
  open(sealed: string): string;
}

const KEY_FILE = 'secret.key';

function keyMaterial(secretKey: string | undefined, dataDir: string): Buffer {
  if (secretKey) return Buffer.from(secretKey, 'utf8');
  const file = join(dataDir, KEY_FILE);
  if (existsSync(file)) return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  makePrivateDir(dataDir);
  const generated = randomBytes(32);
  // 'wx' fails if another process created the file first; then we read theirs.
  try {
    writeFileSync(file, generated.toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
    return generated;
  } catch {
    return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  }
}

export function createSecretBox(secretKey: string | undefined, dataDir: string): SecretBox {
  const key = Buffer.from(hkdfSync('sha256', keyMaterial(secretKey, dataDir), 'shopd', 'secrets-at-rest', 32));
  return {
    seal(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return ['v1', iv, cipher.getAuthTag(), ciphertext].map((p) => (typeof p === 'string' ? p : p.toString('base64url'))).join('.');
    },
    open(sealed) {
      const [version, iv, tag, ciphertext] = sealed.split('.');
      if (version !== 'v1' || !iv || !tag || ciphertext === undefined) throw new Error('unrecognised sealed secret');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}

/** `••••1234`: the last four characters of a long enough secret, nothing of a short one. */
export function maskSecret(secret: string): string {
  return secret.length >= 8 ? `••••${secret.slice(-4)}` : '••••';
}
