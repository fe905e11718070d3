import { type ComponentType, lazy } from 'react';

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
  { section: '', items: [{ label: 'Dashboard', path: '' }] },
  {
    section: 'Sell',
    items: [
      { label: 'Orders', path: '/orders' },
      { label: 'Disputes', path: '/disputes' },
      { label: 'Products', path: '/products' },
      { label: 'Files', path: '/files' },
      { label: 'Licenses', path: '/licenses' },
      { label: 'Groups', path: '/groups' },
      { label: 'Categories', path: '/categories' },
      { label: 'Storefront order', path: '/listings' },
      { label: 'Customers', path: '/customers' },
    ],
  },
  {
    section: 'Grow',
    items: [
      { label: 'Coupons', path: '/coupons' },
      { label: 'Affiliates', path: '/affiliates' },
      { label: 'Blacklist', path: '/blacklist' },
    ],
  },
  {
    section: 'Support',
    items: [
      { label: 'Tickets', path: '/tickets' },
      { label: 'Mail', path: '/mail' },
      { label: 'Feedbacks', path: '/feedbacks' },
      { label: 'FAQs', path: '/faqs' },
      { label: 'Announcements', path: '/announcements' },
    ],
  },
  {
    section: 'Settings',
    items: [
      { label: 'General', path: '/settings' },
      { label: 'Payments', path: '/settings/payments' },
      { label: 'Protection', path: '/settings/protection' },
      { label: 'Design', path: '/settings/design' },
      { label: 'Webhooks', path: '/settings/webhooks' },
      { label: 'API keys', path: '/settings/api-keys' },
    ],
  },
];
