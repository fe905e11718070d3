import type { IdempotencyKeysTable } from '../http/idempotency.table.js';
import type { AccountsTable, ApiKeysTable } from '../modules/accounts/accounts.table.js';
import type { BlacklistTable } from '../modules/blacklist/blacklist.table.js';
import type { CouponsTable } from '../modules/coupons/coupons.table.js';
import type { BalanceEntriesTable, CustomerIpsTable, CustomersTable } from '../modules/customers/customers.table.js';
import type { EventsTable } from '../modules/events/events.table.js';
import type { InvoicePartsTable, InvoiceReplacementsTable, InvoicesTable } from '../modules/invoices/invoices.table.js';
import type { MailOutboxTable } from '../modules/mail/mail.table.js';
import type { CategoriesTable, CategoryListingsTable } from '../modules/categories/categories.table.js';
import type { ShopDesignsTable } from '../modules/design/design.table.js';
import type { GroupProductsTable, ProductGroupsTable } from '../modules/groups/groups.table.js';
import type { ListingsTable } from '../modules/listings/listings.table.js';
import type { ProductsTable, ProductVariantsTable, SerialsTable } from '../modules/products/products.table.js';
import type { PaymentSettingsTable, ShopsTable } from '../modules/shops/shops.table.js';

/** Every table of the service, composed from the modules' own table types. */
export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  shops: ShopsTable;
  payment_settings: PaymentSettingsTable;
  shop_designs: ShopDesignsTable;
  idempotency_keys: IdempotencyKeysTable;
  products: ProductsTable;
  product_variants: ProductVariantsTable;
  serials: SerialsTable;
  product_groups: ProductGroupsTable;
  group_products: GroupProductsTable;
  listings: ListingsTable;
  categories: CategoriesTable;
  category_listings: CategoryListingsTable;
  customers: CustomersTable;
  customer_ips: CustomerIpsTable;
  balance_entries: BalanceEntriesTable;
  coupons: CouponsTable;
  blacklist: BlacklistTable;
  invoices: InvoicesTable;
  invoice_parts: InvoicePartsTable;
  invoice_replacements: InvoiceReplacementsTable;
  mail_outbox: MailOutboxTable;
  events: EventsTable;
}
