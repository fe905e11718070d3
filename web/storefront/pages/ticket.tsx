import { storefrontPaths } from '../../../src/http/storefront-url.js';
import type { getPublicTicket } from '../../../src/modules/tickets/index.js';
import { Field, FormErrors } from '../components.js';
import { describedBy, type PlacedErrors } from '../form.js';
import { day } from '../format.js';
import { Layout } from '../layout.js';
import { href, type ShopDetails, type Site } from '../site.js';

export type PublicTicketView = Awaited<ReturnType<typeof getPublicTicket>>;

const STATUS_TEXT: Record<PublicTicketView['status'], string> = {
  open: 'Waiting for the shop',
  answered: 'Answered',
  closed: 'Closed',
};

/**
 * A ticket as its customer sees it, reached by the link with its access key: the thread oldest
 * first and, unless closed, the reply form. The key travels back in a hidden field (`key`), so it
 * is not in the URL of the post.
 */
export function TicketPage(props: {
  site: Site;
  details: ShopDetails;
  ticket: PublicTicketView;
  accessKey: string;
  csrf: string;
  reply: string;
  errors: PlacedErrors;
}) {
  const { site, details, ticket, errors } = props;
  const e = errors.fields;
  const hasErrors = Object.keys(e).length > 0 || errors.other.length > 0 || errors.message !== undefined;
  return (
    <Layout site={site} details={details} title={`Ticket: ${ticket.title}`} noindex>
      <section class="narrow">
        <h1>{ticket.title}</h1>
        <p>
          Status:{' '}
          <span class="status-pill" id="ticket-status">
            {STATUS_TEXT[ticket.status]}
          </span>
        </p>
        {ticket.invoiceId ? (
          <p class="muted small">
            About order <a href={href(site, storefrontPaths.invoice(ticket.invoiceId))}>{ticket.invoiceId}</a>
          </p>
        ) : null}
        <p class="muted small">
          Keep the link to this page: it is the only way to read the answers besides your e-mail.
        </p>

        <h2>Messages</h2>
        <ol class="thread">
          {ticket.messages.map((m) => (
            <li key={m.id} class={m.author === 'shop' ? 'card message shop' : 'card message customer'}>
              <p class="muted small">
                <strong>{m.author === 'shop' ? details.name : 'You'}</strong> ·{' '}
                <time datetime={m.createdAt}>
                  {day(m.createdAt)} {m.createdAt.slice(11, 16)} UTC
                </time>
              </p>
              <p class="text">{m.content}</p>
            </li>
          ))}
        </ol>

        {ticket.status === 'closed' ? (
          <p class="notice" role="status">
            This ticket is closed: it takes no more replies. <a href={href(site, '/support')}>Open a new ticket</a> if
            you need more help.
          </p>
        ) : (
          <>
            <h2>Reply</h2>
            <form method="post" action={href(site, `/tickets/${ticket.id}/reply`)}>
              <input type="hidden" name="_csrf" value={props.csrf} />
              <input type="hidden" name="key" value={props.accessKey} />
              {hasErrors ? <FormErrors errors={errors.other} message={errors.message} /> : null}
              <Field id="message" label="Your message" error={e.message}>
                <textarea
                  id="message"
                  name="message"
                  rows={5}
                  required
                  maxLength={5000}
                  value={props.reply}
                  {...describedBy('message', { error: e.message })}
                />
              </Field>
              <button type="submit" class="button primary">
                Send reply
              </button>
            </form>
          </>
        )}
      </section>
    </Layout>
  );
}
