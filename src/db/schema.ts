import type { IdempotencyKeysTable } from '../http/idempotency.table.js';
import type {
  AccountsTable,
  ApiKeysTable,
  OwnerPasswordTokensTable,
  OwnerSessionsTable,
} from '../modules/accounts/accounts.table.js';
import type { VisitsTable } from '../modules/analytics/visits.table.js';
import type { AnnouncementsTable } from '../modules/announcements/announcements.table.js';
import type { BlacklistTable } from '../modules/blacklist/blacklist.table.js';
import type { CategoriesTable, CategoryListingsTable } from '../modules/categories/categories.table.js';
import type { ChallengeActionsTable, ChallengeSolutionsTable } from '../modules/challenge/challenge.table.js';
import type { CouponsTable } from '../modules/coupons/coupons.table.js';
import type {
  CustomerSessionsTable,
  CustomerSignInCodesTable,
} from '../modules/customer-sessions/customer-sessions.table.js';
import type { BalanceEntriesTable, CustomerIpsTable, CustomersTable } from '../modules/customers/customers.table.js';
import type { ShopDesignsTable } from '../modules/design/design.table.js';
import type { DisputesTable, InvoiceViewsTable } from '../modules/disputes/disputes.table.js';
import type { EventsTable } from '../modules/events/events.table.js';
import type { FaqsTable } from '../modules/faqs/faqs.table.js';
import type { FeedbackAppealsTable, FeedbacksTable } from '../modules/feedbacks/feedbacks.table.js';
import type {
  DownloadGrantsTable,
  DownloadLogTable,
  FileAttachmentsTable,
  FilesTable,
  FileUploadsTable,
} from '../modules/files/files.table.js';
import type { GroupProductsTable, ProductGroupsTable } from '../modules/groups/groups.table.js';
import type {
  LicenseActivationsTable,
  LicenseSigningKeysTable,
  LicensesTable,
} from '../modules/licenses/licenses.table.js';
import type { ListingsTable } from '../modules/listings/listings.table.js';
import type { MailOutboxTable } from '../modules/mail/mail.table.js';
import type {
  InvoicePartsTable,
  InvoiceRefundsTable,
  InvoiceReplacementsTable,
  InvoicesTable,
  InvoiceTermsTable,
} from '../modules/orders/invoices.table.js';
import type { PaymentEventsTable } from '../modules/payments/payments.table.js';
import type {
  ProductImagesTable,
  ProductsTable,
  ProductVariantsTable,
  SerialsTable,
} from '../modules/products/products.table.js';
import type { ShopProtectionTable } from '../modules/protection/protection.table.js';
import type {
  RollupGatewaysTable,
  RollupHoursTable,
  RollupInvoiceCountsTable,
  RollupProductsTable,
  RollupStateTable,
  RollupTotalsTable,
} from '../modules/rollups/rollups.table.js';
import type { PaymentSettingsTable } from '../modules/settings/payment-settings.table.js';
import type { ReleasedSubdomainsTable, ShopsTable } from '../modules/shops/shops.table.js';
import type { FeedbackProductsTable, ShopTotalsTable } from '../modules/storefront/totals.table.js';
import type { TicketMessagesTable, TicketsTable } from '../modules/tickets/tickets.table.js';
import type {
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhookEndpointsTable,
} from '../modules/webhooks/webhooks.table.js';

/** Every table of the service, composed from the modules' own table types. */
export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  owner_sessions: OwnerSessionsTable;
  owner_password_tokens: OwnerPasswordTokensTable;
  shops: ShopsTable;
  released_subdomains: ReleasedSubdomainsTable;
  payment_settings: PaymentSettingsTable;
  shop_designs: ShopDesignsTable;
  shop_protection: ShopProtectionTable;
  challenge_actions: ChallengeActionsTable;
  challenge_solutions: ChallengeSolutionsTable;
  disputes: DisputesTable;
  invoice_views: InvoiceViewsTable;
  idempotency_keys: IdempotencyKeysTable;
  products: ProductsTable;
  product_images: ProductImagesTable;
  product_variants: ProductVariantsTable;
  serials: SerialsTable;
  files: FilesTable;
  file_uploads: FileUploadsTable;
  file_attachments: FileAttachmentsTable;
  download_grants: DownloadGrantsTable;
  download_log: DownloadLogTable;
  licenses: LicensesTable;
  license_activations: LicenseActivationsTable;
  license_signing_keys: LicenseSigningKeysTable;
  product_groups: ProductGroupsTable;
  group_products: GroupProductsTable;
  listings: ListingsTable;
  categories: CategoriesTable;
  category_listings: CategoryListingsTable;
  customers: CustomersTable;
  customer_ips: CustomerIpsTable;
  balance_entries: BalanceEntriesTable;
  customer_sign_in_codes: CustomerSignInCodesTable;
  customer_sessions: CustomerSessionsTable;
  coupons: CouponsTable;
  blacklist: BlacklistTable;
  invoices: InvoicesTable;
  invoice_terms: InvoiceTermsTable;
  invoice_parts: InvoicePartsTable;
  invoice_replacements: InvoiceReplacementsTable;
  invoice_refunds: InvoiceRefundsTable;
  payment_events: PaymentEventsTable;
  mail_outbox: MailOutboxTable;
  events: EventsTable;
  faqs: FaqsTable;
  announcements: AnnouncementsTable;
  feedbacks: FeedbacksTable;
  feedback_appeals: FeedbackAppealsTable;
  tickets: TicketsTable;
  ticket_messages: TicketMessagesTable;
  visits: VisitsTable;
  shop_totals: ShopTotalsTable;
  feedback_products: FeedbackProductsTable;
  rollup_state: RollupStateTable;
  rollup_totals: RollupTotalsTable;
  rollup_products: RollupProductsTable;
  rollup_hours: RollupHoursTable;
  rollup_gateways: RollupGatewaysTable;
  rollup_invoice_counts: RollupInvoiceCountsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  storage_probes: StorageProbesTable;
}

/** One row that `/ready` rewrites while the database's storage fails (storage-health.ts); it belongs to no shop. */
export interface StorageProbesTable {
  id: number;
  written_at: number;
}
