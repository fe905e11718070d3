import { createPrivateKey, type KeyObject, sign } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Context } from '../../domain/context.js';
import type { SecretBox } from '../../security/secret-box.js';
import type { LicenseSigningKeyRow } from './licenses.table.js';
import * as repo from './signing-keys.repository.js';
import type { LicenseStatus } from './status.js';

type Conn = Kysely<Database>;

/**
 * Each shop's Ed25519 signing keys and the licence tokens signed with them.
 *
 * A shop's first key is made when it is first needed (a token, its JWKS): generated with jose,
 * its private JWK sealed with the server's SecretBox (like payment and webhook secrets; `shopd
 * secrets rotate` seals it again), its public JWK kept as it is, its `kid` the JWK thumbprint
 * (RFC 7638). Rotation retires the current key and makes a new one; the JWKS keeps listing a
 * retired key while tokens signed with it can still be valid (LICENSE_TOKEN_HOURS after its
 * retirement, plus a few minutes for clocks).
 *
 * Signing is on the path of every `activate` and `validate`, which the bench compares with
 * `/hello`: opening the sealed key and importing it cost more than the signature itself, so the
 * imported key is kept in memory per shop and kid (SignerCache, bounded). The current kid is read
 * from the database at each call — an indexed read — so a rotation made by any instance takes
 * effect at once everywhere. The signature is made with node:crypto on the imported KeyObject
 * (about a third of jose's `SignJWT` cost, which goes through WebCrypto); the tokens are plain
 * compact JWS that jose, PyJWT and every JOSE library verify (test/docs/licenses-example.test.ts).
 */

/** Extra time a retired key stays in the JWKS beyond LICENSE_TOKEN_HOURS: tokens signed right at the rotation, clock skew. */
export const RETIRED_KEY_MARGIN_MS = 5 * 60 * 1000;
const HOUR_MS = 60 * 60 * 1000;

/** What a licence token states (its payload besides iss, sub, iat and exp). */
export interface LicenseTokenFacts {
  licenseKey: string;
  productId: number;
  instanceId: string | null;
  status: LicenseStatus;
  /** Epoch ms; null = never. */
  licenseExpiresAt: number | null;
}

/** One public key as the JWKS lists it. */
export interface PublicJwk {
  kty: string;
  crv: string;
  x: string;
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
}

/** A signing key as signing needs it: its kid and sealed private half. */
export type SigningKeyRef = Pick<LicenseSigningKeyRow, 'kid' | 'sealed_private_key'>;

/** The issuer of a shop's tokens: its public API base, by id (a subdomain can change). */
export function licenseIssuer(publicUrl: string, shopId: number): string {
  return `${publicUrl}/v2/public/shops/${shopId}`;
}

/**
 * The imported private keys, per shop and kid: opening and importing a sealed key is done once per
 * key and process. At most MAX entries; past that the oldest goes (a shop that signs again imports
 * it again). Per app (built in the routes plugin), never module state.
 */
export class SignerCache {
  static readonly MAX = 2000;
  readonly #keys = new Map<string, KeyObject>();

  constructor(readonly secrets: SecretBox) {}

  /** The imported key; undefined when the server's key cannot open it (sealed with a lost key). */
  keyOf(shopId: number, kid: string, sealed: string): KeyObject | undefined {
    const id = `${shopId}:${kid}`;
    let key = this.#keys.get(id);
    if (!key) {
      const jwk = this.secrets.tryOpen(sealed);
      if (jwk === undefined) return undefined;
      key = createPrivateKey({ key: JSON.parse(jwk) as JWK & { kty: string }, format: 'jwk' });
      if (this.#keys.size >= SignerCache.MAX) this.#keys.delete(this.#keys.keys().next().value!);
      this.#keys.set(id, key);
    }
    return key;
  }
}

async function newKeyRow(secrets: SecretBox, shopId: number, now: number) {
  const { publicKey, privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  const [publicJwk, privateJwk] = await Promise.all([exportJWK(publicKey), exportJWK(privateKey)]);
  const published = { kty: publicJwk.kty, crv: publicJwk.crv, x: publicJwk.x };
  return {
    kid: await calculateJwkThumbprint(published),
    shop_id: shopId,
    sealed_private_key: secrets.seal(JSON.stringify(privateJwk)),
    public_jwk: JSON.stringify(published),
    created_at: now,
    retired_at: null,
  };
}

/** The shop's current key, made now if it has none (concurrent first uses keep one: a unique index). */
async function currentKey(db: Conn, secrets: SecretBox, shopId: number, now: number) {
  const found = await repo.currentSigningKey(db, shopId);
  if (found) return found;
  await repo.insertSigningKey(db, await newKeyRow(secrets, shopId, now));
  const made = await repo.currentSigningKey(db, shopId);
  if (!made) throw new Error(`shop ${shopId}: no current license signing key after creating one`);
  return made;
}

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/**
 * A compact JWS (EdDSA, the kid in its header) of the licence's facts: `iss` the shop's public API
 * base, `sub` the key, `iat` now and `exp` LICENSE_TOKEN_HOURS later — or the licence's own end
 * when that comes first, so no token outlives its licence.
 */
export async function signLicenseToken(
  ctx: Context,
  cache: SignerCache,
  shopId: number,
  facts: LicenseTokenFacts,
  /** The shop's current key when the caller has read it already (validate reads it with the licence). */
  current?: SigningKeyRef,
): Promise<string> {
  const now = ctx.clock.now();
  let key = current ?? (await currentKey(ctx.db, cache.secrets, shopId, now));
  let privateKey = cache.keyOf(shopId, key.kid, key.sealed_private_key);
  if (!privateKey) {
    // Sealed with a key the server no longer has (started with ALLOW_UNREADABLE_SECRETS): a new
    // key replaces it; its public half stays in the JWKS, so the tokens it signed still verify.
    await replaceCurrentKey(ctx, cache.secrets, shopId);
    key = await currentKey(ctx.db, cache.secrets, shopId, now);
    privateKey = cache.keyOf(shopId, key.kid, key.sealed_private_key);
    if (!privateKey) throw new Error(`shop ${shopId}: the new license signing key cannot be opened`);
  }
  const iat = Math.floor(now / 1000);
  const until = now + ctx.config.licenses.tokenHours * HOUR_MS;
  const exp = Math.floor(Math.min(until, facts.licenseExpiresAt ?? until) / 1000);
  const header = { alg: 'EdDSA', typ: 'JWT', kid: key.kid };
  const payload = {
    iss: licenseIssuer(ctx.config.publicUrl, shopId),
    sub: facts.licenseKey,
    iat,
    exp,
    productId: facts.productId,
    ...(facts.instanceId === null ? {} : { instanceId: facts.instanceId }),
    status: facts.status,
    licenseExpiresAt: facts.licenseExpiresAt === null ? null : new Date(facts.licenseExpiresAt).toISOString(),
  };
  const input = `${base64url(header)}.${base64url(payload)}`;
  const signature = sign(null, Buffer.from(input), privateKey);
  return `${input}.${signature.toString('base64url')}`;
}

/** The shop's JWKS: its current key (made now if it has none) and the retired keys whose tokens may still be valid. */
export async function shopJwks(ctx: Context, secrets: SecretBox, shopId: number): Promise<{ keys: PublicJwk[] }> {
  const now = ctx.clock.now();
  await currentKey(ctx.db, secrets, shopId, now);
  const since = now - ctx.config.licenses.tokenHours * HOUR_MS - RETIRED_KEY_MARGIN_MS;
  const rows = await repo.publishedSigningKeys(ctx.db, shopId, since);
  return {
    keys: rows.map((row) => ({
      ...(JSON.parse(row.public_jwk) as { kty: string; crv: string; x: string }),
      kid: row.kid,
      alg: 'EdDSA' as const,
      use: 'sig' as const,
    })),
  };
}

/**
 * Retires the shop's current key and makes a new one, in one transaction; tokens signed with the
 * old key keep verifying through the JWKS until they lapse. Answers the keys as the JWKS now lists
 * them, with their dates.
 */
export async function rotateSigningKey(ctx: Context, secrets: SecretBox, shopId: number) {
  await replaceCurrentKey(ctx, secrets, shopId);
  return signingKeys(ctx, shopId);
}

async function replaceCurrentKey(ctx: Context, secrets: SecretBox, shopId: number): Promise<void> {
  const now = ctx.clock.now();
  const row = await newKeyRow(secrets, shopId, now);
  await ctx.db.transaction().execute(async (trx) => {
    await repo.retireSigningKeys(trx, shopId, now);
    await repo.insertSigningKey(trx, row);
  });
}

/** The keys the JWKS lists, with when each was made and retired (the owner's view). */
export async function signingKeys(ctx: Context, shopId: number) {
  const now = ctx.clock.now();
  const since = now - ctx.config.licenses.tokenHours * HOUR_MS - RETIRED_KEY_MARGIN_MS;
  const rows = await repo.publishedSigningKeys(ctx.db, shopId, since);
  return rows.map((r) => ({
    kid: r.kid,
    current: r.retired_at === null,
    createdAt: new Date(r.created_at).toISOString(),
    retiredAt: r.retired_at === null ? null : new Date(r.retired_at).toISOString(),
  }));
}

/** Every sealed signing key, for the secrets module (start-up check, `shopd secrets rotate`). */
export async function sealedSigningKeys(db: Conn): Promise<{ shopId: number; kid: string; sealed: string }[]> {
  return (await repo.allSealedSigningKeys(db)).map((r) => ({
    shopId: r.shop_id,
    kid: r.kid,
    sealed: r.sealed_private_key,
  }));
}

/** Stores a signing key sealed again under a new server key (`shopd secrets rotate`). */
export function resealSigningKey(db: Conn, shopId: number, kid: string, sealed: string): Promise<void> {
  return repo.resealSigningKey(db, shopId, kid, sealed);
}
