import type { Lang } from '../../../i18n/lang.js';
import { type DeliveredPart, Goods, goodsLines } from './goods.js';
import { ActionLink, Heading, MailLayout, Paragraph, Quote, Section } from './layout.js';
import { normaliseNewlines, oneLine, type RenderedMail, renderHtml, textOf } from './render.js';

export interface ReplacementMailInput {
  /** The buyer's language. */
  lang: Lang;
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
  const { lang } = input;
  const { t } = lang;
  const shopName = oneLine(input.shopName);
  const id = input.invoiceId;
  const note = input.note?.trim() ? normaliseNewlines(input.note.trim()) : undefined;
  const subject = t('mail.replacement.subject', { id, shop: shopName });
  const intro = t('mail.replacement.intro', { shop: shopName, id });
  const free = t('mail.replacement.free');
  const page = t('mail.replacement.page');
  const text = [
    intro,
    free,
    '',
    `${t('mail.replacement.items')}:`,
    '',
    ...goodsLines(lang, input.parts),
    page,
    input.invoiceUrl,
    ...(note ? ['', `${t('mail.sellerNote')}:`, note] : []),
  ];
  const html = renderHtml(
    <MailLayout lang={lang} shopName={shopName} title={subject}>
      <Heading>{t('mail.replacement.heading', { id })}</Heading>
      <Paragraph>{intro}</Paragraph>
      <Paragraph>{free}</Paragraph>
      <Section title={t('mail.replacement.items')}>
        <Goods lang={lang} parts={input.parts} />
      </Section>
      <Paragraph>{page}</Paragraph>
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
