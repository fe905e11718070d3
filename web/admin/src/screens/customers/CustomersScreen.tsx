import { Link } from 'wouter';
import { ApiError } from '../../api/client';
import { type Customer, useCustomerList, useCustomerStats } from '../../api/queries/customers';
import type { ListState } from '../../api/queries/list';
import { useShop, useShopPath } from '../../app/shop';
import { ShopTime, useShopDates } from '../../app/shop-dates';
import { strings } from '../../strings';
import { FormError } from '../../ui/Field';
import { count, money } from '../../ui/format';
import { DataTable, Pager, SearchBox } from '../../ui/list';
import { Card, LoadError, Loading, Page } from '../../ui/Page';
import './customers.css';

export default function CustomersScreen() {
  const { shopId } = useShop();
  const shopPath = useShopPath();
  const list = useCustomerList(shopId);
  const filtered = Object.keys(list.filters).length > 0 || list.search !== '';

  return (
    <Page title={strings.common.customers}>
      <div className="stack">
        <CustomerStats shopId={shopId} fromDate={list.filters.fromDate} toDate={list.filters.toDate} />
        <div className="toolbar">
          <SearchBox value={list.search} onChange={list.setSearch} label={strings.customers.searchByEMail} />
          <DateFilter list={list} name="fromDate" label={strings.customers.joinedFrom} />
          <DateFilter list={list} name="toDate" label={strings.customers.joinedTo} />
        </div>
        {list.result.error instanceof ApiError && list.result.error.status === 400 ? (
          <FormError error={list.result.error} />
        ) : list.result.error ? (
          <LoadError error={list.result.error} retry={() => list.result.refetch()} />
        ) : null}
        <DataTable
          caption={strings.common.customers}
          rows={list.rows}
          list={list}
          loading={list.result.isLoading}
          rowKey={(c) => c.id}
          href={(c) => shopPath(`/customers/${c.id}`)}
          empty={filtered ? strings.customers.noCustomerMatches : strings.customers.noCustomersYetThey}
          columns={[
            { header: strings.common.eMail, sort: 'email', cell: (c) => c.email },
            { header: strings.common.orders, className: 'num', cell: (c) => count(c.ordersCount) },
            { header: strings.common.totalSpent, className: 'num', cell: (c) => money(c.totalSpent, c.currency) },
            {
              header: strings.common.balance,
              className: 'num',
              sort: 'balance',
              cell: (c) => money(c.balance, c.currency),
            },
            { header: strings.customers.joined, sort: 'createdAt', cell: (c) => <ShopTime iso={c.createdAt} date /> },
            { header: strings.common.lastOrder, cell: (c) => <ShopTime iso={c.lastOrderAt} /> },
          ]}
        />
        <Pager list={list} />
      </div>
    </Page>
  );
}

function DateFilter(props: { list: ListState<Customer>; name: 'fromDate' | 'toDate'; label: string }) {
  const { list } = props;
  return (
    <label className="customers-date">
      <span>{props.label}</span>
      <input
        type="date"
        className="input"
        value={list.filters[props.name] ?? ''}
        onChange={(e) => list.setFilter(props.name, e.target.value || undefined)}
      />
    </label>
  );
}

/** The figures of `/customers/stats`, over the list's dates when set (else the API's last 30 days). */
function CustomerStats(props: { shopId: number; fromDate: string | undefined; toDate: string | undefined }) {
  const { date } = useShopDates();
  const { shopId } = props;
  const shopPath = useShopPath();
  const range = {
    ...(props.fromDate ? { fromDate: props.fromDate } : {}),
    ...(props.toDate ? { toDate: props.toDate } : {}),
  };
  const stats = useCustomerStats(shopId, range);
  if (stats.error) return <LoadError error={stats.error} retry={() => stats.refetch()} />;
  if (!stats.data) return <Loading label={strings.common.loadingTheFigures} />;
  const s = stats.data;
  return (
    <Card title={`${date(s.fromDate)} – ${date(s.toDate)}`}>
      <div className="grid">
        <div className="stat">
          <span className="stat-value">{count(s.totalCustomers)}</span>
          <span className="stat-label">{strings.customers.customersInAll}</span>
        </div>
        <div className="stat">
          <span className="stat-value">{count(s.newCustomers)}</span>
          <span className="stat-label">{strings.customers.newInThePeriod}</span>
        </div>
        <div className="stat">
          <span className="stat-value">{count(s.returningCustomers)}</span>
          <span className="stat-label">{strings.customers.returningInThePeriod}</span>
        </div>
        <div className="stat">
          <span className="stat-value">{money(s.totalBalance, s.currency)}</span>
          <span className="stat-label">{strings.customers.balancesHeldNow}</span>
        </div>
      </div>
      {s.topCustomers.length > 0 ? (
        <details className="customers-top">
          <summary>{strings.customers.topCustomersOfThe}</summary>
          <ol>
            {s.topCustomers.map((c) => (
              <li key={c.customerId}>
                <Link href={shopPath(`/customers/${c.customerId}`)}>{c.email}</Link>{' '}
                <span className="muted">
                  {money(c.totalSpent, s.currency)} · {count(c.orders)} {strings.common.ordersWord(c.orders)}
                </span>
              </li>
            ))}
          </ol>
        </details>
      ) : null}
    </Card>
  );
}
