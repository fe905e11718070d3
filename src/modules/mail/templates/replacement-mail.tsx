import { type DeliveredPart, Goods, goodsLines } from './goods.js';
import { ActionLink, Heading, MailLayout, Paragraph, Quote, Section } from './layout.js';
import { normaliseNewlines, oneLine, type RenderedMail, renderHtml, textOf } from './render.js';

export interface ReplacementMailInput {
  shopName: string;
  /** The order the replacement is for. */
  invoiceId: string;
  /** The invoice's storefront page, absolute. */
  invoiceUrl: string;
  /** What was delivered again. */
  parts: DeliveredPart[];
  note?: string | null;
}

/**
 * Items of a completed order delivered again at no charge. It says so first, lists only the
 * replacement goods and carries no total: nothing was bought, and a total would read as a charge.
 */
export function replacementMail(input: ReplacementMailInput): RenderedMail {
  const shopName = oneLine(input.shopName);
  const note = input.note?.trim() ? normaliseNewlines(input.note.trim()) : undefined;
  const subject = `Replacement for your order ${input.invoiceId} from ${shopName}`;
  const intro = `${shopName} sent you replacement items for your order ${input.invoiceId}.`;
  const free = 'This is not a new order and you are not charged for it.';
  const text = [
    intro,
    free,
    '',
    'Replacement items:',
    '',
    ...goodsLines(input.parts),
    'Your order page, with everything delivered for this order:',
    input.invoiceUrl,
    ...(note ? ['', 'A note from the seller:', note] : []),
  ];
  const html = renderHtml(
    <MailLayout shopName={shopName} title={subject}>
      <Heading>Replacement for order {input.invoiceId}</Heading>
      <Paragraph>{intro}</Paragraph>
      <Paragraph>{free}</Paragraph>
      <Section title="Replacement items">
        <Goods parts={input.parts} />
      </Section>
      <Paragraph>Your order page, with everything delivered for this order:</Paragraph>
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
