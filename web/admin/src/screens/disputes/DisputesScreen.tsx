import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { useShop, useShopPath } from '../../app/shop';
import { dateTime } from '../../ui/format';
import { DataTable } from '../../ui/list';
import { Badge, LoadError, Page } from '../../ui/Page';
import { type DisputeStatus, disputeAmount, disputeStatusLabels, disputeStatusTones } from './disputes';

/** The payment disputes (chargebacks) Stripe reported, newest first. */
export default function DisputesScreen() {
  const { shopId } = useShop();
  const shopPath = useShopPath();
  const disputes = useQuery({
    queryKey: ['disputes', shopId, 'list'],
    queryFn: () =>
      unwrap(
        api.GET('/self/{shopId}/disputes', { params: { path: { shopId }, query: { pageNumber: 1, pageSize: 100 } } }),
      ),
  });
  return (
    <Page title="Disputes">
      {disputes.error ? <LoadError error={disputes.error} retry={() => disputes.refetch()} /> : null}
      <DataTable
        caption="Disputes"
        rows={disputes.data?.items ?? []}
        loading={disputes.isLoading}
        rowKey={(d) => d.id}
        href={(d) => shopPath(`/disputes/${d.id}`)}
        empty="No disputes. When a buyer disputes a card payment, Stripe reports it and it shows here with its evidence."
        columns={[
          {
            header: 'Status',
            cell: (d) => (
              <Badge tone={disputeStatusTones[d.status as DisputeStatus]}>
                {disputeStatusLabels[d.status as DisputeStatus]}
              </Badge>
            ),
          },
          { header: 'Order', cell: (d) => <code>{d.invoiceId}</code> },
          { header: 'Reason', cell: (d) => d.reason },
          { header: 'Amount', className: 'num', cell: (d) => disputeAmount(d) },
          {
            header: 'Evidence',
            cell: (d) => (d.evidenceSubmittedAt ? `Submitted ${dateTime(d.evidenceSubmittedAt)}` : 'Not submitted'),
          },
          { header: 'Opened', cell: (d) => dateTime(d.createdAt) },
        ]}
      />
    </Page>
  );
}
