import type { CheckoutMailInput } from './checkout-mail.js';
import { ActionLink, AmountLine, Heading, MailLayout, Paragraph, Section } from './layout.js';
import { oneLine, plainText, type RenderedMail, renderHtml, textOf } from './render.js';

/** What the checkout mail showed, but the discount line: the reminder lists the items and the total. */
export type ReminderMailInput = Omit<CheckoutMailInput, 'discount'>;

/** The one reminder of an order still unpaid as its expiry nears: by when, what, and the link back to pay. */
export function reminderMail(input: ReminderMailInput): RenderedMail {
  const { lang } = input;
  const { t } = lang;
  const shopName = oneLine(input.shopName);
  const id = input.invoiceId;
  const instructions = oneLine(input.instructions);
  const deadline = t('mail.reminder.deadline', { when: lang.dayTime(input.expiresAt) });
  const subject = t('mail.reminder.subject', { id, shop: shopName });
  const items = input.items.map((item) => ({ label: `${oneLine(item.title)} × ${item.quantity}`, amount: item.total }));
  const ignore = t('mail.reminder.ignore');
  const text = [
    plainText(lang.rich<string>('mail.reminder.unpaid', { id, shop: shopName, b: (chunks) => chunks.join('') })),
    deadline,
    '',
    `${t('mail.howToPay')}:`,
    instructions,
    '',
    t('mail.reminder.payHere'),
    input.invoiceUrl,
    '',
    `${t('mail.yourOrder')}:`,
    ...items.map((i) => `${i.label}: ${i.amount}`),
    `${t('mail.total')}: ${input.total}`,
    '',
    ignore,
  ];
  const html = renderHtml(
    <MailLayout lang={lang} shopName={shopName} title={subject}>
      <Heading>{t('mail.reminder.heading')}</Heading>
      <Paragraph>
        {lang.rich('mail.reminder.unpaid', { id, shop: shopName, b: (chunks) => <strong>{chunks}</strong> })} {deadline}
      </Paragraph>
      <ActionLink lang={lang} href={input.invoiceUrl} label={t('mail.reminder.pay')} />
      <Section title={t('mail.howToPay')}>
        <Paragraph>{instructions}</Paragraph>
      </Section>
      <Section title={t('mail.yourOrder')}>
        {items.map((i) => (
          <AmountLine label={i.label} amount={i.amount} />
        ))}
        <AmountLine label={t('mail.total')} amount={input.total} strong />
      </Section>
      <Paragraph>{ignore}</Paragraph>
    </MailLayout>,
  );
  return { subject, text: textOf(text), html };
}
