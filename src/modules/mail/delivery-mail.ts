export interface DeliveryMailInput {
  shopName: string;
  invoiceId: string;
  /** The formatted total, e.g. "19.98 USD". */
  total: string;
  parts: { title: string; quantity: number; deliverables: string[] }[];
  /** The seller's note to the customer, shown after the items. */
  note?: string | null;
}

/**
 * Subject and plain text of the delivery e-mail for a completed invoice. Deliverables are printed
 * one per line and unindented, so a customer can copy a key without stray spaces.
 */
export function deliveryMail(input: DeliveryMailInput): { subject: string; text: string } {
  const shopName = oneLine(input.shopName);
  const lines = [`Thank you for your order from ${shopName}.`, '', `Order: ${input.invoiceId}`, ''];
  for (const part of input.parts) {
    lines.push(`${oneLine(part.title)} × ${part.quantity}`);
    lines.push(...(part.deliverables.length > 0 ? part.deliverables.map(normaliseNewlines) : ['(nothing to deliver)']));
    lines.push('');
  }
  lines.push(`Total: ${input.total}`);
  const note = input.note?.trim();
  if (note) lines.push('', 'A note from the seller:', normaliseNewlines(note));
  return { subject: `Your order ${input.invoiceId} from ${shopName}`, text: `${lines.join('\n')}\n` };
}

/** Header-safe: a title or name never breaks the subject or a heading line. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function normaliseNewlines(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}
