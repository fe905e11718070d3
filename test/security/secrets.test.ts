import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { hashPassword, verifyPassword } from '../../src/security/passwords.js';
import { createSecretBox, maskSecret } from '../../src/security/secret-box.js';

test('sealed secrets open with the same key only, and tampering is detected', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'shopd-secret-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const box = createSecretBox('a-long-enough-secret-key', dir);
  const sealed = box.seal('sk_live_123');
  assert.notEqual(box.seal('sk_live_123'), sealed, 'a fresh IV every time');
  assert.equal(box.open(sealed), 'sk_live_123');
  assert.throws(() => createSecretBox('another-secret-key-entirely', dir).open(sealed));
  const [v, iv, tag, ct] = sealed.split('.');
  const flipped = Buffer.from(ct!, 'base64url');
  flipped[0]! ^= 1;
  assert.throws(() => box.open([v, iv, tag, flipped.toString('base64url')].join('.')));
});

test('without SECRET_KEY a key is generated once in DATA_DIR and reused', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'shopd-secret-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const sealed = createSecretBox(undefined, dir).seal('hello');
  const file = join(dir, 'secret.key');
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
