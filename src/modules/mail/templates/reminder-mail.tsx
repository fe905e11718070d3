import type { CheckoutMailInput } from './checkout-mail.js';
import { ActionLink, AmountLine, Heading, MailLayout, Paragraph, Section } from './layout.js';
import { oneLine, type RenderedMail, renderHtml, shopTime, textOf } from './render.js';

/** What the checkout mail showed, but the discount line: the reminder lists the items and the total. */
export type ReminderMailInput = Omit<CheckoutMailInput, 'discount'>;

/** The one reminder of an order still unpaid as its expiry nears: by when, what, and the link back to pay. */
export function reminderMail(input: ReminderMailInput): RenderedMail {
  const shopName = oneLine(input.shopName);
  const instructions = oneLine(input.instructions);
  const deadline = `It is held for you until ${shopTime(input.expiresAt, input.utcOffsetMinutes)}; unpaid by then, it is cancelled.`;
  const subject = `Your order ${input.invoiceId} from ${shopName} is still waiting for payment`;
  const items = input.items.map((item) => ({ label: `${oneLine(item.title)} × ${item.quantity}`, amount: item.total }));
  const ignore = 'Changed your mind? Nothing to do: the order lapses by itself, and this is the only reminder.';
  const text = [
    `Your order ${input.invoiceId} from ${shopName} has not been paid yet.`,
    deadline,
    '',
    'How to pay:',
    instructions,
    '',
    'Pay or check your order here:',
    input.invoiceUrl,
    '',
    'Your order:',
    ...items.map((i) => `${i.label}: ${i.amount}`),
    `Total: ${input.total}`,
    '',
    ignore,
  ];
  const html = renderHtml(
    <MailLayout shopName={shopName} title={subject}>
      <Heading>Your order is still waiting for payment</Heading>
      <Paragraph>
        Your order <strong>{input.invoiceId}</strong> has not been paid yet. {deadline}
      </Paragraph>
      <ActionLink href={input.invoiceUrl} label="Complete your payment" />
      <Section title="How to pay">
        <Paragraph>{instructions}</Paragraph>
      </Section>
      <Section title="Your order">
        {items.map((i) => (
          <AmountLine label={i.label} amount={i.amount} />
        ))}
        <AmountLine label="Total" amount={input.total} strong />
      </Section>
      <Paragraph>{ignore}</Paragraph>
    </MailLayout>,
  );
  return { subject, text: textOf(text), html };
}
