import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import type { BodyOf } from '../../api/bodies';
import { api, unwrap } from '../../api/client';
import {
  type WebhookAttempt as Attempt,
  useInvalidateWebhooks as useInvalidate,
  useWebhookDeliveries,
  useWebhookList,
  type Webhook,
} from '../../api/queries/webhooks';
import { useShopId } from '../../app/shop';
import { ShopTime } from '../../app/shop-dates';
import { useBodyForm } from '../../forms/body-form';
import { strings } from '../../strings';
import { ConfirmButton, Dialog } from '../../ui/Dialog';
import { CheckField, Field, FormProblems } from '../../ui/Field';
import { DataTable, Pager, SearchBox } from '../../ui/list';
import { Badge, LoadError, Page } from '../../ui/Page';
import { useToast } from '../../ui/Toast';
import { CopyButton } from './copy';
import './settings.css';

type WebhookInput = BodyOf<'POST /self/{shopId}/webhooks'>;
type EventType = WebhookInput['events'][number];

/** The API's event types, in its order; the check below fails to compile when the API adds one. */
const eventTypes = [
  'invoice.created',
  'invoice.completed',
  'invoice.expired',
  'invoice.replaced',
  'invoice.cancelled',
  'invoice.refunded',
  'invoice.disputed',
  'ticket.created',
  'ticket.message',
  'feedback.created',
  'product.out_of_stock',
  'customer.balance_changed',
  'license.activated',
  'license.deactivated',
  'license.revoked',
] as const satisfies readonly EventType[];
const everyEventListed: Exclude<EventType, (typeof eventTypes)[number]> extends never ? true : false = true;
void everyEventListed;

export default function WebhooksScreen() {
  const shopId = useShopId();
  const [editing, setEditing] = useState<Webhook | 'new' | null>(null);
  const [secret, setSecret] = useState<{ url: string; secret: string } | null>(null);
  const [deliveriesOf, setDeliveriesOf] = useState<Webhook | null>(null);
  const list = useWebhookList(shopId);

  return (
    <Page
      title={strings.common.webhooks}
      actions={
        <button type="button" className="btn btn-primary" onClick={() => setEditing('new')}>
          {strings.webhooks.addEndpoint}
        </button>
      }
    >
      <p className="muted">{strings.webhooks.shopdSendsEachEvent}</p>
      <div className="toolbar">
        <SearchBox value={list.search} onChange={list.setSearch} label={strings.webhooks.searchEndpoints} />
      </div>
      {list.result.error ? <LoadError error={list.result.error} retry={() => list.result.refetch()} /> : null}
      <DataTable
        rows={list.rows}
        rowKey={(w) => w.id}
        loading={list.result.isLoading}
        caption={strings.webhooks.webhookEndpoints}
        empty={strings.webhooks.noEndpointsYet}
        columns={[
          { header: strings.webhooks.url, cell: (w) => <span className="settings-url">{w.url}</span> },
          { header: strings.webhooks.events, cell: (w) => <span className="small">{w.events.join(', ')}</span> },
          {
            header: strings.common.status,
            cell: (w) =>
              w.enabled ? (
                <Badge tone="ok">{strings.common.enabled}</Badge>
              ) : (
                <span className="stack">
                  <Badge tone="warn">{strings.common.disabled}</Badge>
                  {w.disabledReason ? <span className="small muted">{w.disabledReason}</span> : null}
                </span>
              ),
          },
          { header: strings.common.created, cell: (w) => <ShopTime iso={w.createdAt} /> },
          {
            header: strings.common.actions,
            cell: (w) => <RowActions webhook={w} onEdit={setEditing} onDeliveries={setDeliveriesOf} />,
          },
        ]}
      />
      <Pager list={list} />
      <Dialog
        open={editing !== null}
        onClose={() => setEditing(null)}
        title={editing === 'new' ? strings.webhooks.addEndpoint : strings.webhooks.editEndpoint}
      >
        {editing !== null ? (
          <WebhookForm
            webhook={editing === 'new' ? null : editing}
            onDone={(created) => {
              setEditing(null);
              if (created) setSecret(created);
            }}
          />
        ) : null}
      </Dialog>
      <Dialog open={secret !== null} onClose={() => setSecret(null)} title={strings.webhooks.signingSecret}>
        {secret ? (
          <div className="stack">
            <p>
              {strings.webhooks.theEndpoint} <strong className="settings-url">{secret.url}</strong>{' '}
              {strings.webhooks.wasAddedItsSigning}
            </p>
            <Field label={strings.webhooks.signingSecret}>
              {(ids) => (
                <input
                  {...ids}
                  className="input settings-secret"
                  readOnly
                  value={secret.secret}
                  onFocus={(e) => e.target.select()}
                />
              )}
            </Field>
            <p className="alert alert-info">{strings.webhooks.copyItNowIt}</p>
            <div className="row">
              <CopyButton text={secret.secret} label={strings.webhooks.copySecret} />
              <button type="button" className="btn btn-primary" onClick={() => setSecret(null)}>
                {strings.common.done}
              </button>
            </div>
          </div>
        ) : null}
      </Dialog>
      <Dialog
        open={deliveriesOf !== null}
        onClose={() => setDeliveriesOf(null)}
        title={deliveriesOf ? strings.webhooks.deliveriesTo(deliveriesOf.url) : strings.webhooks.deliveries}
        wide
      >
        {deliveriesOf ? <Deliveries webhook={deliveriesOf} /> : null}
      </Dialog>
    </Page>
  );
}

function useInvalidateWebhooks() {
  return useInvalidate(useShopId());
}

function RowActions(props: { webhook: Webhook; onEdit: (w: Webhook) => void; onDeliveries: (w: Webhook) => void }) {
  const shopId = useShopId();
  const notify = useToast();
  const invalidate = useInvalidateWebhooks();
  const params = { params: { path: { shopId, webhookId: props.webhook.id } } };
  const test = useMutation({
    mutationFn: () => unwrap(api.POST('/self/{shopId}/webhooks/{webhookId}/test', params)),
    onSuccess: (result) => {
      const answer =
        result.statusCode !== null
          ? strings.webhooks.http(result.statusCode)
          : (result.error ?? strings.webhooks.noAnswerLower);
      notify(
        result.ok ? strings.webhooks.testEventDelivered(answer) : strings.webhooks.testEventFailed(answer),
        result.ok ? 'ok' : 'bad',
      );
      void invalidate();
    },
    onError: (error) => notify(error.message, 'bad'),
  });
  const remove = useMutation({
    mutationFn: () => unwrap(api.DELETE('/self/{shopId}/webhooks/{webhookId}', params)),
    onSuccess: () => {
      notify(strings.webhooks.endpointDeleted);
      void invalidate();
    },
    onError: (error) => notify(error.message, 'bad'),
  });
  return (
    <div className="row">
      <button type="button" className="btn" onClick={() => props.onEdit(props.webhook)}>
        {strings.common.edit}
      </button>
      <button type="button" className="btn" onClick={() => props.onDeliveries(props.webhook)}>
        {strings.webhooks.deliveries}
      </button>
      <button type="button" className="btn" disabled={test.isPending} onClick={() => test.mutate()}>
        {test.isPending ? strings.common.sending : strings.webhooks.sendTest}
      </button>
      <ConfirmButton
        label={strings.common.delete}
        danger
        disabled={remove.isPending}
        question={strings.webhooks.deleteTheEndpointAnd(props.webhook.url)}
        onConfirm={() => remove.mutate()}
      />
    </div>
  );
}

function WebhookForm(props: {
  webhook: Webhook | null;
  onDone: (created: { url: string; secret: string } | null) => void;
}) {
  const shopId = useShopId();
  const notify = useToast();
  const invalidate = useInvalidateWebhooks();
  const form = useBodyForm({
    operation: props.webhook ? 'PUT /self/{shopId}/webhooks/{webhookId}' : 'POST /self/{shopId}/webhooks',
    defaultValues: {
      url: props.webhook?.url ?? '',
      events: (props.webhook?.events ?? []) as EventType[],
      enabled: props.webhook?.enabled ?? true,
    },
    // In the API's order, whatever order they were ticked in.
    toBody: (values) => ({
      url: values.url.trim(),
      events: eventTypes.filter((e) => values.events.includes(e)),
      enabled: values.enabled,
    }),
  });
  const save = useMutation({
    mutationFn: async (body: WebhookInput) => {
      if (props.webhook)
        return {
          created: null,
          webhook: await unwrap(
            api.PUT('/self/{shopId}/webhooks/{webhookId}', {
              params: { path: { shopId, webhookId: props.webhook.id } },
              body,
            }),
          ),
        };
      const created = await unwrap(api.POST('/self/{shopId}/webhooks', { params: { path: { shopId } }, body }));
      return { created: { url: created.url, secret: created.secret }, webhook: created };
    },
    onSuccess: (result) => {
      notify(props.webhook ? strings.webhooks.endpointSaved : strings.webhooks.endpointAdded);
      void invalidate();
      props.onDone(result.created);
    },
  });
  const eventsError = form.problem('events');
  return (
    <form className="stack" onSubmit={form.submit(save.mutateAsync)} noValidate>
      <FormProblems form={form} error={save.error} />
      <Field label={strings.webhooks.url} error={form.problem('url')} hint={strings.webhooks.whereShopdPostsThe}>
        {(ids) => (
          <input
            {...ids}
            {...form.register('url')}
            className="input"
            type="url"
            placeholder={strings.webhooks.httpsExampleComWebhooks}
          />
        )}
      </Field>
      <fieldset className="settings-events" aria-describedby={eventsError ? 'webhook-events-error' : undefined}>
        <legend className="settings-legend">{strings.webhooks.events}</legend>
        {eventTypes.map((name) => (
          <label key={name} className="check">
            <input type="checkbox" value={name} {...form.register('events')} />
            {name}
          </label>
        ))}
      </fieldset>
      <div className="row">
        <button
          type="button"
          className="btn btn-ghost small"
          onClick={() => form.setValue('events', [...eventTypes], { shouldDirty: true })}
        >
          {strings.webhooks.selectAllEvents}
        </button>
        <button
          type="button"
          className="btn btn-ghost small"
          onClick={() => form.setValue('events', [], { shouldDirty: true })}
        >
          {strings.webhooks.clearEvents}
        </button>
      </div>
      {eventsError ? (
        <p className="field-error" id="webhook-events-error">
          {eventsError}
        </p>
      ) : null}
      <CheckField {...form.register('enabled')} error={form.problem('enabled')}>
        {strings.common.enabled}
      </CheckField>
      <div className="row">
        <button type="submit" className="btn btn-primary" disabled={save.isPending}>
          {save.isPending ? strings.common.saving : props.webhook ? strings.common.save : strings.webhooks.addEndpoint}
        </button>
        <button type="button" className="btn" onClick={() => props.onDone(null)}>
          {strings.common.cancel}
        </button>
      </div>
    </form>
  );
}

function Deliveries({ webhook }: { webhook: Webhook }) {
  const shopId = useShopId();
  const notify = useToast();
  const invalidate = useInvalidateWebhooks();
  const [pageNumber, setPageNumber] = useState(1);
  const resend = useMutation({
    mutationFn: (deliveryId: number) =>
      unwrap(
        api.POST('/self/{shopId}/webhooks/{webhookId}/deliveries/{deliveryId}/resend', {
          params: { path: { shopId, webhookId: webhook.id, deliveryId } },
        }),
      ),
    onSuccess: (delivery) => {
      notify(strings.webhooks.resendQueuedGoesOut(delivery.eventType));
      void invalidate();
    },
    onError: (error) => notify(error.message, 'bad'),
  });
  const pageSize = 20;
  const attempts = useWebhookDeliveries(shopId, webhook.id, pageNumber, pageSize);
  const data = attempts.data;
  // Rows are attempts, newest first: a delivery's button goes on its first row of the page.
  const firstOfDelivery = new Set<number>();
  const seen = new Set<number>();
  for (const a of data?.items ?? []) {
    if (!seen.has(a.deliveryId)) firstOfDelivery.add(a.id);
    seen.add(a.deliveryId);
  }
  return (
    <div className="stack">
      {attempts.error ? <LoadError error={attempts.error} retry={() => attempts.refetch()} /> : null}
      <div className="row">
        <button type="button" className="btn" onClick={() => attempts.refetch()} disabled={attempts.isFetching}>
          {strings.webhooks.refresh}
        </button>
      </div>
      {webhook.enabled ? null : <p className="alert alert-info">{strings.webhooks.thisEndpointIsDisabled}</p>}
      <DataTable<Attempt>
        rows={data?.items ?? []}
        rowKey={(a) => a.id}
        loading={attempts.isLoading}
        caption={strings.webhooks.deliveryAttempts}
        empty={strings.webhooks.noDeliveriesYet}
        columns={[
          { header: strings.common.when, cell: (a) => <ShopTime iso={a.createdAt} /> },
          { header: strings.webhooks.event, cell: (a) => <span className="small">{a.eventType}</span> },
          {
            header: strings.webhooks.result,
            cell: (a) => {
              const ok = a.statusCode !== null && a.statusCode >= 200 && a.statusCode < 300;
              return (
                <span className="stack">
                  <Badge tone={ok ? 'ok' : 'bad'}>
                    {a.statusCode !== null ? strings.webhooks.http(a.statusCode) : strings.webhooks.noAnswer}
                  </Badge>
                  {a.error ? <span className="small muted">{a.error}</span> : null}
                </span>
              );
            },
          },
          { header: strings.webhooks.attempt, cell: (a) => a.attempt, className: 'num' },
          { header: strings.common.time, cell: (a) => strings.webhooks.ms(a.durationMs), className: 'num' },
          {
            header: strings.common.actions,
            cell: (a) =>
              firstOfDelivery.has(a.id) ? (
                <button
                  type="button"
                  className="btn"
                  disabled={resend.isPending || !webhook.enabled}
                  onClick={() => resend.mutate(a.deliveryId)}
                >
                  {strings.common.resend}
                </button>
              ) : null,
          },
        ]}
      />
      <nav className="pager" aria-label={strings.webhooks.deliveryPages}>
        <span className="muted">
          {data ? strings.webhooks.inAllPageOf(data.totalCount, data.pageNumber, Math.max(1, data.totalPages)) : ''}
        </span>
        <button type="button" className="btn" disabled={pageNumber <= 1} onClick={() => setPageNumber((n) => n - 1)}>
          {strings.common.previous}
        </button>
        <button
          type="button"
          className="btn"
          disabled={!data || pageNumber >= data.totalPages}
          onClick={() => setPageNumber((n) => n + 1)}
        >
          {strings.common.next}
        </button>
      </nav>
      <p className="muted small">{strings.webhooks.failedDeliveriesAreRetried}</p>
    </div>
  );
}
