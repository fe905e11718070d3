import { api, unwrap } from '../../api/client';
import { type ListQuery, useList } from '../../api/queries/list';
import type { paths } from '../../api/schema';
import { useShopId } from '../../app/shop';
import { dateTime } from '../../ui/format';
import { DataTable, FilterSelect, Pager, SearchBox } from '../../ui/list';
import { Badge, LoadError, Page } from '../../ui/Page';

type OutboxPage = paths['/self/{shopId}/mail']['get']['responses'][200]['content']['application/json']['data'];
type Mail = OutboxPage['items'][number];
type Status = NonNullable<paths['/self/{shopId}/mail']['get']['parameters']['query']>['status'];

const statusLabels: Record<Mail['status'], string> = {
  pending: 'Waiting',
  sending: 'Sending',
  sent: 'Sent',
  failed: 'Failed',
  dropped: 'Not sent',
};
const statusTones = { pending: 'info', sending: 'info', sent: 'ok', failed: 'bad', dropped: 'muted' } as const;

const statusOptions = [
  ['suppressed', 'Held back by a mail budget'],
  ['sent', statusLabels.sent],
  ['pending', statusLabels.pending],
  ['failed', statusLabels.failed],
  ['dropped', 'Not sent (any reason)'],
] as const;

/**
 * Everything the shop mailed or was to mail, newest first: the outbox (GET /self/{shopId}/mail).
 * A mail the shop's budgets held back (Settings → Protection) shows here with the budget that
 * held it; the bodies are never shown (a delivery carries the goods).
 */
export default function MailScreen() {
  const shopId = useShopId();
  const list = useList<Mail>(
    ['mail', shopId],
    (query: ListQuery) =>
      unwrap(
        api.GET('/self/{shopId}/mail', {
          params: {
            path: { shopId },
            query: {
              pageNumber: query.pageNumber ?? 1,
              pageSize: query.pageSize,
              searchString: query.searchString,
              status: query.status as Status,
            },
          },
        }),
      ),
    { filters: ['status'] },
  );
  const filtered = Object.keys(list.filters).length > 0 || list.search !== '';
  return (
    <Page title="Mail">
      <p className="muted">
        What this shop mailed buyers. A mail over one of the shop's mail budgets (Settings → Protection) is not sent,
        and shows here with the budget that held it back; the order or ticket was still made.
      </p>
      <div className="toolbar">
        <SearchBox value={list.search} onChange={list.setSearch} label="Search recipient or subject" />
        <FilterSelect list={list} name="status" label="Status" options={statusOptions} />
      </div>
      {list.result.error ? <LoadError error={list.result.error} retry={() => list.result.refetch()} /> : null}
      <DataTable
        caption="Mail"
        rows={list.rows}
        list={list}
        loading={list.result.isLoading}
        rowKey={(m) => m.id}
        empty={filtered ? 'No mail matches these filters.' : 'No mail yet.'}
        columns={[
          { header: 'To', cell: (m) => m.to },
          { header: 'Subject', cell: (m) => m.subject },
          {
            header: 'Status',
            cell: (m) => (
              <Badge tone={m.suppressed ? 'warn' : statusTones[m.status]}>
                {m.suppressed ? 'Held back' : statusLabels[m.status]}
              </Badge>
            ),
          },
          { header: 'Why', cell: (m) => (m.status === 'sent' ? '' : (m.reason ?? '')) },
          { header: 'Written', cell: (m) => dateTime(m.createdAt) },
        ]}
      />
      <Pager list={list} />
    </Page>
  );
}
