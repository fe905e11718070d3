import type { GatewayAdapter } from './adapter.js';

/**
 * The gateways where the buyer sends the money outside shopd and the owner confirms it (`process`
 * with the payment reference): their adapters only tell the buyer exactly how to pay, with the
 * owner's handle, e-mail or cashtag, the amount and the order's payment
 * reference to quote (never the invoice id, which opens the invoice: orders/payment-code.ts). And the
 * store balance, which the checkout debits at once.
 */

export const tipjarAdapter: GatewayAdapter = {
  label: 'Tip jar',
  instructions: ({ amount, reference, fields }) =>
    `Send ${amount} to the tip jar "${fields.handle}" with the note ${reference}.`,
};

export const walletEmailAdapter: GatewayAdapter = {
  label: 'Wallet (e-mail)',
  instructions: ({ amount, reference, fields }) => `Send ${amount} to ${fields.email} with the reference ${reference}.`,
};

export const mobileCashAdapter: GatewayAdapter = {
  label: 'Mobile cash',
  instructions: ({ amount, reference, fields }) => `Send ${amount} to ${fields.cashtag} with the note ${reference}.`,
};

export const walletFfAdapter: GatewayAdapter = {
  label: 'Wallet FF',
  instructions: ({ amount, reference, fields }) => `Send ${amount} to ${fields.email} with the reference ${reference}.`,
};

export const balanceAdapter: GatewayAdapter = {
  label: 'Store balance',
  instructions: () => 'Paid from your balance in this shop.',
};
