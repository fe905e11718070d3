import type { Lang } from '../../../i18n/lang.js';
import { ActionLink, AmountLine, Heading, MailLayout, Paragraph, Section } from './layout.js';
import { oneLine, type RenderedMail, renderHtml, textOf } from './render.js';

export interface CheckoutMailInput {
  /** The buyer's language, on the shop's clock: the words, the amounts and the deadline. */
  lang: Lang;
  shopName: string;
  invoiceId: string;
  /** The invoice's storefront page, absolute. */
  invoiceUrl: string;
  /** How to pay, as the invoice page shows it (orders/views.ts `paymentInstructions`). */
  instructions: string;
  /** Each part with its line total formatted in the buyer's language, e.g. "$9.99". */
  items: { title: string; quantity: number; total: string }[];
  /** The coupon's formatted discount, when one applied. */
  discount?: { code: string; amount: string } | null;
  total: string;
  /** When the unpaid invoice expires (epoch ms), shown on the shop's clock. */
  expiresAt: number;
}

/** The mail of a new pending invoice: how to pay, by when, what was ordered, and the invoice link. */
export function checkoutMail(input: CheckoutMailInput): RenderedMail {
  const { lang } = input;
  const { t } = lang;
  const shopName = oneLine(input.shopName);
  const id = input.invoiceId;
  const instructions = oneLine(input.instructions);
  const deadline = t('mail.checkout.deadline', { when: lang.dayTime(input.expiresAt) });
  const pageLabel = t('mail.checkout.page');
  const subject = t('mail.checkout.subject', { id, shop: shopName });
  const items = input.items.map((item) => ({ label: `${oneLine(item.title)} × ${item.quantity}`, amount: item.total }));
  const discount = input.discount
    ? {
        label: t('mail.checkout.discount', { code: oneLine(input.discount.code) }),
        amount: `-${input.discount.amount}`,
      }
    : null;
  const text = [
    t('mail.thanks', { shop: shopName }),
    '',
    t('mail.order', { id }),
    '',
    `${t('mail.howToPay')}:`,
    instructions,
    '',
    deadline,
    '',
    pageLabel,
    input.invoiceUrl,
    '',
    `${t('mail.yourOrder')}:`,
    ...items.map((i) => `${i.label}: ${i.amount}`),
    ...(discount ? [`${discount.label}: ${discount.amount}`] : []),
    `${t('mail.total')}: ${input.total}`,
  ];
  const html = renderHtml(
    <MailLayout lang={lang} shopName={shopName} title={subject}>
      <Heading>{t('mail.checkout.heading')}</Heading>
      <Paragraph>{lang.rich('mail.checkout.intro', { id, b: (chunks) => <strong>{chunks}</strong> })}</Paragraph>
      <Section title={t('mail.howToPay')}>
        <Paragraph>{instructions}</Paragraph>
        <Paragraph>{deadline}</Paragraph>
      </Section>
      <Paragraph>{pageLabel}</Paragraph>
      <ActionLink lang={lang} href={input.invoiceUrl} label={t('mail.viewOrder')} />
      <Section title={t('mail.yourOrder')}>
        {items.map((i) => (
          <AmountLine label={i.label} amount={i.amount} />
        ))}
        {discount ? <AmountLine label={discount.label} amount={discount.amount} /> : null}
        <AmountLine label={t('mail.total')} amount={input.total} strong />
      </Section>
    </MailLayout>,
  );
  return { subject, text: textOf(text), html };
}
