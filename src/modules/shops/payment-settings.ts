import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { UnprocessableError } from '../../http/errors.js';
import { maskSecret, type SecretBox } from '../../security/secret-box.js';
import { paymentProviderNames, providerFields, type PaymentProvider } from './payments.js';
import * as repo from './repository.js';
import type { PaymentSettingsRow } from './shops.table.js';

type Conn = Kysely<Database>;
type Fields = Record<string, string>;

export interface PaymentView {
  enabled: boolean;
  configured: boolean;
  gatewayRules: { blockVpn: boolean };
  [field: string]: unknown;
}

export interface PaymentUpdate {
  enabled?: boolean;
  gatewayRules?: { blockVpn?: boolean };
  [field: string]: unknown;
}

interface Stored {
  enabled: boolean;
  blockVpn: boolean;
  values: Fields;
}

function unseal(secrets: SecretBox, row: PaymentSettingsRow | undefined): Stored {
  if (!row) return { enabled: false, blockVpn: false, values: {} };
  const values: Fields = { ...(JSON.parse(row.public_fields) as Fields) };
  if (row.secret_fields) Object.assign(values, JSON.parse(secrets.open(row.secret_fields)) as Fields);
  return { enabled: row.enabled === 1, blockVpn: row.block_vpn === 1, values };
}

function missingFields(provider: PaymentProvider, values: Fields): string[] {
  return providerFields(provider).filter(([name, spec]) => spec.required && !values[name]).map(([name]) => name);
}

function toView(provider: PaymentProvider, stored: Stored): PaymentView {
  const view: PaymentView = {
    enabled: stored.enabled,
    configured: missingFields(provider, stored.values).length === 0,
    gatewayRules: { blockVpn: stored.blockVpn },
  };
  for (const [name, spec] of providerFields(provider)) {
    const value = stored.values[name];
    view[name] = value === undefined ? null : spec.secret ? maskSecret(value) : value;
  }
  return view;
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

/** Every provider's masked settings, unconfigured ones included (disabled, fields null). */
export async function getPaymentViews(db: Conn, secrets: SecretBox, shopId: number): Promise<Record<PaymentProvider, PaymentView>> {
  const rows = new Map((await repo.listPaymentSettings(db, shopId)).map((r) => [r.provider, r]));
  return Object.fromEntries(paymentProviderNames.map((p) => [p, toView(p, unseal(secrets, rows.get(p)))])) as Record<PaymentProvider, PaymentView>;
}

/**
 * Partial update of one provider: omitted fields keep their value, null clears one. A provider
 * can be enabled only once every required field is set. Secret fields are sealed at rest.
 */
export async function updatePaymentSettings(
  db: Conn,
  secrets: SecretBox,
  shopId: number,
  provider: PaymentProvider,
  update: PaymentUpdate,
): Promise<PaymentView> {
  return db.transaction().execute(async (trx) => {
    const current = unseal(secrets, await repo.findPaymentSettings(trx, shopId, provider));
    const next: Stored = {
      enabled: update.enabled ?? current.enabled,
      blockVpn: update.gatewayRules?.blockVpn ?? current.blockVpn,
      values: { ...current.values },
    };
    for (const [name] of providerFields(provider)) {
      const value = update[name];
      if (value === null) delete next.values[name];
      else if (typeof value === 'string') next.values[name] = value;
    }
    const missing = missingFields(provider, next.values);
    if (next.enabled && missing.length > 0) {
      // Depends on what is stored, not on the body alone: a business rule (422), not a malformed request.
      throw new UnprocessableError(`${provider} cannot be enabled until it is configured.`, missing.map((m) => `${m}: is required to enable ${provider}`));
    }
    const publicFields: Fields = {};
    const secretFields: Fields = {};
    for (const [name, spec] of providerFields(provider)) {
      const value = next.values[name];
      if (value !== undefined) (spec.secret ? secretFields : publicFields)[name] = value;
    }
    await repo.upsertPaymentSettings(trx, {
      shop_id: shopId,
      provider,
      enabled: next.enabled ? 1 : 0,
      block_vpn: next.blockVpn ? 1 : 0,
      public_fields: JSON.stringify(publicFields),
      secret_fields: Object.keys(secretFields).length > 0 ? secrets.seal(JSON.stringify(secretFields)) : null,
      updated_at: Date.now(),
    });
    return toView(provider, next);
  });
}
