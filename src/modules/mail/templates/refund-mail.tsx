import { ActionLink, AmountLine, Heading, MailLayout, Paragraph, Quote, Section } from './layout.js';
import { normaliseNewlines, oneLine, type RenderedMail, renderHtml, textOf } from './render.js';

export interface RefundMailInput {
  shopName: string;
  invoiceId: string;
  /** The invoice's storefront page, absolute. */
  invoiceUrl: string;
  /** This refund and the order's refunds so far, formatted ("5.00 USD"). */
  amount: string;
  refundedSoFar: string;
  total: string;
  /** How the money comes back, in the buyer's words. */
  how: string;
  reason?: string | null;
}

/** A refund of an order: how much, how it comes back, what was refunded so far; the goods stay theirs. */
export function refundMail(input: RefundMailInput): RenderedMail {
  const shopName = oneLine(input.shopName);
  const reason = input.reason?.trim() ? normaliseNewlines(input.reason.trim()) : undefined;
  const subject = `Refund for your order ${input.invoiceId} from ${shopName}`;
  const intro = `${shopName} refunded ${input.amount} of your order ${input.invoiceId}.`;
  const how = oneLine(input.how);
  const text = [
    intro,
    how,
    '',
    `Refunded so far: ${input.refundedSoFar} of ${input.total}`,
    ...(reason ? ['', 'The reason given:', reason] : []),
    '',
    'Your order page:',
    input.invoiceUrl,
  ];
  const html = renderHtml(
    <MailLayout shopName={shopName} title={subject}>
      <Heading>Refund for order {input.invoiceId}</Heading>
      <Paragraph>{intro}</Paragraph>
      <Paragraph>{how}</Paragraph>
      <Section title="Refunds">
        <AmountLine label="This refund" amount={input.amount} />
        <AmountLine label="Refunded so far" amount={input.refundedSoFar} />
        <AmountLine label="Order total" amount={input.total} strong />
      </Section>
      {reason ? (
        <Section title="The reason given">
          <Quote>{reason}</Quote>
        </Section>
      ) : null}
      <ActionLink href={input.invoiceUrl} label="View your order" />
    </MailLayout>,
  );
  return { subject, text: textOf(text), html };
}
