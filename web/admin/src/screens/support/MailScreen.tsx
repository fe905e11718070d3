import { api, unwrap } from '../../api/client';
import { type ListQuery, useList } from '../../api/queries/list';
import type { paths } from '../../api/schema';
import { useShopId } from '../../app/shop';
import { ShopTime } from '../../app/shop-dates';
import { strings } from '../../strings';
import { DataTable, FilterSelect, Pager, SearchBox } from '../../ui/list';
import { Badge, LoadError, Page } from '../../ui/Page';

type OutboxPage = paths['/self/{shopId}/mail']['get']['responses'][200]['content']['application/json']['data'];
type Mail = OutboxPage['items'][number];
type Status = NonNullable<paths['/self/{shopId}/mail']['get']['parameters']['query']>['status'];

const statusLabels: Record<Mail['status'], string> = strings.mail.statusLabels;
const statusTones = { pending: 'info', sending: 'info', sent: 'ok', failed: 'bad', dropped: 'muted' } as const;

const statusOptions = [
  ['suppressed', strings.mail.heldBackByA],
  ['sent', statusLabels.sent],
  ['pending', statusLabels.pending],
  ['failed', statusLabels.failed],
  ['dropped', strings.mail.notSentAnyReason],
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
    <Page title={strings.common.mail}>
      <p className="muted">{strings.mail.whatThisShopMailed}</p>
      <div className="toolbar">
        <SearchBox value={list.search} onChange={list.setSearch} label={strings.mail.searchRecipientOrSubject} />
        <FilterSelect list={list} name="status" label={strings.common.status} options={statusOptions} />
      </div>
      {list.result.error ? <LoadError error={list.result.error} retry={() => list.result.refetch()} /> : null}
      <DataTable
        caption={strings.common.mail}
        rows={list.rows}
        list={list}
        loading={list.result.isLoading}
        rowKey={(m) => m.id}
        empty={filtered ? strings.mail.noMailMatchesThese : strings.mail.noMailYet}
        columns={[
          { header: strings.common.to, cell: (m) => m.to },
          { header: strings.common.subject, cell: (m) => m.subject },
          {
            header: strings.common.status,
            cell: (m) => (
              <Badge tone={m.suppressed ? 'warn' : statusTones[m.status]}>
                {m.suppressed ? strings.mail.heldBack : statusLabels[m.status]}
              </Badge>
            ),
          },
          { header: strings.mail.why, cell: (m) => (m.status === 'sent' ? '' : (m.reason ?? '')) },
          { header: strings.mail.written, cell: (m) => <ShopTime iso={m.createdAt} /> },
        ]}
      />
      <Pager list={list} />
    </Page>
  );
}
