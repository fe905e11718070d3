import type { Kysely } from 'kysely';
import { type Config, ConfigError } from '../../config.js';
import type { Database } from '../../db/schema.js';
import { createSecretBox, readKeyFile, type SecretBox, secretBoxFromKey } from '../../security/secret-box.js';
import {
  listForHumans,
  listSealedSecrets,
  rotateSecrets,
  type SealedSecret,
  SecretsNotOpenedError,
} from './service.js';

/**
 * `shopd secrets rotate --from-key-file <file> | --from-env <VARIABLE>`: seals every stored secret
 * again, from the old key to the configured one (SECRET_KEY, else DATA_DIR/secret.key, generated
 * when missing — so moving the old file aside and rotating gives a fresh generated key).
 *
 * The old key is given as a `secret.key` file as shopd writes it, or as the name of an environment
 * variable holding the old SECRET_KEY: never on the command line, where shell history and the
 * process list would keep it. One transaction; if the old key cannot open every stored secret,
 * nothing is changed. Run it with every shopd instance stopped: an instance still running with
 * the old key would seal new secrets with it.
 */
export interface RotateOptions {
  fromKeyFile?: string | undefined;
  fromEnv?: string | undefined;
}

function oldKey(options: RotateOptions, env: NodeJS.ProcessEnv): SecretBox {
  if (options.fromKeyFile !== undefined) {
    let material: Buffer;
    try {
      material = readKeyFile(options.fromKeyFile);
    } catch (err) {
      throw new ConfigError(`--from-key-file: cannot read ${options.fromKeyFile}: ${(err as Error).message}`);
    }
    if (material.length < 16)
      throw new ConfigError(
        `--from-key-file: ${options.fromKeyFile} does not hold a key (base64 of 32 bytes, as shopd writes secret.key)`,
      );
    return secretBoxFromKey(material, `--from-key-file ${options.fromKeyFile}`);
  }
  const name = options.fromEnv!;
  const value = env[name];
  if (!value)
    throw new ConfigError(`--from-env: the environment variable ${name} is not set (it must hold the old SECRET_KEY)`);
  return secretBoxFromKey(Buffer.from(value, 'utf8'), `--from-env ${name}`);
}

/** Runs the rotation; answers what to print. Refusals are ConfigErrors, printed as they are. */
export async function rotateSecretsCommand(
  db: Kysely<Database>,
  config: Config,
  options: RotateOptions,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  const from = oldKey(options, env);
  // Checked before the configured key is looked at, which may create DATA_DIR/secret.key.
  const stored = await listSealedSecrets(db);
  if (stored.length === 0) return 'Nothing to re-encrypt: the database holds no sealed secrets.';
  const unreadable = stored.filter((s) => from.tryOpen(s.sealed) === undefined);
  if (unreadable.length > 0) throw notOpened(from, unreadable, stored.length);
  const to = createSecretBox(config.secretKey, config.dataDir);
  if (to.tryOpen(from.seal('same key?')) !== undefined) {
    throw new ConfigError(
      `Nothing was changed: the old key (${from.keySource}) is the configured key (${to.keySource}).`,
    );
  }
  let done: Awaited<ReturnType<typeof rotateSecrets>>;
  try {
    done = await rotateSecrets(db, from, to);
  } catch (err) {
    // A secret written since the check above, with yet another key: still nothing changed.
    if (err instanceof SecretsNotOpenedError) throw notOpened(from, err.unreadable, err.total);
    throw err;
  }
  return (
    `Re-encrypted ${done.payments + done.webhooks + done.signingKeys} secrets (${done.payments} payment settings, ${done.webhooks} webhook signing secrets, ${done.signingKeys} license signing keys) ` +
    `from the old key (${from.keySource}) to the configured key (${to.keySource}). Start shopd with that key.`
  );
}

function notOpened(from: SecretBox, unreadable: SealedSecret[], total: number): ConfigError {
  return new ConfigError(
    `Nothing was changed: the old key (${from.keySource}) cannot open ${unreadable.length} of the ${total} stored secrets:\n` +
      `${listForHumans(unreadable)}\nGive the key that sealed them.`,
  );
}
