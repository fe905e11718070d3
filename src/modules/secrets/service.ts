import type { Kysely } from 'kysely';
import { ConfigError } from '../../config.js';
import type { Database } from '../../db/schema.js';
import type { SecretBox } from '../../security/secret-box.js';
import { resealSigningKey, sealedSigningKeys } from '../licenses/index.js';
import { resealPaymentSecrets, sealedPaymentSecrets } from '../settings/index.js';
import { resealWebhookSecret, sealedWebhookSecrets } from '../webhooks/index.js';

type Conn = Kysely<Database>;

/**
 * Every secret shopd keeps sealed with the server's key (src/security/secret-box.ts): each
 * shop's payment credentials (one sealed record per provider), each webhook endpoint's signing
 * secret and each shop's license-token signing keys (Ed25519 private keys). Used at start-up, to see whether the configured key can open them, and by
 * `shopd secrets rotate`, to seal them again under a new key.
 */
export type SealedSecret =
  | { kind: 'payment'; shopId: number; provider: string; sealed: string }
  | { kind: 'webhook'; shopId: number; webhookId: number; sealed: string }
  | { kind: 'license-signing-key'; shopId: number; kid: string; sealed: string };

export async function listSealedSecrets(db: Conn): Promise<SealedSecret[]> {
  const [payments, webhooks, signingKeys] = [
    await sealedPaymentSecrets(db),
    await sealedWebhookSecrets(db),
    await sealedSigningKeys(db),
  ];
  return [
    ...payments.map((p) => ({ kind: 'payment' as const, ...p })),
    ...webhooks.map((w) => ({ kind: 'webhook' as const, ...w })),
    ...signingKeys.map((k) => ({ kind: 'license-signing-key' as const, ...k })),
  ];
}

export function describeSecret(secret: SealedSecret): string {
  if (secret.kind === 'payment') return `shop ${secret.shopId}: ${secret.provider} payment settings`;
  if (secret.kind === 'webhook') return `shop ${secret.shopId}: webhook ${secret.webhookId} signing secret`;
  return `shop ${secret.shopId}: license signing key ${secret.kid}`;
}

/** The sealed secrets `box` cannot open, out of how many. */
export async function findUnreadableSecrets(
  db: Conn,
  box: SecretBox,
): Promise<{ total: number; unreadable: SealedSecret[] }> {
  const all = await listSealedSecrets(db);
  return { total: all.length, unreadable: all.filter((s) => box.tryOpen(s.sealed) === undefined) };
}

/** Lists at most a few, then says how many more: a message an operator can read. */
export function listForHumans(secrets: SealedSecret[], shown = 10): string {
  const lines = secrets.slice(0, shown).map((s) => `  - ${describeSecret(s)}`);
  if (secrets.length > shown) lines.push(`  - … and ${secrets.length - shown} more`);
  return lines.join('\n');
}

export class SecretsNotOpenedError extends Error {
  constructor(
    readonly unreadable: SealedSecret[],
    readonly total: number,
  ) {
    super(`${unreadable.length} of ${total} sealed secrets cannot be opened with the old key`);
  }
}

export interface Rotation {
  payments: number;
  webhooks: number;
  signingKeys: number;
}

/**
 * Opens every sealed secret with `from` and seals it with `to`, in one transaction. If any secret
 * cannot be opened with `from`, nothing is changed (SecretsNotOpenedError names them).
 */
export async function rotateSecrets(db: Conn, from: SecretBox, to: SecretBox): Promise<Rotation> {
  return db.transaction().execute(async (trx) => {
    const all = await listSealedSecrets(trx);
    const opened = all.map((secret) => ({ secret, plaintext: from.tryOpen(secret.sealed) }));
    const unreadable = opened.filter((o) => o.plaintext === undefined).map((o) => o.secret);
    if (unreadable.length > 0) throw new SecretsNotOpenedError(unreadable, all.length);
    const done: Rotation = { payments: 0, webhooks: 0, signingKeys: 0 };
    for (const { secret, plaintext } of opened) {
      const sealed = to.seal(plaintext!);
      if (secret.kind === 'payment') {
        await resealPaymentSecrets(trx, secret.shopId, secret.provider, sealed);
        done.payments++;
      } else if (secret.kind === 'webhook') {
        await resealWebhookSecret(trx, secret.shopId, secret.webhookId, sealed);
        done.webhooks++;
      } else {
        await resealSigningKey(trx, secret.shopId, secret.kid, sealed);
        done.signingKeys++;
      }
    }
    return done;
  });
}

/**
 * Start-up: can the configured key open what the database holds? If not, shopd refuses to start
 * (unless `ALLOW_UNREADABLE_SECRETS=true`). Starting anyway would seal every new or re-entered
 * secret with a key that is likely the wrong one — a mistyped SECRET_KEY, or a secret.key
 * generated anew because the old file was not copied — leaving a database sealed with two keys,
 * which neither key, nor `shopd secrets rotate`, can then fully open. Refusing costs the time to
 * restore the key, and the message says how; the override is for a key that is truly lost.
 */
export async function checkStoredSecrets(
  db: Conn,
  box: SecretBox,
  options: { allowUnreadable: boolean; log: { error(obj: object, msg: string): void } },
): Promise<void> {
  const { total, unreadable } = await findUnreadableSecrets(db, box);
  if (unreadable.length === 0) return;
  const found = `The key in use (${box.keySource}) cannot open ${unreadable.length} of the ${total} secrets stored in the database:\n${listForHumans(unreadable)}`;
  if (options.allowUnreadable) {
    options.log.error(
      { unreadable: unreadable.length, total, secrets: unreadable.slice(0, 100).map(describeSecret) },
      `${found}\nStarting anyway (ALLOW_UNREADABLE_SECRETS=true): those payment settings read as unreadable until the owner enters them again, those webhooks fail until recreated, those license signing keys are replaced by new ones at their next use (tokens they signed keep verifying).`,
    );
    return;
  }
  throw new UnreadableSecretsAtStartError(
    `${found}\n` +
      'They were sealed with another key: SECRET_KEY was changed or unset, or DATA_DIR/secret.key was replaced (a missing one is generated anew). Either\n' +
      '  - start with the key that sealed them: set SECRET_KEY back, or restore DATA_DIR/secret.key from your backup; or\n' +
      '  - re-encrypt them from that key to this one: shopd secrets rotate --from-key-file <old secret.key>, or --from-env <VARIABLE> with the old SECRET_KEY in that variable; or\n' +
      '  - if that key is lost for good, start with ALLOW_UNREADABLE_SECRETS=true: owners must then enter those payment secrets again and recreate those webhooks (license signing keys are replaced by themselves).\n' +
      'shopd did not start, so that nothing gets sealed with a key that may be the wrong one.',
  );
}

/** A ConfigError: the server and the CLI print its message alone and exit 1. */
export class UnreadableSecretsAtStartError extends ConfigError {}
