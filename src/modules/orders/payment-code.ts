import { randomInt } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

/**
 * The short payment reference of an invoice (issue 36, M4): what a buyer quotes in the note of a
 * manual payment (tip jar, wallet e-mail, cashtag), where the invoice id must never go, since the
 * id alone opens the invoice and its keys. It identifies the order to its owner and to nobody
 * else: it opens nothing.
 *
 * 8 characters of an alphabet without look-alikes (no 0/O, 1/I/L, U), so a buyer can retype it
 * from a phone: 30^8 ≈ 6.6·10^11 codes. Stored without a separator, shown `K7Q2-M9XD`; searched
 * with or without the dash, in any case.
 */
export const PAYMENT_CODE_ALPHABET = '23456789ABCDEFGHJKMNPQRSTVWXYZ';
export const PAYMENT_CODE_LENGTH = 8;

/** A fresh random code, stored form (`K7Q2M9XD`). */
export function newPaymentCode(): string {
  let code = '';
  for (let i = 0; i < PAYMENT_CODE_LENGTH; i++) code += PAYMENT_CODE_ALPHABET[randomInt(PAYMENT_CODE_ALPHABET.length)];
  return code;
}

/** The code as buyers see and quote it: `K7Q2-M9XD`. */
export function formatPaymentCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`;
}

/**
 * The stored form of what someone typed (`k7q2-m9xd`, `K7Q2 M9XD`), or undefined when it cannot
 * be a code: search uses it to find the order by its reference.
 */
export function parsePaymentCode(text: string): string | undefined {
  const code = text.toUpperCase().replace(/[\s-]/g, '');
  return code.length === PAYMENT_CODE_LENGTH && [...code].every((c) => PAYMENT_CODE_ALPHABET.includes(c))
    ? code
    : undefined;
}

/**
 * A code no other invoice of the shop has, for the checkout's transaction to insert. A collision
 * is one in ~6·10^11 per existing order; the unique index (shop_id, payment_code) is the backstop.
 */
export async function unusedPaymentCode(db: Kysely<Database>, shopId: number): Promise<string> {
  for (;;) {
    const code = newPaymentCode();
    const taken = await db
      .selectFrom('invoices')
      .select('id')
      .where('shop_id', '=', shopId)
      .where('payment_code', '=', code)
      .executeTakeFirst();
    if (!taken) return code;
  }
}
