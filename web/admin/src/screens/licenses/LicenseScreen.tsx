import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'wouter';
import type { BodyOf } from '../../api/bodies';
import { ApiError, api, unwrap } from '../../api/client';
import { type License, useLicense, useLicenseChanged } from '../../api/queries/licenses';
import { useProductNames } from '../../api/queries/products';
import { useShopPath } from '../../app/shop';
import { useBodyForm } from '../../forms/body-form';
import { ConfirmButton, Dialog } from '../../ui/Dialog';
import { Field, FormError, FormProblems } from '../../ui/Field';
import { dateTime } from '../../ui/format';
import { Badge, Card, LoadError, Loading, Page } from '../../ui/Page';
import { useToast } from '../../ui/Toast';
import { CopyButton } from '../settings/copy';
import { activationText, endOfDay, licenseStatusLabels, licenseStatusTones } from './licenses';
import './licenses.css';

type Action = 'disable' | 'enable' | 'revoke' | 'reset';

const actionPaths = {
  disable: '/self/{shopId}/licenses/{licenseId}/disable',
  enable: '/self/{shopId}/licenses/{licenseId}/enable',
  revoke: '/self/{shopId}/licenses/{licenseId}/revoke',
  reset: '/self/{shopId}/licenses/{licenseId}/reset',
} as const;

const actionDone: Record<Action, string> = {
  disable: 'License disabled',
  enable: 'License enabled',
  revoke: 'License revoked',
  reset: 'Activations reset',
};

/** One licence: its facts, its actions (disable or enable, extend, reset, revoke) and every activation. */
export default function LicenseScreen() {
  const params = useParams<{ shopId: string; licenseId: string }>();
  const shopId = Number(params.shopId);
  const licenseId = Number(params.licenseId);
  const shopPath = useShopPath();
  const notify = useToast();
  const license = useLicense(shopId, licenseId);
  const changed = useLicenseChanged(shopId, licenseId);
  const names = useProductNames(shopId);
  const [extending, setExtending] = useState(false);
  const act = useMutation({
    mutationFn: (action: Action) => unwrap(api.POST(actionPaths[action], { params: { path: { shopId, licenseId } } })),
    onSuccess: (next, action) => {
      notify(actionDone[action]);
      changed(next);
    },
    // A 409: the licence changed meanwhile (revoked by a refund, say): show it as it is now.
    onError: (error) => {
      if (error instanceof ApiError && error.status === 409) void license.refetch();
    },
  });

  const back = (
    <Link href={shopPath('/licenses')} className="small">
      ← Licenses
    </Link>
  );
  if (license.error)
    return (
      <Page title="License" back={back}>
        <LoadError error={license.error} retry={() => license.refetch()} />
      </Page>
    );
  if (!license.data)
    return (
      <Page title="License" back={back}>
        <Loading />
      </Page>
    );
  const l = license.data;
  const revoked = l.status === 'revoked';
  const live = l.activations.filter((a) => a.deactivatedAt === null).length;

  return (
    <Page
      title={`License ${l.licenseKey}`}
      back={back}
      actions={
        revoked ? null : (
          <div className="licenses-actions">
            {l.status === 'disabled' ? (
              <button type="button" className="btn" disabled={act.isPending} onClick={() => act.mutate('enable')}>
                Enable
              </button>
            ) : (
              <ConfirmButton
                label="Disable"
                question="Disable this license? It stops validating and cannot be activated until you enable it again; its activations stay."
                onConfirm={() => act.mutate('disable')}
                disabled={act.isPending}
              />
            )}
            <button type="button" className="btn" disabled={act.isPending} onClick={() => setExtending(true)}>
              Extend…
            </button>
            <ConfirmButton
              label="Reset activations"
              question={`Deactivate all ${live} instance(s) of this license? The buyer can then activate it afresh.`}
              onConfirm={() => act.mutate('reset')}
              disabled={act.isPending || live === 0}
            />
            <ConfirmButton
              label="Revoke"
              danger
              question="Revoke this license for good? It never validates or activates again, and this cannot be undone."
              onConfirm={() => act.mutate('revoke')}
              disabled={act.isPending}
            />
          </div>
        )
      }
    >
      <div className="stack">
        <FormError error={act.error} />
        {revoked ? <p className="alert alert-info">This license is revoked: it takes no more changes.</p> : null}
        <Card title="License">
          <dl className="licenses-facts">
            <dt>Key</dt>
            <dd className="row">
              <code className="licenses-key">{l.licenseKey}</code>
              <CopyButton text={l.licenseKey} label="Copy key" />
            </dd>
            <dt>Status</dt>
            <dd>
              <Badge tone={licenseStatusTones[l.status]}>{licenseStatusLabels[l.status]}</Badge>
            </dd>
            <dt>Activations</dt>
            <dd>{activationText(l)}</dd>
            <dt>Expires</dt>
            <dd>{l.expiresAt ? dateTime(l.expiresAt) : 'Never'}</dd>
            <dt>Product</dt>
            <dd>
              <Link href={shopPath(`/products/${l.productId}`)}>
                {names.data?.get(l.productId) ?? `Product #${l.productId}`}
              </Link>
            </dd>
            <dt>Order</dt>
            <dd>
              <Link href={shopPath(`/orders/${encodeURIComponent(l.invoiceId)}`)}>
                <code>{l.invoiceId}</code>
              </Link>
            </dd>
            <dt>Buyer</dt>
            <dd>
              <a href={`mailto:${l.email}`}>{l.email}</a>
              {' · '}
              <Link href={shopPath(`/licenses?email=${encodeURIComponent(l.email)}`)}>Their licenses</Link>
              {l.customerId ? (
                <>
                  {' · '}
                  <Link href={shopPath(`/customers/${l.customerId}`)}>Customer</Link>
                </>
              ) : null}
            </dd>
            <dt>Issued</dt>
            <dd>{dateTime(l.createdAt)}</dd>
            <dt>Updated</dt>
            <dd>{dateTime(l.updatedAt)}</dd>
          </dl>
        </Card>
        <Card title="Activations">
          <div className="table-wrap">
            <table className="table">
              <caption className="sr-only">Activations of the license</caption>
              <thead>
                <tr>
                  <th>Instance</th>
                  <th>Instance id</th>
                  <th>Activated</th>
                  <th>State</th>
                </tr>
              </thead>
              <tbody>
                {l.activations.length === 0 ? (
                  <tr>
                    <td colSpan={4} className="empty">
                      Never activated.
                    </td>
                  </tr>
                ) : (
                  l.activations.map((a) => (
                    <tr key={a.id}>
                      <td data-label="Instance">{a.name}</td>
                      <td data-label="Instance id">
                        <code className="small">{a.id}</code>
                      </td>
                      <td data-label="Activated">{dateTime(a.createdAt)}</td>
                      <td data-label="State">
                        {a.deactivatedAt ? (
                          <span className="muted">Deactivated {dateTime(a.deactivatedAt)}</span>
                        ) : (
                          <Badge tone="ok">Active</Badge>
                        )}
                      </td>
                    </tr>
                  ))
                )}
              </tbody>
            </table>
          </div>
        </Card>
      </div>
      <Dialog open={extending} onClose={() => setExtending(false)} title="Extend the license">
        <ExtendForm
          license={l}
          shopId={shopId}
          onDone={(next) => {
            setExtending(false);
            changed(next);
          }}
          onClose={() => setExtending(false)}
        />
      </Dialog>
    </Page>
  );
}

type ExtendBody = BodyOf<'POST /self/{shopId}/licenses/{licenseId}/extend'>;
type ExtendHow = 'days' | 'date' | 'never';

/** Moves the licence's end: some days on, to a date, or to never. */
function ExtendForm(props: { license: License; shopId: number; onDone: (next: License) => void; onClose: () => void }) {
  const { license } = props;
  const notify = useToast();
  const form = useBodyForm({
    operation: 'POST /self/{shopId}/licenses/{licenseId}/extend',
    defaultValues: {
      // A licence that never expires has no end to add days to.
      how: (license.expiresAt ? 'days' : 'date') as ExtendHow,
      addDays: '30',
      date: '',
    },
    toBody: (values): ExtendBody =>
      values.how === 'days'
        ? { addDays: Number(values.addDays) }
        : values.how === 'date'
          ? { expiresAt: endOfDay(values.date) }
          : { expiresAt: null },
    fieldOf: (path) => (path === 'addDays' ? 'addDays' : path === 'expiresAt' ? 'date' : undefined),
    check: (values) => ({
      addDays: values.how === 'days' && values.addDays.trim() === '' ? 'Enter the number of days.' : undefined,
      date: values.how === 'date' && values.date === '' ? 'Choose the new end date.' : undefined,
    }),
  });
  const extend = useMutation({
    mutationFn: (body: ExtendBody) =>
      unwrap(
        api.POST('/self/{shopId}/licenses/{licenseId}/extend', {
          params: { path: { shopId: props.shopId, licenseId: license.id } },
          body,
        }),
      ),
    onSuccess: (next) => {
      notify('License extended');
      props.onDone(next);
    },
  });
  const how = form.watch('how');
  return (
    <form className="stack" noValidate onSubmit={form.submit(extend.mutateAsync)}>
      <p className="muted">
        Now {license.expiresAt ? `it expires ${dateTime(license.expiresAt)}` : 'it never expires'}. Tokens already
        issued keep their own expiry.
      </p>
      <FormProblems form={form} error={extend.error} />
      <fieldset className="licenses-choice">
        <legend>New end</legend>
        <label className="check">
          <input type="radio" value="days" {...form.register('how')} disabled={!license.expiresAt} />
          Add days to the current end{license.expiresAt ? '' : ' (it has none)'}
        </label>
        <label className="check">
          <input type="radio" value="date" {...form.register('how')} />
          End on a date
        </label>
        <label className="check">
          <input type="radio" value="never" {...form.register('how')} />
          Never expire
        </label>
      </fieldset>
      {how === 'days' ? (
        <Field label="Days to add" error={form.problem('addDays')} hint="Counted from now if the license has expired.">
          {(ids) => <input {...ids} {...form.register('addDays')} className="input" inputMode="numeric" />}
        </Field>
      ) : null}
      {how === 'date' ? (
        <Field label="New end date" error={form.problem('date')} hint="The license ends at the end of this day (UTC).">
          {(ids) => <input {...ids} {...form.register('date')} type="date" className="input" />}
        </Field>
      ) : null}
      <div className="row">
        <button type="submit" className="btn btn-primary" disabled={extend.isPending}>
          {extend.isPending ? 'Saving…' : 'Extend'}
        </button>
        <button type="button" className="btn btn-ghost" onClick={props.onClose}>
          Close
        </button>
      </div>
    </form>
  );
}
