import type { Lang } from '../../../i18n/lang.js';
import { ActionLink, Heading, MailLayout, Paragraph, Quote, Section } from './layout.js';
import { normaliseNewlines, oneLine, type RenderedMail, renderHtml, textOf } from './render.js';

export interface TicketOpenedMailInput {
  /** The language the ticket was opened in. */
  lang: Lang;
  shopName: string;
  ticketId: number;
  title: string;
  /** The ticket's storefront page with its access key, absolute. */
  ticketUrl: string;
}

/** Sent to the buyer who opened a ticket: the link (with its access key) is their way back to it. */
export function ticketOpenedMail(input: TicketOpenedMailInput): RenderedMail {
  const { lang } = input;
  const { t } = lang;
  const shopName = oneLine(input.shopName);
  const title = oneLine(input.title);
  const id = input.ticketId;
  const keep = t('mail.ticket.keep');
  // The title is the sender's text, and this mail goes to whatever address they typed: it stays
  // out of the subject, so the shop's mail cannot be used to send someone else a chosen headline.
  const subject = t('mail.ticket.opened.subject', { id, shop: shopName });
  const intro = t('mail.ticket.opened.intro', { shop: shopName, title });
  const how = t('mail.ticket.opened.how');
  const text = [intro, '', how, input.ticketUrl, '', keep];
  const html = renderHtml(
    <MailLayout lang={lang} shopName={shopName} title={subject}>
      <Heading>{t('mail.ticket.opened.heading', { id })}</Heading>
      <Paragraph>{intro}</Paragraph>
      <Paragraph>{how}</Paragraph>
      <ActionLink lang={lang} href={input.ticketUrl} label={t('mail.ticket.open')} />
      <Paragraph muted>{keep}</Paragraph>
    </MailLayout>,
  );
  return { subject, text: textOf(text), html };
}

export interface TicketAnsweredMailInput {
  /** The language the ticket was opened in. */
  lang: Lang;
  shopName: string;
  ticketId: number;
  title: string;
  /** The shop's answer, as written. */
  reply: string;
  /** The ticket's page with its access key; null for a ticket whose key was never kept to mail (opened before mail carried links). */
  ticketUrl: string | null;
}

/** The shop answered a ticket: the answer, and the link to reply. */
export function ticketAnsweredMail(input: TicketAnsweredMailInput): RenderedMail {
  const { lang } = input;
  const { t } = lang;
  const shopName = oneLine(input.shopName);
  const title = oneLine(input.title);
  const id = input.ticketId;
  const keep = t('mail.ticket.keep');
  const reply = normaliseNewlines(input.reply.trim());
  // The buyer's title stays in the body, never in the subject (as for the opening mail).
  const subject = t('mail.ticket.answered.subject', { id, shop: shopName });
  const intro = t('mail.ticket.answered.intro', { shop: shopName, id, title });
  const how = t(input.ticketUrl ? 'mail.ticket.answered.how' : 'mail.ticket.answered.howWithoutLink');
  const text = [intro, '', reply, '', how, ...(input.ticketUrl ? [input.ticketUrl, '', keep] : [])];
  const html = renderHtml(
    <MailLayout lang={lang} shopName={shopName} title={subject}>
      <Heading>{t('mail.ticket.answered.heading', { id })}</Heading>
      <Paragraph>{intro}</Paragraph>
      <Section title={t('mail.ticket.answered.answer')}>
        <Quote>{reply}</Quote>
      </Section>
      <Paragraph>{how}</Paragraph>
      {input.ticketUrl ? (
        <>
          <ActionLink lang={lang} href={input.ticketUrl} label={t('mail.ticket.open')} />
          <Paragraph muted>{keep}</Paragraph>
        </>
      ) : null}
    </MailLayout>,
  );
  return { subject, text: textOf(text), html };
}
