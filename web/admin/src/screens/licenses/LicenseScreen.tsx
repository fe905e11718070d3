import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'wouter';
import type { BodyOf } from '../../api/bodies';
import { ApiError, api, unwrap } from '../../api/client';
import { type License, useLicense, useLicenseChanged } from '../../api/queries/licenses';
import { useProductNames } from '../../api/queries/products';
import { useShopPath } from '../../app/shop';
import { ShopTime, useShopDates } from '../../app/shop-dates';
import { useBodyForm } from '../../forms/body-form';
import { strings } from '../../strings';
import { ConfirmButton, Dialog } from '../../ui/Dialog';
import { Field, FormError, FormProblems } from '../../ui/Field';
import { Badge, Card, LoadError, Loading, Page } from '../../ui/Page';
import { useToast } from '../../ui/Toast';
import { CopyButton } from '../settings/copy';
import { activationText, licenseStatusLabels, licenseStatusTones } from './licenses';
import './licenses.css';

type Action = 'disable' | 'enable' | 'revoke' | 'reset';

const actionPaths = {
  disable: '/self/{shopId}/licenses/{licenseId}/disable',
  enable: '/self/{shopId}/licenses/{licenseId}/enable',
  revoke: '/self/{shopId}/licenses/{licenseId}/revoke',
  reset: '/self/{shopId}/licenses/{licenseId}/reset',
} as const;

const actionDone: Record<Action, string> = strings.license.actionDone;

/** One licence: its facts, its actions (disable or enable, extend, reset, revoke) and every activation. */
export default function LicenseScreen() {
  const { dateTime } = useShopDates();
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
      {strings.license.licenses}
    </Link>
  );
  if (license.error)
    return (
      <Page title={strings.common.license} back={back}>
        <LoadError error={license.error} retry={() => license.refetch()} />
      </Page>
    );
  if (!license.data)
    return (
      <Page title={strings.common.license} back={back}>
        <Loading />
      </Page>
    );
  const l = license.data;
  const revoked = l.status === 'revoked';
  const live = l.activations.filter((a) => a.deactivatedAt === null).length;

  return (
    <Page
      title={strings.license.license(l.licenseKey)}
      back={back}
      actions={
        revoked ? null : (
          <div className="licenses-actions">
            {l.status === 'disabled' ? (
              <button type="button" className="btn" disabled={act.isPending} onClick={() => act.mutate('enable')}>
                {strings.license.enable}
              </button>
            ) : (
              <ConfirmButton
                label={strings.license.disable}
                question={strings.license.disableThisLicenseIt}
                onConfirm={() => act.mutate('disable')}
                disabled={act.isPending}
              />
            )}
            <button type="button" className="btn" disabled={act.isPending} onClick={() => setExtending(true)}>
              {strings.license.extendChoose}
            </button>
            <ConfirmButton
              label={strings.license.resetActivations}
              question={strings.license.deactivateAllInstanceS(live)}
              onConfirm={() => act.mutate('reset')}
              disabled={act.isPending || live === 0}
            />
            <ConfirmButton
              label={strings.common.revoke}
              danger
              question={strings.license.revokeThisLicenseFor}
              onConfirm={() => act.mutate('revoke')}
              disabled={act.isPending}
            />
          </div>
        )
      }
    >
      <div className="stack">
        <FormError error={act.error} />
        {revoked ? <p className="alert alert-info">{strings.license.thisLicenseIsRevoked}</p> : null}
        <Card title={strings.common.license}>
          <dl className="licenses-facts">
            <dt>{strings.common.key}</dt>
            <dd className="row">
              <code className="licenses-key">{l.licenseKey}</code>
              <CopyButton text={l.licenseKey} label={strings.common.copyKey} />
            </dd>
            <dt>{strings.common.status}</dt>
            <dd>
              <Badge tone={licenseStatusTones[l.status]}>{licenseStatusLabels[l.status]}</Badge>
            </dd>
            <dt>{strings.common.activations}</dt>
            <dd>{activationText(l)}</dd>
            <dt>{strings.common.expires}</dt>
            <dd>
              <ShopTime iso={l.expiresAt} none={strings.common.never} />
            </dd>
            <dt>{strings.common.product}</dt>
            <dd>
              <Link href={shopPath(`/products/${l.productId}`)}>
                {names.data?.get(l.productId) ?? strings.license.product(l.productId)}
              </Link>
            </dd>
            <dt>{strings.common.order}</dt>
            <dd>
              <Link href={shopPath(`/orders/${encodeURIComponent(l.invoiceId)}`)}>
                <code>{l.invoiceId}</code>
              </Link>
            </dd>
            <dt>{strings.common.buyer}</dt>
            <dd>
              <a href={`mailto:${l.email}`}>{l.email}</a>
              {' · '}
              <Link href={shopPath(`/licenses?email=${encodeURIComponent(l.email)}`)}>
                {strings.license.theirLicenses}
              </Link>
              {l.customerId ? (
                <>
                  {' · '}
                  <Link href={shopPath(`/customers/${l.customerId}`)}>{strings.common.customer}</Link>
                </>
              ) : null}
            </dd>
            <dt>{strings.common.issued}</dt>
            <dd>
              <ShopTime iso={l.createdAt} />
            </dd>
            <dt>{strings.common.updated}</dt>
            <dd>
              <ShopTime iso={l.updatedAt} />
            </dd>
          </dl>
        </Card>
        <Card title={strings.common.activations}>
          <div className="table-wrap">
            <table className="table">
              <caption className="sr-only">{strings.license.activationsOfTheLicense}</caption>
              <thead>
                <tr>
                  <th>{strings.license.instance}</th>
                  <th>{strings.license.instanceId}</th>
                  <th>{strings.license.activated}</th>
                  <th>{strings.common.state}</th>
                </tr>
              </thead>
              <tbody>
                {l.activations.length === 0 ? (
                  <tr>
                    <td colSpan={4} className="empty">
                      {strings.license.neverActivated}
                    </td>
                  </tr>
                ) : (
                  l.activations.map((a) => (
                    <tr key={a.id}>
                      <td data-label={strings.license.instance}>{a.name}</td>
                      <td data-label={strings.license.instanceId}>
                        <code className="small">{a.id}</code>
                      </td>
                      <td data-label={strings.license.activated}>
                        <ShopTime iso={a.createdAt} />
                      </td>
                      <td data-label={strings.common.state}>
                        {a.deactivatedAt ? (
                          <span className="muted">{strings.license.deactivated(dateTime(a.deactivatedAt))}</span>
                        ) : (
                          <Badge tone="ok">{strings.common.active}</Badge>
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
      <Dialog open={extending} onClose={() => setExtending(false)} title={strings.license.extendTheLicense}>
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
  const { dateTime, endOfDay } = useShopDates();
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
      addDays: values.how === 'days' && values.addDays.trim() === '' ? strings.license.enterTheNumberOf : undefined,
      date: values.how === 'date' && values.date === '' ? strings.license.chooseTheNewEnd : undefined,
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
      notify(strings.license.licenseExtended);
      props.onDone(next);
    },
  });
  const how = form.watch('how');
  return (
    <form className="stack" noValidate onSubmit={form.submit(extend.mutateAsync)}>
      <p className="muted">
        {strings.license.now}{' '}
        {license.expiresAt ? strings.license.itExpires(dateTime(license.expiresAt)) : strings.license.itNeverExpires}
        {strings.license.tokensAlreadyIssuedKeep}
      </p>
      <FormProblems form={form} error={extend.error} />
      <fieldset className="licenses-choice">
        <legend>{strings.license.newEnd}</legend>
        <label className="check">
          <input type="radio" value="days" {...form.register('how')} disabled={!license.expiresAt} />
          {strings.license.addDaysToThe}
          {license.expiresAt ? '' : strings.license.itHasNone}
        </label>
        <label className="check">
          <input type="radio" value="date" {...form.register('how')} />
          {strings.license.endOnADate}
        </label>
        <label className="check">
          <input type="radio" value="never" {...form.register('how')} />
          {strings.license.neverExpire}
        </label>
      </fieldset>
      {how === 'days' ? (
        <Field
          label={strings.license.daysToAdd}
          error={form.problem('addDays')}
          hint={strings.license.countedFromNowIf}
        >
          {(ids) => <input {...ids} {...form.register('addDays')} className="input" inputMode="numeric" />}
        </Field>
      ) : null}
      {how === 'date' ? (
        <Field label={strings.license.newEndDate} error={form.problem('date')} hint={strings.license.theLicenseEndsAt}>
          {(ids) => <input {...ids} {...form.register('date')} type="date" className="input" />}
        </Field>
      ) : null}
      <div className="row">
        <button type="submit" className="btn btn-primary" disabled={extend.isPending}>
          {extend.isPending ? strings.common.saving : strings.license.extend}
        </button>
        <button type="button" className="btn btn-ghost" onClick={props.onClose}>
          {strings.common.close}
        </button>
      </div>
    </form>
  );
}
