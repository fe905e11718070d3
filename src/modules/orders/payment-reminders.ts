import type { Context } from '../../domain/context.js';
import { writeTransaction } from '../../domain/dispatcher.js';
import { storefrontPaths } from '../../http/storefront-url.js';
import { paymentText } from '../../i18n/instructions.js';
import { buyerLang } from '../../i18n/lang.js';
import { enqueueMail, reminderMail, shopLink } from '../mail/index.js';
import { buyerMoney, partTitle, readPlacedOrder } from './invoice-mail.js';
import * as repo from './repository.js';
import { buyerReference, paymentInstructions } from './views.js';

/**
 * One reminder mail before an unpaid order expires, with the link back to pay. It is due when a
 * third of the order's hold is left (20 minutes before the end of the default hour); an order held
 * less than half an hour gets none (its buyer is most likely still on the page), nor does one paid
 * from the store balance, which completes at once. The reminder counts in the shop's mail budgets
 * like the checkout mail it follows (the client that placed the order caused it). It goes out once:
 * whoever sends it clears `remind_at` in the same transaction that queues the mail.
 */
const MIN_HOLD_MS = 30 * 60_000;

/** When the reminder of an order placed at `createdAt` and held until `expiresAt` is due, or null when it gets none. */
export function reminderDueAt(gateway: string, createdAt: number, expiresAt: number): number | null {
  const hold = expiresAt - createdAt;
  if (gateway === 'balance' || hold < MIN_HOLD_MS) return null;
  return expiresAt - Math.round(hold / 3);
}

/** How many due reminders `sendDueReminders` reads at a time. */
const BATCH = 100;

/**
 * Queues the reminder of every pending order of every shop whose reminder is due and which has
 * not expired yet; answers how many went out. Run by the invoice expiry job, after it expired
 * the overdue orders; several instances may run it at once, each order is reminded once.
 */
export async function sendDueReminders(ctx: Context): Promise<number> {
  const now = ctx.clock.now();
  let sent = 0;
  for (;;) {
    const due = await repo.dueReminders(ctx.db, now, BATCH);
    for (const { shop_id: shopId, id } of due) if (await remind(ctx, shopId, id, now)) sent++;
    if (due.length < BATCH) return sent;
  }
}

async function remind(ctx: Context, shopId: number, invoiceId: string, now: number): Promise<boolean> {
  return writeTransaction(ctx, async (tx) => {
    if (!(await repo.claimReminder(tx.db, shopId, invoiceId, now))) return false;
    const { invoice, shop, parts, fields } = await readPlacedOrder(tx.db, shopId, invoiceId);
    const instructions = paymentInstructions(invoice, fields);
    if (!instructions) return false;
    const lang = buyerLang(invoice.locale, shop);
    const money = buyerMoney(lang, invoice.currency);
    await enqueueMail(
      tx.db,
      shopId,
      {
        to: invoice.customer_email,
        ...reminderMail({
          lang,
          shopName: shop.name,
          invoiceId: buyerReference(invoice),
          invoiceUrl: shopLink(tx.config, shop, storefrontPaths.invoice(invoice.id)),
          instructions: paymentText(lang, instructions),
          items: parts.map((p) => ({ title: partTitle(p), quantity: p.quantity, total: money(p.total) })),
          total: money(invoice.total),
          expiresAt: invoice.expires_at,
        }),
      },
      now,
      { client: invoice.client_net },
    );
    return true;
  });
}
