/**
 * Each payment method's one name, as buyers and owners read it in English: the admin here, the
 * storefront and the mails through their catalogue (src/i18n/messages, `gateway.<id>`, tested to
 * say the same) (issue 37: one method went by "cardconnect", "CardConnect" and "Card (Stripe)"). The API
 * keeps its ids (`cardconnect`); the provider behind a method (Stripe, Coinbase Commerce) is said
 * where it matters (the payment settings), not in the name. Nothing here may need Node: the
 * admin's bundle imports it.
 */
export const GATEWAY_NAMES = {
  cardconnect: 'Card',
  cryptocommerce: 'Crypto',
  balance: 'Store balance',
  tipjar: 'Tip jar',
  walletemail: 'Wallet (e-mail)',
  mobilecash: 'Mobile cash',
  'wallet-ff': 'Wallet FF',
  'virtual-payments': 'Virtual payments',
  cardreader: 'Card reader',
} as const satisfies Record<string, string>;

/** A gateway id's name; an id this version does not know is shown as it is. */
export function gatewayName(gateway: string): string {
  return (GATEWAY_NAMES as Record<string, string>)[gateway] ?? gateway;
}
