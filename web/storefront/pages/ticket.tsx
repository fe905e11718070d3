import { storefrontPaths } from '../../../src/http/storefront-url.js';
import type { MessageKey } from '../../../src/i18n/lang.js';
import type { getPublicTicket } from '../../../src/modules/tickets/index.js';
import { Field, FormErrors } from '../components.js';
import { describedBy, type PlacedErrors } from '../form.js';
import { useLang } from '../i18n.js';
import { Layout } from '../layout.js';
import { href, type ShopDetails, type Site } from '../site.js';

export type PublicTicketView = Awaited<ReturnType<typeof getPublicTicket>>;

const STATUS_TEXT: Record<PublicTicketView['status'], MessageKey> = {
  open: 'ticket.status.open',
  answered: 'ticket.status.answered',
  closed: 'ticket.status.closed',
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
  const lang = useLang();
  const { t } = lang;
  const e = errors.fields;
  const hasErrors = Object.keys(e).length > 0 || errors.other.length > 0 || errors.message !== undefined;
  return (
    <Layout site={site} details={details} title={t('ticket.title', { title: ticket.title })} noindex>
      <section class="narrow">
        <h1>{ticket.title}</h1>
        <p>
          {t('invoice.status')}{' '}
          <span class="status-pill" id="ticket-status">
            {t(STATUS_TEXT[ticket.status])}
          </span>
        </p>
        {ticket.invoiceId ? (
          <p class="muted small">
            {lang.rich('ticket.about', {
              id: ticket.invoiceId,
              link: (chunks) => (
                <a key="order" href={href(site, storefrontPaths.invoice(ticket.invoiceId!))}>
                  {chunks}
                </a>
              ),
            })}
          </p>
        ) : null}
        <p class="muted small">{t('ticket.keepLink')}</p>

        <h2>{t('ticket.messages')}</h2>
        <ol class="thread">
          {ticket.messages.map((m) => (
            <li key={m.id} class={m.author === 'shop' ? 'card message shop' : 'card message customer'}>
              <p class="muted small">
                <strong>{m.author === 'shop' ? details.name : t('ticket.you')}</strong> ·{' '}
                <time datetime={m.createdAt}>{lang.dayTime(m.createdAt)}</time>
              </p>
              <p class="text">{m.content}</p>
            </li>
          ))}
        </ol>

        {ticket.status === 'closed' ? (
          <p class="notice" role="status">
            {lang.rich('ticket.closed', {
              link: (chunks) => (
                <a key="new" href={href(site, '/support')}>
                  {chunks}
                </a>
              ),
            })}
          </p>
        ) : (
          <>
            <h2>{t('ticket.reply')}</h2>
            <form method="post" action={href(site, `/tickets/${ticket.id}/reply`)}>
              <input type="hidden" name="_csrf" value={props.csrf} />
              <input type="hidden" name="key" value={props.accessKey} />
              {hasErrors ? <FormErrors errors={errors.other} message={errors.message} /> : null}
              <Field id="message" label={t('ticket.yourMessage')} error={e.message}>
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
                {t('ticket.sendReply')}
              </button>
            </form>
          </>
        )}
      </section>
    </Layout>
  );
}
