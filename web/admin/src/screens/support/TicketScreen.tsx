import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'wouter';
import { api, unwrap } from '../../api/client';
import type { paths } from '../../api/schema';
import { useShopPath } from '../../app/shop';
import { ConfirmButton } from '../../ui/Dialog';
import { Field, FormError, fieldError } from '../../ui/Field';
import { dateTime } from '../../ui/format';
import { Badge, Card, LoadError, Loading, Page } from '../../ui/Page';
import { useToast } from '../../ui/Toast';
import { ticketStatusLabels, ticketStatusTones } from './TicketsScreen';
import './support.css';

type Ticket =
  paths['/self/{shopId}/tickets/{ticketId}']['get']['responses'][200]['content']['application/json']['data'];

export default function TicketScreen() {
  const params = useParams<{ shopId: string; ticketId: string }>();
  const shopId = Number(params.shopId);
  const ticketId = Number(params.ticketId);
  const shopPath = useShopPath();
  const queryClient = useQueryClient();
  const notify = useToast();
  const key = ['shop', shopId, 'tickets', 'detail', ticketId];
  const ticket = useQuery({
    queryKey: key,
    queryFn: () => unwrap(api.GET('/self/{shopId}/tickets/{ticketId}', { params: { path: { shopId, ticketId } } })),
  });
  const [reply, setReply] = useState('');

  const changed = (next: Ticket) => {
    queryClient.setQueryData(key, next);
    return queryClient.invalidateQueries({ queryKey: ['shop', shopId, 'tickets', 'list'] });
  };
  const send = useMutation({
    mutationFn: (content: string) =>
      unwrap(
        api.POST('/self/{shopId}/tickets/{ticketId}/message', {
          params: { path: { shopId, ticketId } },
          body: { content },
        }),
      ),
    onSuccess: (next) => {
      setReply('');
      notify('Reply sent');
      return changed(next);
    },
  });
  const close = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/self/{shopId}/tickets/{ticketId}/close', { params: { path: { shopId, ticketId } } })),
    onSuccess: (next) => {
      notify('Ticket closed');
      return changed(next);
    },
  });

  const back = (
    <Link href={shopPath('/tickets')} className="small">
      ← Tickets
    </Link>
  );
  if (ticket.error)
    return (
      <Page title="Ticket" back={back}>
        <LoadError error={ticket.error} retry={() => ticket.refetch()} />
      </Page>
    );
  if (!ticket.data)
    return (
      <Page title="Ticket" back={back}>
        <Loading />
      </Page>
    );
  const t = ticket.data;
  const closed = t.status === 'closed';

  return (
    <Page
      title={t.title}
      back={back}
      actions={
        closed ? null : (
          <ConfirmButton
            label="Close ticket"
            question="Close this ticket? Closing is final: it takes no more messages."
            onConfirm={() => close.mutate()}
            disabled={close.isPending}
          />
        )
      }
    >
      <Card>
        <dl className="support-facts">
          <dt>Status</dt>
          <dd>
            <Badge tone={ticketStatusTones[t.status]}>{ticketStatusLabels[t.status]}</Badge>
          </dd>
          <dt>Customer</dt>
          <dd>
            <a href={`mailto:${t.email}`}>{t.email}</a>
          </dd>
          {t.invoiceId ? (
            <>
              <dt>Order</dt>
              <dd>
                <Link href={shopPath(`/orders/${encodeURIComponent(t.invoiceId)}`)}>{t.invoiceId}</Link>
              </dd>
            </>
          ) : null}
          <dt>Opened</dt>
          <dd>{dateTime(t.createdAt)}</dd>
        </dl>
        <FormError error={close.error} />
      </Card>

      <section aria-labelledby="conversation-title" className="stack">
        <h2 id="conversation-title">Conversation</h2>
        <ol className="support-thread">
          {t.messages.map((m) => (
            <li key={m.id} className={`support-message support-message-${m.author}`}>
              <article
                aria-label={`${m.author === 'shop' ? 'Your answer' : 'Customer message'}, ${dateTime(m.createdAt)}`}
              >
                <header>
                  <strong>{m.author === 'shop' ? 'You (shop)' : `Customer · ${t.email}`}</strong>
                  <time dateTime={m.createdAt}>{dateTime(m.createdAt)}</time>
                </header>
                <p>{m.content}</p>
              </article>
            </li>
          ))}
        </ol>
      </section>

      {closed ? (
        <p className="alert alert-info">This ticket is closed; it takes no more messages.</p>
      ) : (
        <Card>
          <form
            className="stack"
            onSubmit={(e) => {
              e.preventDefault();
              send.mutate(reply);
            }}
          >
            <FormError error={send.error} fields={['content']} />
            <Field
              label="Reply"
              error={fieldError(send.error, 'content')}
              hint="The customer gets it by e-mail with a link to the ticket."
            >
              {(ids) => (
                <textarea
                  {...ids}
                  className="input"
                  rows={5}
                  maxLength={5000}
                  value={reply}
                  onChange={(e) => setReply(e.target.value)}
                />
              )}
            </Field>
            <div className="row">
              <button type="submit" className="btn btn-primary" disabled={send.isPending}>
                Reply
              </button>
            </div>
          </form>
        </Card>
      )}
    </Page>
  );
}
