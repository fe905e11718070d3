import { Link, useSearchParams } from 'wouter';
import { type TicketSummary as Ticket, type TicketStatus, useTicketList } from '../../api/queries/tickets';
import { useShopId, useShopPath } from '../../app/shop';
import { ShopTime } from '../../app/shop-dates';
import { strings } from '../../strings';
import { DataTable, Pager, SearchBox } from '../../ui/list';
import { Badge, LoadError, Page } from '../../ui/Page';
import './support.css';

export const ticketStatusLabels: Record<TicketStatus, string> = strings.tickets.statusLabels;
export const ticketStatusTones = { open: 'warn', answered: 'info', closed: 'muted' } as const;

/**
 * The inbox tabs. The API lists tickets by latest activity and cannot order by "waiting for
 * us", so the inbox opens on the `open` status (the customer wrote last) and the other
 * statuses are tabs; `all` drops the filter.
 */
const tabs: readonly (readonly [value: string, label: string])[] = [
  ['', ticketStatusLabels.open],
  ['answered', ticketStatusLabels.answered],
  ['closed', ticketStatusLabels.closed],
  ['all', strings.tickets.all],
];

function statusFilter(tab: string | number | undefined): TicketStatus | undefined {
  if (tab === 'all') return undefined;
  if (tab === 'answered' || tab === 'closed') return tab;
  return 'open';
}

export default function TicketsScreen() {
  const shopId = useShopId();
  const shopPath = useShopPath();
  const [params] = useSearchParams();
  const list = useTicketList(shopId, statusFilter);
  const tab = list.filters.status ?? '';
  const search = params.get('q');

  return (
    <Page title={strings.common.tickets}>
      <nav className="support-tabs" aria-label={strings.tickets.ticketStatus}>
        {tabs.map(([value, label]) => {
          const next = new URLSearchParams();
          if (value) next.set('status', value);
          if (search) next.set('q', search);
          const query = next.toString();
          return (
            <Link
              key={value}
              href={shopPath(`/tickets${query ? `?${query}` : ''}`)}
              aria-current={tab === value ? 'page' : undefined}
            >
              {label}
            </Link>
          );
        })}
      </nav>
      <div className="toolbar">
        <SearchBox value={list.search} onChange={list.setSearch} label={strings.tickets.searchSubjectOrE} />
      </div>
      {list.result.error ? <LoadError error={list.result.error} retry={() => list.result.refetch()} /> : null}
      <DataTable
        caption={strings.common.tickets}
        rows={list.rows}
        list={list}
        loading={list.result.isLoading}
        rowKey={(t) => t.id}
        href={(t) => shopPath(`/tickets/${t.id}`)}
        empty={tab === '' ? strings.tickets.noTicketIsWaiting : strings.tickets.noTicketsHere}
        columns={[
          { header: strings.common.subject, cell: (t) => t.title },
          { header: strings.common.customer, cell: (t) => t.email },
          {
            header: strings.common.status,
            cell: (t) => <Badge tone={ticketStatusTones[t.status]}>{ticketStatusLabels[t.status]}</Badge>,
          },
          { header: strings.tickets.lastMessage, cell: (t) => <LastMessage ticket={t} /> },
          { header: strings.tickets.messages, className: 'num', cell: (t) => t.messages.length },
          { header: strings.tickets.lastActivity, cell: (t) => <ShopTime iso={t.updatedAt} /> },
        ]}
      />
      <Pager list={list} />
    </Page>
  );
}

function LastMessage(props: { ticket: Ticket }) {
  const last = props.ticket.messages[props.ticket.messages.length - 1];
  if (!last) return <span className="muted">—</span>;
  return (
    <span className="support-snippet" title={last.content}>
      <span className="muted">{last.author === 'shop' ? strings.tickets.you : strings.tickets.customer}</span>
      {last.content}
    </span>
  );
}
