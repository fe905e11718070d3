import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { PaymentSettingsRow } from './payment-settings.table.js';

type Conn = Kysely<Database>;

export function listPaymentSettings(db: Conn, shopId: number): Promise<PaymentSettingsRow[]> {
  return db.selectFrom('payment_settings').selectAll().where('shop_id', '=', shopId).execute();
}

export function findPaymentSettings(
  db: Conn,
  shopId: number,
  provider: string,
): Promise<PaymentSettingsRow | undefined> {
  return db
    .selectFrom('payment_settings')
    .selectAll()
    .where('shop_id', '=', shopId)
    .where('provider', '=', provider)
    .executeTakeFirst();
}

/** The providers the shop has enabled; secrets are never selected. */
export async function enabledProviders(db: Conn, shopId: number): Promise<string[]> {
  const rows = await db
    .selectFrom('payment_settings')
    .select('provider')
    .where('shop_id', '=', shopId)
    .where('enabled', '=', 1)
    .execute();
  return rows.map((r) => r.provider);
}

/** Gateway settings of every shop with the `blockVpn` rule on (the start-up check of VPN ranges). */
export async function countBlockVpnSettings(db: Conn): Promise<number> {
  const row = await db
    .selectFrom('payment_settings')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('block_vpn', '=', 1)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function upsertPaymentSettings(db: Conn, row: PaymentSettingsRow): Promise<void> {
  await db
    .insertInto('payment_settings')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['shop_id', 'provider']).doUpdateSet({
        enabled: row.enabled,
        block_vpn: row.block_vpn,
        public_fields: row.public_fields,
        secret_fields: row.secret_fields,
        updated_at: row.updated_at,
      }),
    )
    .execute();
}

// The two functions below serve the secrets module (start-up check, `shopd secrets rotate`), through
// payment-settings.ts; they never answer a request.

/** Every shop's sealed payment secrets. */
export function listSealedPaymentSecrets(
  db: Conn,
): Promise<{ shop_id: number; provider: string; secret_fields: string | null }[]> {
  return db
    .selectFrom('payment_settings')
    .select(['shop_id', 'provider', 'secret_fields'])
    .where('secret_fields', 'is not', null)
    .orderBy('shop_id')
    .orderBy('provider')
    .execute();
}

export async function replaceSealedPaymentSecrets(
  db: Conn,
  shopId: number,
  provider: string,
  sealed: string,
): Promise<void> {
  await db
    .updateTable('payment_settings')
    .set({ secret_fields: sealed })
    .where('shop_id', '=', shopId)
    .where('provider', '=', provider)
    .execute();
}
