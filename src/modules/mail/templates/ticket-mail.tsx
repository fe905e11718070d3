import { ActionLink, Heading, MailLayout, Paragraph, Quote, Section } from './layout.js';
import { normaliseNewlines, oneLine, type RenderedMail, renderHtml, textOf } from './render.js';

const KEEP = 'Anyone with this link can read and answer the ticket: keep it to yourself.';

export interface TicketOpenedMailInput {
  shopName: string;
  ticketId: number;
  title: string;
  /** The ticket's storefront page with its access key, absolute. */
  ticketUrl: string;
}

/** Sent to the buyer who opened a ticket: the link (with its access key) is their way back to it. */
export function ticketOpenedMail(input: TicketOpenedMailInput): RenderedMail {
  const shopName = oneLine(input.shopName);
  const title = oneLine(input.title);
  // The title is the sender's text, and this mail goes to whatever address they typed: it stays
  // out of the subject, so the shop's mail cannot be used to send someone else a chosen headline.
  const subject = `Your support ticket ${input.ticketId} at ${shopName}`;
  const intro = `You opened a support ticket with ${shopName}: "${title}". You will get an e-mail when the shop answers.`;
  const how = 'Read the conversation and reply on the ticket page:';
  const text = [intro, '', how, input.ticketUrl, '', KEEP];
  const html = renderHtml(
    <MailLayout shopName={shopName} title={subject}>
      <Heading>Your support ticket {input.ticketId}</Heading>
      <Paragraph>{intro}</Paragraph>
      <Paragraph>{how}</Paragraph>
      <ActionLink href={input.ticketUrl} label="Open your ticket" />
      <Paragraph muted>{KEEP}</Paragraph>
    </MailLayout>,
  );
  return { subject, text: textOf(text), html };
}

export interface TicketAnsweredMailInput {
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
  const shopName = oneLine(input.shopName);
  const title = oneLine(input.title);
  const reply = normaliseNewlines(input.reply.trim());
  // The buyer's title stays in the body, never in the subject (as for the opening mail).
  const subject = `Reply to your support ticket ${input.ticketId} at ${shopName}`;
  const intro = `${shopName} answered your support ticket ${input.ticketId}, "${title}":`;
  const how = input.ticketUrl
    ? 'To reply, open the ticket:'
    : 'To reply, open the ticket with the link from the first e-mail about it, or with the access key you were given when you opened it.';
  const text = [intro, '', reply, '', how, ...(input.ticketUrl ? [input.ticketUrl, '', KEEP] : [])];
  const html = renderHtml(
    <MailLayout shopName={shopName} title={subject}>
      <Heading>New answer on ticket {input.ticketId}</Heading>
      <Paragraph>{intro}</Paragraph>
      <Section title="The shop's answer">
        <Quote>{reply}</Quote>
      </Section>
      <Paragraph>{how}</Paragraph>
      {input.ticketUrl ? (
        <>
          <ActionLink href={input.ticketUrl} label="Open your ticket" />
          <Paragraph muted>{KEEP}</Paragraph>
        </>
      ) : null}
    </MailLayout>,
  );
  return { subject, text: textOf(text), html };
}
