import { type ComponentType, lazy } from 'react';
import { strings } from '../strings';

/**
 * Every screen of the admin, under `/admin/{shopId}`. Each is its own chunk, loaded when first
 * visited, so the first screen does not wait for the rest.
 */
export interface Screen {
  path: string;
  component: ComponentType;
}

const screen = (path: string, load: () => Promise<{ default: ComponentType }>): Screen => ({
  path,
  component: lazy(load),
});

export const screens: Screen[] = [
  screen('/:shopId', () => import('../screens/dashboard/DashboardScreen')),
  screen('/:shopId/products', () => import('../screens/products/ProductsScreen')),
  screen('/:shopId/products/new', () => import('../screens/products/ProductEditScreen')),
  screen('/:shopId/products/:productId', () => import('../screens/products/ProductEditScreen')),
  screen('/:shopId/files', () => import('../screens/files/FilesScreen')),
  screen('/:shopId/licenses', () => import('../screens/licenses/LicensesScreen')),
  screen('/:shopId/licenses/:licenseId', () => import('../screens/licenses/LicenseScreen')),
  screen('/:shopId/groups', () => import('../screens/products/GroupsScreen')),
  screen('/:shopId/listings', () => import('../screens/products/ListingsScreen')),
  screen('/:shopId/categories', () => import('../screens/products/CategoriesScreen')),
  screen('/:shopId/orders', () => import('../screens/orders/OrdersScreen')),
  screen('/:shopId/orders/:invoiceId', () => import('../screens/orders/order/OrderScreen')),
  screen('/:shopId/disputes', () => import('../screens/disputes/DisputesScreen')),
  screen('/:shopId/disputes/:disputeId', () => import('../screens/disputes/DisputeScreen')),
  screen('/:shopId/customers', () => import('../screens/customers/CustomersScreen')),
  screen('/:shopId/customers/:customerId', () => import('../screens/customers/CustomerScreen')),
  screen('/:shopId/coupons', () => import('../screens/marketing/CouponsScreen')),
  screen('/:shopId/blacklist', () => import('../screens/marketing/BlacklistScreen')),
  screen('/:shopId/affiliates', () => import('../screens/marketing/AffiliatesScreen')),
  screen('/:shopId/feedbacks', () => import('../screens/support/FeedbacksScreen')),
  screen('/:shopId/tickets', () => import('../screens/support/TicketsScreen')),
  screen('/:shopId/tickets/:ticketId', () => import('../screens/support/TicketScreen')),
  screen('/:shopId/mail', () => import('../screens/support/MailScreen')),
  screen('/:shopId/faqs', () => import('../screens/content/FaqsScreen')),
  screen('/:shopId/announcements', () => import('../screens/content/AnnouncementsScreen')),
  screen('/:shopId/settings', () => import('../screens/settings/GeneralSettingsScreen')),
  screen('/:shopId/settings/payments', () => import('../screens/settings/PaymentsScreen')),
  screen('/:shopId/settings/protection', () => import('../screens/settings/ProtectionScreen')),
  screen('/:shopId/settings/design', () => import('../screens/settings/DesignScreen')),
  screen('/:shopId/settings/webhooks', () => import('../screens/settings/WebhooksScreen')),
  screen('/:shopId/settings/api-keys', () => import('../screens/settings/ApiKeysScreen')),
];

/** The navigation, in the order an owner's day goes. */
export const navigation: { section: string; items: { label: string; path: string }[] }[] = [
  { section: '', items: [{ label: strings.common.dashboard, path: '' }] },
  {
    section: strings.nav.sell,
    items: [
      { label: strings.common.orders, path: '/orders' },
      { label: strings.common.disputes, path: '/disputes' },
      { label: strings.common.products, path: '/products' },
      { label: strings.common.files, path: '/files' },
      { label: strings.common.licenses, path: '/licenses' },
      { label: strings.common.groups, path: '/groups' },
      { label: strings.common.categories, path: '/categories' },
      { label: strings.common.storefrontOrder, path: '/listings' },
      { label: strings.common.customers, path: '/customers' },
    ],
  },
  {
    section: strings.nav.grow,
    items: [
      { label: strings.common.coupons, path: '/coupons' },
      { label: strings.common.affiliates, path: '/affiliates' },
      { label: strings.common.blacklist, path: '/blacklist' },
    ],
  },
  {
    section: strings.nav.support,
    items: [
      { label: strings.common.tickets, path: '/tickets' },
      { label: strings.common.mail, path: '/mail' },
      { label: strings.common.feedbacks, path: '/feedbacks' },
      { label: strings.common.faqs, path: '/faqs' },
      { label: strings.common.announcements, path: '/announcements' },
    ],
  },
  {
    section: strings.nav.settings,
    items: [
      { label: strings.nav.general, path: '/settings' },
      { label: strings.nav.payments, path: '/settings/payments' },
      { label: strings.common.protection, path: '/settings/protection' },
      { label: strings.common.design, path: '/settings/design' },
      { label: strings.common.webhooks, path: '/settings/webhooks' },
      { label: strings.common.apiKeys, path: '/settings/api-keys' },
    ],
  },
];
