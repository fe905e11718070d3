import { Link, useSearchParams } from 'wouter';
import { type TicketSummary as Ticket, type TicketStatus, useTicketList } from '../../api/queries/tickets';
import { useShopId, useShopPath } from '../../app/shop';
import { dateTime } from '../../ui/format';
import { DataTable, Pager, SearchBox } from '../../ui/list';
import { Badge, LoadError, Page } from '../../ui/Page';
import './support.css';

export const ticketStatusLabels: Record<TicketStatus, string> = {
  open: 'Awaiting answer',
  answered: 'Answered',
  closed: 'Closed',
};
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
  ['all', 'All'],
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
    <Page title="Tickets">
      <nav className="support-tabs" aria-label="Ticket status">
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
        <SearchBox value={list.search} onChange={list.setSearch} label="Search subject or e-mail" />
      </div>
      {list.result.error ? <LoadError error={list.result.error} retry={() => list.result.refetch()} /> : null}
      <DataTable
        caption="Tickets"
        rows={list.rows}
        list={list}
        loading={list.result.isLoading}
        rowKey={(t) => t.id}
        href={(t) => shopPath(`/tickets/${t.id}`)}
        empty={tab === '' ? 'No ticket is waiting for an answer.' : 'No tickets here.'}
        columns={[
          { header: 'Subject', cell: (t) => t.title },
          { header: 'Customer', cell: (t) => t.email },
          {
            header: 'Status',
            cell: (t) => <Badge tone={ticketStatusTones[t.status]}>{ticketStatusLabels[t.status]}</Badge>,
          },
          { header: 'Last message', cell: (t) => <LastMessage ticket={t} /> },
          { header: 'Messages', className: 'num', cell: (t) => t.messages.length },
          { header: 'Last activity', cell: (t) => dateTime(t.updatedAt) },
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
      <span className="muted">{last.author === 'shop' ? 'You: ' : 'Customer: '}</span>
      {last.content}
    </span>
  );
}
