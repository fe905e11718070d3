import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'wouter';
import { api, unwrap } from '../../api/client';
import { useShopPath } from '../../app/shop';
import { ShopTime, useShopDates } from '../../app/shop-dates';
import { strings } from '../../strings';
import { ConfirmButton } from '../../ui/Dialog';
import { FormError } from '../../ui/Field';
import { Badge, Card, LoadError, Loading, Page } from '../../ui/Page';
import { useToast } from '../../ui/Toast';
import { type DisputeStatus, disputeAmount, disputeStatusLabels, disputeStatusTones } from './disputes';

/** One dispute: its facts, the evidence shopd assembled, and its submission to Stripe. */
export default function DisputeScreen() {
  const { dateTime } = useShopDates();
  const params = useParams<{ shopId: string; disputeId: string }>();
  const shopId = Number(params.shopId);
  const disputeId = Number(params.disputeId);
  const shopPath = useShopPath();
  const notify = useToast();
  const queryClient = useQueryClient();
  const key = ['disputes', shopId, disputeId];
  const dispute = useQuery({
    queryKey: key,
    queryFn: () => unwrap(api.GET('/self/{shopId}/disputes/{disputeId}', { params: { path: { shopId, disputeId } } })),
  });
  const submit = useMutation({
    mutationFn: () =>
      unwrap(api.POST('/self/{shopId}/disputes/{disputeId}/submit', { params: { path: { shopId, disputeId } } })),
    onSuccess: (next) => {
      notify(strings.dispute.evidenceSubmittedToStripe);
      queryClient.setQueryData(key, next);
      void queryClient.invalidateQueries({ queryKey: ['disputes', shopId, 'list'] });
    },
    onError: () => void dispute.refetch(),
  });
  const back = (
    <Link href={shopPath('/disputes')} className="small">
      {strings.dispute.disputes}
    </Link>
  );
  if (dispute.error)
    return (
      <Page title={strings.dispute.dispute} back={back}>
        <LoadError error={dispute.error} retry={() => dispute.refetch()} />
      </Page>
    );
  if (!dispute.data)
    return (
      <Page title={strings.dispute.dispute} back={back}>
        <Loading />
      </Page>
    );
  const d = dispute.data;
  const e = d.evidence;
  const open = d.status === 'needs_response' || d.status === 'under_review';
  return (
    <Page
      title={strings.dispute.disputeId(d.providerDisputeId)}
      back={back}
      actions={
        d.evidenceSubmittedAt === null && open ? (
          <ConfirmButton
            label={strings.dispute.submitEvidence}
            question={strings.dispute.sendThisEvidenceTo}
            onConfirm={() => submit.mutate()}
            disabled={submit.isPending}
          />
        ) : null
      }
    >
      {submit.error ? <FormError error={submit.error} /> : null}
      <Card title={strings.dispute.dispute}>
        <dl className="facts">
          <dt>{strings.common.status}</dt>
          <dd>
            <Badge tone={disputeStatusTones[d.status as DisputeStatus]}>
              {disputeStatusLabels[d.status as DisputeStatus]}
            </Badge>
          </dd>
          <dt>{strings.common.order}</dt>
          <dd>
            <Link href={shopPath(`/orders/${d.invoiceId}`)}>{d.invoiceId}</Link>
          </dd>
          <dt>{strings.common.reason}</dt>
          <dd>{d.reason}</dd>
          <dt>{strings.common.amount}</dt>
          <dd>{disputeAmount(d)}</dd>
          <dt>{strings.common.opened}</dt>
          <dd>
            <ShopTime iso={d.createdAt} />
          </dd>
          <dt>{strings.common.evidence}</dt>
          <dd>
            {d.evidenceSubmittedAt
              ? strings.dispute.submitted(dateTime(d.evidenceSubmittedAt))
              : strings.dispute.notSubmitted}
          </dd>
          {d.submitError ? (
            <>
              <dt>{strings.dispute.lastSubmissionFailed}</dt>
              <dd>{d.submitError}</dd>
            </>
          ) : null}
        </dl>
      </Card>
      <Card title={strings.dispute.buyerAndOrder}>
        <dl className="facts">
          <dt>{strings.common.eMail}</dt>
          <dd>{e.customer.email}</dd>
          <dt>{strings.dispute.purchaseIp}</dt>
          <dd>{e.customer.purchaseIp ?? '—'}</dd>
          <dt>{strings.common.browser}</dt>
          <dd>{e.customer.purchaseUserAgent ?? '—'}</dd>
          <dt>{strings.dispute.ordered}</dt>
          <dd>
            <ShopTime iso={e.order.createdAt} />
          </dd>
          <dt>{strings.dispute.delivered}</dt>
          <dd>
            <ShopTime iso={e.delivered.at} none={strings.dispute.notDelivered} />
            {e.delivered.items.length > 0
              ? `: ${e.delivered.items.map((i) => `${i.quantity} × ${i.title}`).join(', ')}`
              : ''}
          </dd>
        </dl>
      </Card>
      <Card title={strings.dispute.viewsOfTheInvoice(e.invoiceViews.length)}>
        <Sightings
          rows={e.invoiceViews.map((v) => ({ ...v, what: strings.dispute.viewed }))}
          empty={strings.dispute.theBuyerNeverOpened}
        />
      </Card>
      <Card title={strings.dispute.downloads(e.downloads.length)}>
        <Sightings
          rows={e.downloads.map((v) => ({ ...v, what: v.file }))}
          empty={strings.dispute.noFileWasDownloaded}
        />
      </Card>
      <Card title={strings.dispute.licenseActivations(e.licenseActivations.length)}>
        {e.licenseActivations.length === 0 ? (
          <p className="muted">{strings.dispute.noLicenseWasActivated}</p>
        ) : (
          <ul>
            {e.licenseActivations.map((a) => (
              <li key={`${a.licenseId}-${a.activatedAt}-${a.instance}`}>
                {strings.dispute.licenseOn(dateTime(a.activatedAt), a.licenseId, a.instance)}
                {a.deactivatedAt ? strings.dispute.until(dateTime(a.deactivatedAt)) : ''}
              </li>
            ))}
          </ul>
        )}
      </Card>
      <Card title={strings.common.termsOfService}>
        {e.terms ? <pre className="pre-wrap">{e.terms}</pre> : <p className="muted">{strings.dispute.theShopHasNo}</p>}
      </Card>
    </Page>
  );
}

function Sightings(props: {
  rows: { at: string; ip: string | null; userAgent: string | null; what: string }[];
  empty: string;
}) {
  if (props.rows.length === 0) return <p className="muted">{props.empty}</p>;
  return (
    <div className="table-wrap">
      <table className="table">
        <thead>
          <tr>
            <th>{strings.common.when}</th>
            <th>{strings.dispute.what}</th>
            <th>{strings.common.ip}</th>
            <th>{strings.common.browser}</th>
          </tr>
        </thead>
        <tbody>
          {props.rows.map((r, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: a log in a fixed order, never reordered
            <tr key={i}>
              <td>
                <ShopTime iso={r.at} />
              </td>
              <td>{r.what}</td>
              <td>{r.ip ?? '—'}</td>
              <td>{r.userAgent ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
