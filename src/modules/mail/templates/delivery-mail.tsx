import { type DeliveredPart, Goods, goodsLines } from './goods.js';
import { ActionLink, AmountLine, Heading, MailLayout, Paragraph, Quote, Section } from './layout.js';
import { normaliseNewlines, oneLine, type RenderedMail, renderHtml, textOf } from './render.js';

export interface DeliveryMailInput {
  shopName: string;
  invoiceId: string;
  /** The invoice's storefront page, absolute. */
  invoiceUrl: string;
  /** The formatted total, e.g. "19.98 USD". */
  total: string;
  parts: DeliveredPart[];
  /** The seller's note to the customer, shown last. */
  note?: string | null;
}

const PAGE_LABEL = 'Your order page keeps your goods; you can leave feedback or open a support ticket there:';

/**
 * The delivery mail of a completed invoice (and of the owner's resend): the goods, one item per
 * line, then the total, the invoice link and the seller's note.
 */
export function deliveryMail(input: DeliveryMailInput): RenderedMail {
  const shopName = oneLine(input.shopName);
  const note = input.note?.trim() ? normaliseNewlines(input.note.trim()) : undefined;
  const subject = `Your order ${input.invoiceId} from ${shopName}`;
  const text = [
    `Thank you for your order from ${shopName}.`,
    '',
    `Order: ${input.invoiceId}`,
    '',
    ...goodsLines(input.parts),
    `Total: ${input.total}`,
    '',
    PAGE_LABEL,
    input.invoiceUrl,
    ...(note ? ['', 'A note from the seller:', note] : []),
  ];
  const html = renderHtml(
    <MailLayout shopName={shopName} title={subject}>
      <Heading>Thank you for your order</Heading>
      <Paragraph>
        Order <strong>{input.invoiceId}</strong> is paid. Here is what you bought:
      </Paragraph>
      <Section title="Your goods">
        <Goods parts={input.parts} />
        <AmountLine label="Total" amount={input.total} strong />
      </Section>
      <Paragraph>{PAGE_LABEL}</Paragraph>
      <ActionLink href={input.invoiceUrl} label="View your order" />
      {note ? (
        <Section title="A note from the seller">
          <Quote>{note}</Quote>
        </Section>
      ) : null}
    </MailLayout>,
  );
  return { subject, text: textOf(text), html };
}
