import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'wouter';
import { api, unwrap } from '../../api/client';
import { useShopPath } from '../../app/shop';
import { ConfirmButton } from '../../ui/Dialog';
import { FormError } from '../../ui/Field';
import { dateTime } from '../../ui/format';
import { Badge, Card, LoadError, Loading, Page } from '../../ui/Page';
import { useToast } from '../../ui/Toast';
import { type DisputeStatus, disputeAmount, disputeStatusLabels, disputeStatusTones } from './disputes';

/** One dispute: its facts, the evidence shopd assembled, and its submission to Stripe. */
export default function DisputeScreen() {
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
      notify('Evidence submitted to Stripe');
      queryClient.setQueryData(key, next);
      void queryClient.invalidateQueries({ queryKey: ['disputes', shopId, 'list'] });
    },
    onError: () => void dispute.refetch(),
  });
  const back = (
    <Link href={shopPath('/disputes')} className="small">
      ← Disputes
    </Link>
  );
  if (dispute.error)
    return (
      <Page title="Dispute" back={back}>
        <LoadError error={dispute.error} retry={() => dispute.refetch()} />
      </Page>
    );
  if (!dispute.data)
    return (
      <Page title="Dispute" back={back}>
        <Loading />
      </Page>
    );
  const d = dispute.data;
  const e = d.evidence;
  const open = d.status === 'needs_response' || d.status === 'under_review';
  return (
    <Page
      title={`Dispute ${d.providerDisputeId}`}
      back={back}
      actions={
        d.evidenceSubmittedAt === null && open ? (
          <ConfirmButton
            label="Submit evidence"
            question="Send this evidence to Stripe and submit it to the bank? Stripe accepts one submission per dispute."
            onConfirm={() => submit.mutate()}
            disabled={submit.isPending}
          />
        ) : null
      }
    >
      {submit.error ? <FormError error={submit.error} /> : null}
      <Card title="Dispute">
        <dl className="facts">
          <dt>Status</dt>
          <dd>
            <Badge tone={disputeStatusTones[d.status as DisputeStatus]}>
              {disputeStatusLabels[d.status as DisputeStatus]}
            </Badge>
          </dd>
          <dt>Order</dt>
          <dd>
            <Link href={shopPath(`/orders/${d.invoiceId}`)}>{d.invoiceId}</Link>
          </dd>
          <dt>Reason</dt>
          <dd>{d.reason}</dd>
          <dt>Amount</dt>
          <dd>{disputeAmount(d)}</dd>
          <dt>Opened</dt>
          <dd>{dateTime(d.createdAt)}</dd>
          <dt>Evidence</dt>
          <dd>{d.evidenceSubmittedAt ? `Submitted ${dateTime(d.evidenceSubmittedAt)}` : 'Not submitted'}</dd>
          {d.submitError ? (
            <>
              <dt>Last submission failed</dt>
              <dd>{d.submitError}</dd>
            </>
          ) : null}
        </dl>
      </Card>
      <Card title="Buyer and order">
        <dl className="facts">
          <dt>E-mail</dt>
          <dd>{e.customer.email}</dd>
          <dt>Purchase IP</dt>
          <dd>{e.customer.purchaseIp ?? '—'}</dd>
          <dt>Browser</dt>
          <dd>{e.customer.purchaseUserAgent ?? '—'}</dd>
          <dt>Ordered</dt>
          <dd>{dateTime(e.order.createdAt)}</dd>
          <dt>Delivered</dt>
          <dd>
            {e.delivered.at ? dateTime(e.delivered.at) : 'Not delivered'}
            {e.delivered.items.length > 0
              ? `: ${e.delivered.items.map((i) => `${i.quantity} × ${i.title}`).join(', ')}`
              : ''}
          </dd>
        </dl>
      </Card>
      <Card title={`Views of the invoice page (${e.invoiceViews.length})`}>
        <Sightings
          rows={e.invoiceViews.map((v) => ({ ...v, what: 'Viewed' }))}
          empty="The buyer never opened the invoice page."
        />
      </Card>
      <Card title={`Downloads (${e.downloads.length})`}>
        <Sightings rows={e.downloads.map((v) => ({ ...v, what: v.file }))} empty="No file was downloaded." />
      </Card>
      <Card title={`License activations (${e.licenseActivations.length})`}>
        {e.licenseActivations.length === 0 ? (
          <p className="muted">No license was activated.</p>
        ) : (
          <ul>
            {e.licenseActivations.map((a) => (
              <li key={`${a.licenseId}-${a.activatedAt}-${a.instance}`}>
                {dateTime(a.activatedAt)}: license #{a.licenseId} on “{a.instance}”
                {a.deactivatedAt ? ` (until ${dateTime(a.deactivatedAt)})` : ''}
              </li>
            ))}
          </ul>
        )}
      </Card>
      <Card title="Terms of service">
        {e.terms ? <pre className="pre-wrap">{e.terms}</pre> : <p className="muted">The shop has no terms.</p>}
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
            <th>When</th>
            <th>What</th>
            <th>IP</th>
            <th>Browser</th>
          </tr>
        </thead>
        <tbody>
          {props.rows.map((r, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: a log in a fixed order, never reordered
            <tr key={i}>
              <td>{dateTime(r.at)}</td>
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
