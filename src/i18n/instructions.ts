import { gatewayLabel, type Lang } from './lang.js';

/** A pending order's payment as the public invoice view has it (orders/views.ts `paymentInstructions`). */
export interface PaymentView {
  gateway: string;
  /** Major units of `currency`. */
  amount: number;
  currency: string;
  reference: string;
  /** The API's instructions, in English. */
  instructions: string;
  handle?: string | undefined;
  email?: string | undefined;
  cashtag?: string | undefined;
}

/**
 * How to pay, in the buyer's language, with the amount written the way the page writes every
 * amount: the same sentence the gateway gives the API (`payment.instructions`), from the
 * catalogue. A method whose public field is missing (the shop turned it off since) keeps the
 * API's words, which say so.
 */
export function paymentText(lang: Lang, payment: PaymentView): string {
  const amount = lang.money(payment.amount, payment.currency);
  const { reference } = payment;
  switch (payment.gateway) {
    case 'tipjar':
      return payment.handle
        ? lang.t('pay.tipjar', { amount, handle: payment.handle, reference })
        : payment.instructions;
    case 'walletemail':
    case 'wallet-ff':
      return payment.email
        ? lang.t(payment.gateway === 'walletemail' ? 'pay.walletemail' : 'pay.wallet-ff', {
            amount,
            email: payment.email,
            reference,
          })
        : payment.instructions;
    case 'mobilecash':
      return payment.cashtag
        ? lang.t('pay.mobilecash', { amount, cashtag: payment.cashtag, reference })
        : payment.instructions;
    case 'balance':
      return lang.t('pay.balance');
    case 'cryptocommerce':
      return lang.t('pay.cryptocommerce', { amount });
    case 'cardconnect':
      return lang.t('pay.cardconnect', { amount });
    default:
      return payment.instructions.startsWith('Pay ')
        ? lang.t('pay.other', { amount, method: gatewayLabel(lang, payment.gateway), reference })
        : payment.instructions;
  }
}
