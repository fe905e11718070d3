import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Context } from '../../domain/context.js';
import { ConflictError, PaymentProviderError, UnprocessableError, ValidationError } from '../../http/errors.js';
import { MASK, maskSecret, type SecretBox, UNREADABLE_MASK } from '../../security/secret-box.js';
import { assertVpnBlockingAvailable, type VpnRanges } from '../blacklist/index.js';
import { gatewayAdapter, ProviderCallError } from '../gateways/index.js';
import { countVpnBlockingVariants } from '../products/index.js';
import { isUnsupportedProvider, type PaymentProvider, paymentProviderNames, providerFields } from '../shops/index.js';
import type { PaymentSettingsRow } from './payment-settings.table.js';
import * as repo from './repository.js';

type Conn = Kysely<Database>;
type Fields = Record<string, string>;

export interface PaymentView {
  enabled: boolean;
  configured: boolean;
  secretsUnreadable: boolean;
  gatewayRules: { blockVpn: boolean };
  [field: string]: unknown;
}

export interface PaymentUpdate {
  enabled?: boolean | null;
  gatewayRules?: { blockVpn?: boolean | null } | null;
  [field: string]: unknown;
}

interface Stored {
  enabled: boolean;
  blockVpn: boolean;
  values: Fields;
  /** The sealed secret fields as stored, kept verbatim when an update does not touch them. */
  sealed: string | null;
  /** The configured key cannot open `sealed` (SECRET_KEY changed or lost): `values` lacks the secrets. */
  unreadable: boolean;
}

function unseal(secrets: SecretBox, row: PaymentSettingsRow | undefined): Stored {
  if (!row) return { enabled: false, blockVpn: false, values: {}, sealed: null, unreadable: false };
  const values: Fields = { ...(JSON.parse(row.public_fields) as Fields) };
  const opened = row.secret_fields === null ? null : secrets.tryOpen(row.secret_fields);
  if (opened) Object.assign(values, JSON.parse(opened) as Fields);
  return {
    enabled: row.enabled === 1,
    blockVpn: row.block_vpn === 1,
    values,
    sealed: row.secret_fields,
    unreadable: opened === undefined,
  };
}

const secretFieldsOf = (provider: PaymentProvider) =>
  providerFields(provider)
    .filter(([, spec]) => spec.secret)
    .map(([name]) => name);

/** What a read shows for a secret field: its mask, the unreadable mark, or null when unset. */
function shownSecret(stored: Stored, name: string): string | null {
  if (stored.unreadable) return UNREADABLE_MASK;
  const value = stored.values[name];
  return value === undefined ? null : maskSecret(value);
}

function missingFields(provider: PaymentProvider, values: Fields): string[] {
  return providerFields(provider)
    .filter(([name, spec]) => spec.required && !values[name])
    .map(([name]) => name);
}

function toView(provider: PaymentProvider, stored: Stored): PaymentView {
  const view: PaymentView = {
    enabled: stored.enabled,
    // Secrets that cannot be opened cannot be used: not configured until entered again.
    configured: !stored.unreadable && missingFields(provider, stored.values).length === 0,
    secretsUnreadable: stored.unreadable,
    gatewayRules: { blockVpn: stored.blockVpn },
  };
  for (const [name, spec] of providerFields(provider)) {
    view[name] = spec.secret ? shownSecret(stored, name) : (stored.values[name] ?? null);
  }
  return view;
}

/**
 * The secret fields an update really sets (a string) or clears (null). A masked value sent back
 * as it was read (a GET view used as the PUT body) keeps the stored secret; any other value that
 * starts with the mask character is a 400: it is a mask, never a secret.
 */
function givenSecrets(provider: PaymentProvider, stored: Stored, update: PaymentUpdate): Map<string, string | null> {
  const given = new Map<string, string | null>();
  const problems: string[] = [];
  for (const name of secretFieldsOf(provider)) {
    const value = update[name];
    if (typeof value === 'string' && value.startsWith(MASK)) {
      if (value !== shownSecret(stored, name))
        problems.push(
          `${name}: is a masked value that does not match the stored secret; send the secret itself, or the value as read to keep it`,
        );
    } else if (value === null || typeof value === 'string') {
      given.set(name, value);
    }
  }
  if (problems.length > 0) throw new ValidationError(problems, 'A masked secret cannot be stored.');
  return given;
}

/**
 * Stored secrets the configured key cannot open can be kept as they are (an update that leaves
 * them alone, so that they work again once the right key is back) or replaced all at once; a
 * part cannot be changed, since the rest cannot be read to be sealed again with it.
 */
function checkUnreadableUpdate(
  provider: PaymentProvider,
  current: Stored,
  given: Map<string, string | null>,
  enabling: boolean,
): void {
  if (!current.unreadable) return;
  const secretNames = secretFieldsOf(provider);
  const missing = secretNames.filter((name) => !given.has(name));
  const why = `cannot be read with this server's key (SECRET_KEY or DATA_DIR/secret.key changed)`;
  if (given.size > 0 && missing.length > 0) {
    throw new ConflictError(
      `The stored ${provider} secrets ${why}: give every secret field again to replace them.`,
      missing.map((name) => `${name}: the stored value ${why}; give it again too, or null to clear it`),
    );
  }
  if (given.size === 0 && enabling) {
    throw new ConflictError(
      `The stored ${provider} secrets ${why}: enter them again to enable ${provider}.`,
      secretNames.map((name) => `${name}: the stored value ${why}; give it again`),
    );
  }
}

/**
 * The public fields of a gateway the shop has enabled (handle, e-mail, cashtag, ...), or
 * undefined when it is not enabled. Enabling requires every required field, so an enabled
 * gateway is a configured one; secrets are not opened.
 */
export async function enabledGateway(db: Conn, shopId: number, provider: string): Promise<Fields | undefined> {
  const row = await repo.findPaymentSettings(db, shopId, provider);
  return row?.enabled === 1 ? (JSON.parse(row.public_fields) as Fields) : undefined;
}

/** Names of the gateways the shop has enabled (what its storefront offers); secrets are not read. */
export async function enabledGatewayNames(db: Conn, shopId: number): Promise<Set<string>> {
  return new Set(await repo.enabledProviders(db, shopId));
}

/**
 * Every field of a gateway's settings, secrets opened, for the code that talks to the provider
 * (starting a payment, checking a callback's signature, refunding). Undefined when the shop has
 * not configured it, or its secrets cannot be read with this server's key. Enabled or not: a
 * callback or refund of a payment made before the owner turned the gateway off still applies.
 */
export async function gatewayCredentials(
  db: Conn,
  secrets: SecretBox,
  shopId: number,
  provider: PaymentProvider,
): Promise<Fields | undefined> {
  const row = await repo.findPaymentSettings(db, shopId, provider);
  if (!row) return undefined;
  const stored = unseal(secrets, row);
  if (stored.unreadable || missingFields(provider, stored.values).length > 0) return undefined;
  return stored.values;
}

/**
 * What a checkout needs of a gateway, in one read: undefined unless enabled, else its public
 * fields (the payment instructions) and whether it carries the `blockVpn` rule.
 */
export async function checkoutGateway(
  db: Conn,
  shopId: number,
  provider: string,
): Promise<{ fields: Fields; blockVpn: boolean } | undefined> {
  const row = await repo.findPaymentSettings(db, shopId, provider);
  if (row?.enabled !== 1) return undefined;
  return { fields: JSON.parse(row.public_fields) as Fields, blockVpn: row.block_vpn === 1 };
}

/** Every provider's masked settings, unconfigured ones included (disabled, fields null). */
export async function getPaymentViews(
  db: Conn,
  secrets: SecretBox,
  shopId: number,
): Promise<Record<PaymentProvider, PaymentView>> {
  const rows = new Map((await repo.listPaymentSettings(db, shopId)).map((r) => [r.provider, r]));
  return Object.fromEntries(paymentProviderNames.map((p) => [p, toView(p, unseal(secrets, rows.get(p)))])) as Record<
    PaymentProvider,
    PaymentView
  >;
}

/**
 * Partial update of one provider: omitted fields keep their value, null clears one. A provider
 * can be enabled only once every required field is set. Secret fields are sealed at rest.
 */
/**
 * A provider that can be asked (Stripe) is asked whether a newly given secret works before it is
 * stored, outside the transaction: a key it refuses is a 422 naming the field, and no answer a 502;
 * either way nothing is saved. Secrets sent back masked, or not at all, are not asked about again.
 */
async function checkNewSecrets(
  ctx: Context,
  secrets: SecretBox,
  shopId: number,
  provider: PaymentProvider,
  update: PaymentUpdate,
): Promise<void> {
  const adapter = gatewayAdapter(provider);
  const check = adapter?.hosted?.credentialCheck;
  if (!check) return;
  const given = update[check.field];
  if (typeof given !== 'string' || given === '' || given.startsWith(MASK)) return;
  const current = unseal(secrets, await repo.findPaymentSettings(ctx.db, shopId, provider));
  try {
    await check.run({ ...current.values, [check.field]: given }, ctx.config.payments);
  } catch (err) {
    if (!(err instanceof ProviderCallError)) throw err;
    if (err.unknown)
      throw new PaymentProviderError(
        `${adapter.label} did not answer the check of the new key; nothing was saved: try again.`,
        [`${check.field}: ${err.detail}`],
      );
    throw new UnprocessableError(`${adapter.label} refused the new key; nothing was saved.`, [
      `${check.field}: ${err.detail}`,
    ]);
  }
}

export async function updatePaymentSettings(
  ctx: Context,
  secrets: SecretBox,
  shopId: number,
  provider: PaymentProvider,
  update: PaymentUpdate,
  vpn: VpnRanges | null,
): Promise<PaymentView> {
  await checkNewSecrets(ctx, secrets, shopId, provider, update);
  return ctx.db.transaction().execute(async (trx) => {
    const current = unseal(secrets, await repo.findPaymentSettings(trx, shopId, provider));
    // Turning blockVpn on needs ranges to check it against; one stored before that was checked may stay.
    if (update.gatewayRules?.blockVpn === true && !current.blockVpn)
      assertVpnBlockingAvailable(vpn, 'gatewayRules.blockVpn');
    const given = givenSecrets(provider, current, update);
    const enabled = update.enabled ?? current.enabled;
    if (update.enabled === true && isUnsupportedProvider(provider))
      throw new UnprocessableError(`${provider} is not supported by this server yet.`, [
        `enabled: ${provider} is not supported by this server yet; its settings can be kept, but it cannot take payments`,
      ]);
    checkUnreadableUpdate(provider, current, given, enabled && !current.enabled);
    // Secrets left alone stay sealed as they are (unreadable ones included); new ones are sealed anew.
    const keepSealed = given.size === 0;
    const next: Stored = {
      enabled,
      blockVpn: update.gatewayRules?.blockVpn ?? current.blockVpn,
      values: { ...current.values },
      sealed: current.sealed,
      unreadable: keepSealed && current.unreadable,
    };
    for (const [name, spec] of providerFields(provider)) {
      const value = spec.secret ? given.get(name) : update[name];
      if (value === null) delete next.values[name];
      else if (typeof value === 'string') next.values[name] = value;
    }
    // Unreadable secrets kept as they are count as set: the provider was complete when it was enabled.
    const missing = missingFields(provider, next.values).filter(
      (name) => !(next.unreadable && secretFieldsOf(provider).includes(name)),
    );
    if (next.enabled && missing.length > 0) {
      // Depends on what is stored, not on the body alone: a business rule (422), not a malformed request.
      throw new UnprocessableError(
        `${provider} cannot be enabled until it is configured.`,
        missing.map((m) => `${m}: is required to enable ${provider}`),
      );
    }
    const publicFields: Fields = {};
    const secretFields: Fields = {};
    for (const [name, spec] of providerFields(provider)) {
      const value = next.values[name];
      if (value !== undefined) (spec.secret ? secretFields : publicFields)[name] = value;
    }
    if (!keepSealed)
      next.sealed = Object.keys(secretFields).length > 0 ? secrets.seal(JSON.stringify(secretFields)) : null;
    await repo.upsertPaymentSettings(trx, {
      shop_id: shopId,
      provider,
      enabled: next.enabled ? 1 : 0,
      block_vpn: next.blockVpn ? 1 : 0,
      public_fields: JSON.stringify(publicFields),
      secret_fields: next.sealed,
      updated_at: ctx.clock.now(),
    });
    return toView(provider, next);
  });
}

/**
 * Without ranges, `blockVpn` rules stored before they were required (when the switch did
 * nothing) are kept, so that configuring VPN_RANGES_FILE later enforces them, but are not
 * enforced meanwhile. Said at start, with how many there are, so the operator can decide.
 */
export async function warnOfUnenforcedVpnRules(
  db: Kysely<Database>,
  log: { warn(obj: object, msg: string): void },
): Promise<void> {
  const [gatewaySettings, variants] = await Promise.all([repo.countBlockVpnSettings(db), countVpnBlockingVariants(db)]);
  if (gatewaySettings + variants === 0) return;
  log.warn(
    { gatewaySettings, variants },
    `blockVpn is on for ${gatewaySettings} shop gateway setting(s) and ${variants} product variant(s) but VPN_RANGES_FILE is not set: ` +
      'they are not enforced until it is (and cannot be turned on anew)',
  );
}

// The two operations below serve the secrets module (the start-up check, `shopd secrets rotate`),
// which handles the sealed secrets of every shop at once; they never answer a request. `db` is
// the caller's: a rotation reads and writes every secret in one transaction.

/** Every shop's sealed payment secrets: one sealed record per shop and provider that has one. */
export async function sealedPaymentSecrets(db: Conn): Promise<{ shopId: number; provider: string; sealed: string }[]> {
  const rows = await repo.listSealedPaymentSecrets(db);
  return rows.map((r) => ({ shopId: r.shop_id, provider: r.provider, sealed: r.secret_fields! }));
}

/** Stores a shop's payment secrets sealed anew (under another key): the same secrets, so nothing else changes. */
export function resealPaymentSecrets(db: Conn, shopId: number, provider: string, sealed: string): Promise<void> {
  return repo.replaceSealedPaymentSecrets(db, shopId, provider, sealed);
}
