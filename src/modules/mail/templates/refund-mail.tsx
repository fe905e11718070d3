import type { Lang } from '../../../i18n/lang.js';
import { ActionLink, AmountLine, Heading, MailLayout, Paragraph, Quote, Section } from './layout.js';
import { normaliseNewlines, oneLine, type RenderedMail, renderHtml, textOf } from './render.js';

/** How a refund comes back to the buyer, as the refund's method says. */
export type RefundWay = 'provider' | 'balance' | 'recorded';

export interface RefundMailInput {
  /** The buyer's language: the words and the amounts. */
  lang: Lang;
  shopName: string;
  invoiceId: string;
  /** The invoice's storefront page, absolute. */
  invoiceUrl: string;
  /** This refund and the order's refunds so far, formatted in the buyer's language ("$5.00"). */
  amount: string;
  refundedSoFar: string;
  total: string;
  /** How the money comes back. */
  how: RefundWay;
  reason?: string | null;
}

/** A refund of an order: how much, how it comes back, what was refunded so far; the goods stay theirs. */
export function refundMail(input: RefundMailInput): RenderedMail {
  const { lang } = input;
  const { t } = lang;
  const shopName = oneLine(input.shopName);
  const id = input.invoiceId;
  const reason = input.reason?.trim() ? normaliseNewlines(input.reason.trim()) : undefined;
  const subject = t('mail.refund.subject', { id, shop: shopName });
  const intro = t('mail.refund.intro', { shop: shopName, amount: input.amount, id });
  const how = t(`mail.refund.${input.how}`);
  const text = [
    intro,
    how,
    '',
    t('mail.refund.soFar', { refunded: input.refundedSoFar, total: input.total }),
    ...(reason ? ['', `${t('mail.refund.reason')}:`, reason] : []),
    '',
    t('mail.refund.page'),
    input.invoiceUrl,
  ];
  const html = renderHtml(
    <MailLayout lang={lang} shopName={shopName} title={subject}>
      <Heading>{t('mail.refund.heading', { id })}</Heading>
      <Paragraph>{intro}</Paragraph>
      <Paragraph>{how}</Paragraph>
      <Section title={t('mail.refund.refunds')}>
        <AmountLine label={t('mail.refund.this')} amount={input.amount} />
        <AmountLine label={t('mail.refund.refunded')} amount={input.refundedSoFar} />
        <AmountLine label={t('mail.refund.orderTotal')} amount={input.total} strong />
      </Section>
      {reason ? (
        <Section title={t('mail.refund.reason')}>
          <Quote>{reason}</Quote>
        </Section>
      ) : null}
      <ActionLink lang={lang} href={input.invoiceUrl} label={t('mail.viewOrder')} />
    </MailLayout>,
  );
  return { subject, text: textOf(text), html };
}
