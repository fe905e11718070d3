import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { hashPassword, verifyPassword } from '../../src/security/passwords.js';
import { createSecretBox, maskSecret, UnreadableSecretError } from '../../src/security/secret-box.js';

test('sealed secrets open with the same key only, and tampering is detected', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'shopd-secret-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const box = createSecretBox('a-long-enough-secret-key', dir);
  const sealed = box.seal('sk_live_123');
  assert.notEqual(box.seal('sk_live_123'), sealed, 'a fresh IV every time');
  assert.equal(box.open(sealed), 'sk_live_123');
  const other = createSecretBox('another-secret-key-entirely', dir);
  assert.throws(() => other.open(sealed), UnreadableSecretError);
  assert.equal(other.tryOpen(sealed), undefined, 'tryOpen answers undefined instead of throwing');
  assert.equal(box.tryOpen(sealed), 'sk_live_123');
  assert.throws(() => box.open('not-sealed-at-all'), UnreadableSecretError);
  assert.equal(box.keySource, 'SECRET_KEY');
  const [v, iv, tag, ct] = sealed.split('.');
  const flipped = Buffer.from(ct!, 'base64url');
  flipped[0]! ^= 1;
  assert.throws(() => box.open([v, iv, tag, flipped.toString('base64url')].join('.')), UnreadableSecretError);
});

test('without SECRET_KEY a key is generated once in DATA_DIR and reused', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'shopd-secret-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const first = createSecretBox(undefined, dir);
  const sealed = first.seal('hello');
  const file = join(dir, 'secret.key');
  assert.equal(first.keySource, `DATA_DIR/secret.key (${file}, generated now)`);
  assert.equal(createSecretBox(undefined, dir).keySource, `DATA_DIR/secret.key (${file})`);
  assert.equal(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64').length, 32);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.equal(createSecretBox(undefined, dir).open(sealed), 'hello');
});

test('masking shows at most the last four characters', () => {
  assert.equal(maskSecret('sk_live_abcd1234'), '••••1234');
  assert.equal(maskSecret('short'), '••••');
});

test('passwords are salted scrypt hashes that verify', async () => {
  const a = await hashPassword('correct horse');
  const b = await hashPassword('correct horse');
  assert.notEqual(a, b);
  assert.match(a, /^scrypt\$16384\$8\$1\$/);
  assert.equal(await verifyPassword('correct horse', a), true);
  assert.equal(await verifyPassword('wrong horse', a), false);
  assert.equal(await verifyPassword('x', 'garbage'), false);
});
