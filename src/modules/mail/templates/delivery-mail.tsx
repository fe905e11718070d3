import type { Lang } from '../../../i18n/lang.js';
import { type DeliveredPart, Goods, goodsLines } from './goods.js';
import { ActionLink, AmountLine, Heading, MailLayout, Paragraph, Quote, Section } from './layout.js';
import { normaliseNewlines, oneLine, type RenderedMail, renderHtml, textOf } from './render.js';

export interface DeliveryMailInput {
  /** The buyer's language: the words and the amounts. */
  lang: Lang;
  shopName: string;
  invoiceId: string;
  /** The invoice's storefront page, absolute. */
  invoiceUrl: string;
  /** The total formatted in the buyer's language, e.g. "$19.98". */
  total: string;
  parts: DeliveredPart[];
  /** The seller's note to the customer, shown last. */
  note?: string | null;
}

/**
 * The delivery mail of a completed invoice (and of the owner's resend): the goods, one item per
 * line, then the total, the invoice link and the seller's note.
 */
export function deliveryMail(input: DeliveryMailInput): RenderedMail {
  const { lang } = input;
  const { t } = lang;
  const shopName = oneLine(input.shopName);
  const id = input.invoiceId;
  const note = input.note?.trim() ? normaliseNewlines(input.note.trim()) : undefined;
  const subject = t('mail.delivery.subject', { id, shop: shopName });
  const pageLabel = t('mail.delivery.page');
  const text = [
    t('mail.thanks', { shop: shopName }),
    '',
    t('mail.order', { id }),
    '',
    ...goodsLines(lang, input.parts),
    `${t('mail.total')}: ${input.total}`,
    '',
    pageLabel,
    input.invoiceUrl,
    ...(note ? ['', `${t('mail.sellerNote')}:`, note] : []),
  ];
  const html = renderHtml(
    <MailLayout lang={lang} shopName={shopName} title={subject}>
      <Heading>{t('mail.delivery.heading')}</Heading>
      <Paragraph>{lang.rich('mail.delivery.intro', { id, b: (chunks) => <strong>{chunks}</strong> })}</Paragraph>
      <Section title={t('mail.delivery.goods')}>
        <Goods lang={lang} parts={input.parts} />
        <AmountLine label={t('mail.total')} amount={input.total} strong />
      </Section>
      <Paragraph>{pageLabel}</Paragraph>
      <ActionLink lang={lang} href={input.invoiceUrl} label={t('mail.viewOrder')} />
      {note ? (
        <Section title={t('mail.sellerNote')}>
          <Quote>{note}</Quote>
        </Section>
      ) : null}
    </MailLayout>,
  );
  return { subject, text: textOf(text), html };
}
