import { useMutation } from '@tanstack/react-query';
import { Link, useParams } from 'wouter';
import { api, unwrap } from '../../api/client';
import { useTicket, useTicketChanged } from '../../api/queries/tickets';
import { useShopPath } from '../../app/shop';
import { ShopTime, useShopDates } from '../../app/shop-dates';
import { useBodyForm } from '../../forms/body-form';
import { strings } from '../../strings';
import { ConfirmButton } from '../../ui/Dialog';
import { Field, FormError, FormProblems } from '../../ui/Field';
import { Badge, Card, LoadError, Loading, Page } from '../../ui/Page';
import { useToast } from '../../ui/Toast';
import { ticketStatusLabels, ticketStatusTones } from './TicketsScreen';
import './support.css';

export default function TicketScreen() {
  const { dateTime } = useShopDates();
  const params = useParams<{ shopId: string; ticketId: string }>();
  const shopId = Number(params.shopId);
  const ticketId = Number(params.ticketId);
  const shopPath = useShopPath();
  const notify = useToast();
  const ticket = useTicket(shopId, ticketId);
  const changed = useTicketChanged(shopId, ticketId);
  const reply = useBodyForm({
    operation: 'POST /self/{shopId}/tickets/{ticketId}/message',
    defaultValues: { content: '' },
    toBody: (values) => values,
  });
  const send = useMutation({
    mutationFn: (body: { content: string }) =>
      unwrap(api.POST('/self/{shopId}/tickets/{ticketId}/message', { params: { path: { shopId, ticketId } }, body })),
    onSuccess: (next) => {
      reply.reset();
      notify(strings.ticket.replySent);
      return changed(next);
    },
  });
  const close = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/self/{shopId}/tickets/{ticketId}/close', { params: { path: { shopId, ticketId } } })),
    onSuccess: (next) => {
      notify(strings.ticket.ticketClosed);
      return changed(next);
    },
  });

  const back = (
    <Link href={shopPath('/tickets')} className="small">
      {strings.ticket.tickets}
    </Link>
  );
  if (ticket.error)
    return (
      <Page title={strings.ticket.ticket} back={back}>
        <LoadError error={ticket.error} retry={() => ticket.refetch()} />
      </Page>
    );
  if (!ticket.data)
    return (
      <Page title={strings.ticket.ticket} back={back}>
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
            label={strings.ticket.closeTicket}
            question={strings.ticket.closeThisTicketClosing}
            onConfirm={() => close.mutate()}
            disabled={close.isPending}
          />
        )
      }
    >
      <Card>
        <dl className="support-facts">
          <dt>{strings.common.status}</dt>
          <dd>
            <Badge tone={ticketStatusTones[t.status]}>{ticketStatusLabels[t.status]}</Badge>
          </dd>
          <dt>{strings.common.customer}</dt>
          <dd>
            <a href={`mailto:${t.email}`}>{t.email}</a>
          </dd>
          {t.invoiceId ? (
            <>
              <dt>{strings.common.order}</dt>
              <dd>
                <Link href={shopPath(`/orders/${encodeURIComponent(t.invoiceId)}`)}>{t.invoiceId}</Link>
              </dd>
            </>
          ) : null}
          <dt>{strings.common.opened}</dt>
          <dd>
            <ShopTime iso={t.createdAt} />
          </dd>
        </dl>
        <FormError error={close.error} />
      </Card>

      <section aria-labelledby="conversation-title" className="stack">
        <h2 id="conversation-title">{strings.ticket.conversation}</h2>
        <ol className="support-thread">
          {t.messages.map((m) => (
            <li key={m.id} className={`support-message support-message-${m.author}`}>
              <article
                aria-label={`${m.author === 'shop' ? strings.common.yourAnswer : strings.ticket.customerMessage}, ${dateTime(m.createdAt)}`}
              >
                <header>
                  <strong>{m.author === 'shop' ? strings.ticket.youShop : strings.ticket.customer(t.email)}</strong>
                  <ShopTime iso={m.createdAt} />
                </header>
                <p>{m.content}</p>
              </article>
            </li>
          ))}
        </ol>
      </section>

      {closed ? (
        <p className="alert alert-info">{strings.ticket.thisTicketIsClosed}</p>
      ) : (
        <Card>
          <form className="stack" noValidate onSubmit={reply.submit(send.mutateAsync)}>
            <FormProblems form={reply} error={send.error} />
            <Field
              label={strings.ticket.reply}
              error={reply.problem('content')}
              hint={strings.ticket.theCustomerGetsIt}
            >
              {(ids) => (
                <textarea {...ids} {...reply.register('content')} className="input" rows={5} maxLength={5000} />
              )}
            </Field>
            <div className="row">
              <button type="submit" className="btn btn-primary" disabled={send.isPending}>
                {strings.ticket.reply}
              </button>
            </div>
          </form>
        </Card>
      )}
    </Page>
  );
}
