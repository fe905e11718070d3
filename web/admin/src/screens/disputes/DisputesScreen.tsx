import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { useShop, useShopPath } from '../../app/shop';
import { ShopTime, useShopDates } from '../../app/shop-dates';
import { strings } from '../../strings';
import { DataTable } from '../../ui/list';
import { Badge, LoadError, Page } from '../../ui/Page';
import { type DisputeStatus, disputeAmount, disputeStatusLabels, disputeStatusTones } from './disputes';

/** The payment disputes (chargebacks) Stripe reported, newest first. */
export default function DisputesScreen() {
  const { dateTime } = useShopDates();
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
    <Page title={strings.common.disputes}>
      {disputes.error ? <LoadError error={disputes.error} retry={() => disputes.refetch()} /> : null}
      <DataTable
        caption={strings.common.disputes}
        rows={disputes.data?.items ?? []}
        loading={disputes.isLoading}
        rowKey={(d) => d.id}
        href={(d) => shopPath(`/disputes/${d.id}`)}
        empty={strings.disputes.noDisputesWhenA}
        columns={[
          {
            header: strings.common.status,
            cell: (d) => (
              <Badge tone={disputeStatusTones[d.status as DisputeStatus]}>
                {disputeStatusLabels[d.status as DisputeStatus]}
              </Badge>
            ),
          },
          { header: strings.common.order, cell: (d) => <code>{d.invoiceId}</code> },
          { header: strings.common.reason, cell: (d) => d.reason },
          { header: strings.common.amount, className: 'num', cell: (d) => disputeAmount(d) },
          {
            header: strings.common.evidence,
            cell: (d) =>
              d.evidenceSubmittedAt
                ? strings.disputes.submitted(dateTime(d.evidenceSubmittedAt))
                : strings.disputes.notSubmitted,
          },
          { header: strings.common.opened, cell: (d) => <ShopTime iso={d.createdAt} /> },
        ]}
      />
    </Page>
  );
}
