import type { IdempotencyKeysTable } from '../http/idempotency.table.js';
import type { AccountsTable, ApiKeysTable } from '../modules/accounts/accounts.table.js';
import type { ShopDesignsTable } from '../modules/design/design.table.js';
import type { PaymentSettingsTable, ShopsTable } from '../modules/shops/shops.table.js';

/** Every table of the service, composed from the modules' own table types. */
export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  shops: ShopsTable;
  payment_settings: PaymentSettingsTable;
  shop_designs: ShopDesignsTable;
  idempotency_keys: IdempotencyKeysTable;
}
