import { ActionLink, AmountLine, Heading, MailLayout, Paragraph, Section } from './layout.js';
import { oneLine, type RenderedMail, renderHtml, shopTime, textOf } from './render.js';

export interface CheckoutMailInput {
  shopName: string;
  invoiceId: string;
  /** The invoice's storefront page, absolute. */
  invoiceUrl: string;
  /** How to pay, as the invoice page shows it (orders/views.ts `paymentInstructions`). */
  instructions: string;
  /** Each part with its formatted line total, e.g. "9.99 USD". */
  items: { title: string; quantity: number; total: string }[];
  /** The coupon's formatted discount, when one applied. */
  discount?: { code: string; amount: string } | null;
  total: string;
  /** When the unpaid invoice expires (epoch ms), shown on the shop's clock. */
  expiresAt: number;
  utcOffsetMinutes: number;
}

/** The mail of a new pending invoice: how to pay, by when, what was ordered, and the invoice link. */
export function checkoutMail(input: CheckoutMailInput): RenderedMail {
  const shopName = oneLine(input.shopName);
  const instructions = oneLine(input.instructions);
  const deadline = `Please pay by ${shopTime(input.expiresAt, input.utcOffsetMinutes)}. An order unpaid by then is cancelled.`;
  const pageLabel = 'Your order page shows whether your payment arrived, and your goods once it has:';
  const subject = `Your order ${input.invoiceId} from ${shopName}: how to pay`;
  const items = input.items.map((item) => ({ label: `${oneLine(item.title)} × ${item.quantity}`, amount: item.total }));
  const discount = input.discount
    ? { label: `Discount (${oneLine(input.discount.code)})`, amount: `-${input.discount.amount}` }
    : null;
  const text = [
    `Thank you for your order from ${shopName}.`,
    '',
    `Order: ${input.invoiceId}`,
    '',
    'How to pay:',
    instructions,
    '',
    deadline,
    '',
    pageLabel,
    input.invoiceUrl,
    '',
    'Your order:',
    ...items.map((i) => `${i.label}: ${i.amount}`),
    ...(discount ? [`${discount.label}: ${discount.amount}`] : []),
    `Total: ${input.total}`,
  ];
  const html = renderHtml(
    <MailLayout shopName={shopName} title={subject}>
      <Heading>Your order is waiting for payment</Heading>
      <Paragraph>
        Thank you for your order <strong>{input.invoiceId}</strong>.
      </Paragraph>
      <Section title="How to pay">
        <Paragraph>{instructions}</Paragraph>
        <Paragraph>{deadline}</Paragraph>
      </Section>
      <Paragraph>{pageLabel}</Paragraph>
      <ActionLink href={input.invoiceUrl} label="View your order" />
      <Section title="Your order">
        {items.map((i) => (
          <AmountLine label={i.label} amount={i.amount} />
        ))}
        {discount ? <AmountLine label={discount.label} amount={discount.amount} /> : null}
        <AmountLine label="Total" amount={input.total} strong />
      </Section>
    </MailLayout>,
  );
  return { subject, text: textOf(text), html };
}
