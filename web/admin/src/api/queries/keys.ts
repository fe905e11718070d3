/**
 * Every TanStack Query key of the admin, in one place. A shop's keys start `['shop', shopId,
 * <area>]`, so one call invalidates an area (`queryKeys.coupons.all(shopId)`) or a whole shop;
 * the session's key is apart, because signing in or out starts the cache over (app/session.ts)
 * and a write leaves it alone (main.tsx). A list's key is completed by the query it was read with
 * (ui/list.tsx), a picker's by its search.
 */

const shop = (shopId: number) => ['shop', shopId] as const;

/** The keys of an area that is a list: everything of it (`all`), and its list pages. */
function listArea<const Area extends string>(area: Area) {
  const all = (shopId: number) => [...shop(shopId), area] as const;
  return { all, list: (shopId: number) => [...all(shopId), 'list'] as const };
}

export const queryKeys = {
  session: ['session'] as const,
  /** The account's shops (names, currency, subdomain …: the frame shows them). */
  shops: ['shops'] as const,
  shop,

  faqs: listArea('faqs'),
  announcements: listArea('announcements'),
  coupons: listArea('coupons'),
  blacklist: listArea('blacklist'),
  categories: listArea('categories'),
  groups: listArea('groups'),

  products: {
    ...listArea('products'),
    one: (shopId: number, productId: number | null) => [...listArea('products').all(shopId), 'one', productId] as const,
    /** Every product's title, for lists that hold product ids. */
    names: (shopId: number) => [...listArea('products').all(shopId), 'names'] as const,
    /** The orders screen's product filter. */
    choices: (shopId: number) => [...listArea('products').all(shopId), 'choices'] as const,
    /** A group's product picker, by its search. */
    picker: (shopId: number) => [...listArea('products').all(shopId), 'picker'] as const,
    /** A coupon's product picker, by its search. */
    couponPicker: (shopId: number, search: string) =>
      [...listArea('products').all(shopId), 'coupon-picker', search] as const,
  },
  listings: {
    all: (shopId: number) => [...shop(shopId), 'listings'] as const,
    /** Every listing, in storefront order. */
    everyOne: (shopId: number) => [...shop(shopId), 'listings', 'all'] as const,
    /** A category's listing picker, by its search. */
    picker: (shopId: number) => [...shop(shopId), 'listings', 'picker'] as const,
  },
  invoices: {
    ...listArea('invoices'),
    ofCustomer: (shopId: number, customerId: number) =>
      [...listArea('invoices').list(shopId), 'customer', customerId] as const,
    detail: (shopId: number, invoiceId: string) => [...listArea('invoices').all(shopId), 'detail', invoiceId] as const,
  },
  customers: {
    ...listArea('customers'),
    detail: (shopId: number, customerId: number) =>
      [...listArea('customers').all(shopId), 'detail', customerId] as const,
    ips: (shopId: number, customerId: number, pageNumber: number) =>
      [...listArea('customers').all(shopId), 'ips', customerId, pageNumber] as const,
    stats: (shopId: number, range: { fromDate?: string; toDate?: string }) =>
      [...listArea('customers').all(shopId), 'stats', range] as const,
  },
  affiliates: {
    ...listArea('affiliates'),
    stats: (shopId: number, fromDate: string, toDate: string) =>
      [...listArea('affiliates').all(shopId), 'stats', fromDate, toDate] as const,
  },
  licenses: {
    ...listArea('licenses'),
    detail: (shopId: number, licenseId: number) => [...listArea('licenses').all(shopId), 'detail', licenseId] as const,
    signingKeys: (shopId: number) => [...listArea('licenses').all(shopId), 'signing-keys'] as const,
  },
  files: {
    ...listArea('files'),
    /** Every file of the shop, for a file variant's picker. */
    everyOne: (shopId: number) => [...listArea('files').all(shopId), 'every-one'] as const,
  },
  tickets: {
    ...listArea('tickets'),
    detail: (shopId: number, ticketId: number) => [...listArea('tickets').all(shopId), 'detail', ticketId] as const,
  },
  feedbacks: {
    ...listArea('feedbacks'),
    appeals: (shopId: number) => [...listArea('feedbacks').all(shopId), 'appeals'] as const,
  },
  webhooks: {
    ...listArea('webhooks'),
    deliveries: (shopId: number, webhookId: number, pageNumber: number) =>
      [...listArea('webhooks').all(shopId), webhookId, 'deliveries', pageNumber] as const,
  },
  /** The account's API keys; kept under the shop's key like every other query. */
  apiKeys: (shopId: number) => [...shop(shopId), 'api-keys'] as const,
  /** Every setting of the shop in one read (shop fields, masked payments, design). */
  settings: (shopId: number) => [...shop(shopId), 'settings'] as const,
  dashboard: {
    all: (shopId: number) => [...shop(shopId), 'dashboard'] as const,
    general: (shopId: number, range: object) => [...shop(shopId), 'dashboard', 'general', range] as const,
    advanced: (shopId: number, range: object) => [...shop(shopId), 'dashboard', 'advanced', range] as const,
    realTime: (shopId: number) => [...shop(shopId), 'dashboard', 'real-time'] as const,
  },
};

/** Whether a query is the session's: a write never marks it stale (main.tsx). */
export const isSessionKey = (key: readonly unknown[]) => key[0] === queryKeys.session[0];
