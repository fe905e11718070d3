import { lazy, Suspense, useMemo, useState } from 'react';
import { Link, useSearchParams } from 'wouter';
import { ApiError } from '../../api/client';
import { useAdvancedDashboard, useGeneralDashboard } from '../../api/queries/dashboard';
import { useShop, useShopPath } from '../../app/shop';
import { FormError } from '../../ui/Field';
import { count, money } from '../../ui/format';
import { Card, Loading, Page } from '../../ui/Page';
import { type AdvancedDashboard, BusiestHours, Gateways, TopProducts } from './Breakdowns';
import { RangePicker } from './RangePicker';
import { RealTime } from './RealTime';
import { type DashboardRange, dayLabel, rangeLabel, readRange, todayAt } from './range';
import { Stat } from './Stat';
import './dashboard.css';

// uPlot is fetched as soon as this screen's chunk runs, alongside the figures, not after them;
// the tiles do not wait for it.
const chartModule = import('./TimeChart');
const TimeChart = lazy(() => chartModule);

const percent = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 1 });
const rating = new Intl.NumberFormat(undefined, { minimumFractionDigits: 1, maximumFractionDigits: 2 });

export default function DashboardScreen() {
  const { shopId, shop, currency: shopCurrency } = useShop();
  const [params, setParams] = useSearchParams();
  // The range's days are the shop's; until the shop list is in, its timezone is unknown.
  const offset = shop?.utcTimezoneOffset;
  const range = offset === undefined ? null : readRange(params, offset);
  const query = range ? { fromDate: range.fromDate, toDate: range.toDate } : {};

  const general = useGeneralDashboard(shopId, query, range !== null);
  const advanced = useAdvancedDashboard(shopId, query, range !== null);

  const picker =
    range && offset !== undefined ? (
      <RangePicker
        range={range}
        today={todayAt(offset)}
        onPreset={(preset) => setParams(new URLSearchParams({ range: preset }))}
        onCustom={(from, to) => setParams(new URLSearchParams({ from, to }))}
      />
    ) : null;

  const g = general.data;
  const a = advanced.data;
  const currency = g?.currency ?? shopCurrency;
  const updating =
    (general.isFetching && general.isPlaceholderData) || (advanced.isFetching && advanced.isPlaceholderData);

  return (
    <Page title="Dashboard">
      {range ? (
        <div className="dash-toolbar">
          <p className="muted dash-range-label">
            {rangeLabel(range)}
            {updating ? (
              <span role="status" className="dash-updating">
                {' '}
                · Updating…
              </span>
            ) : null}
          </p>
          {picker}
        </div>
      ) : null}
      {g?.rollupsRebuilding || a?.rollupsRebuilding ? (
        <div className="alert alert-info" role="status">
          The figures are being recomputed after a timezone change: the totals are exact, but the days of the charts may
          still be those of the previous timezone for a little while.
        </div>
      ) : null}

      {general.error ? (
        <ErrorWithRetry error={general.error} retry={() => general.refetch()} />
      ) : !g || !range ? (
        <Loading label="Loading the figures…" />
      ) : (
        <>
          <div className="dash-stats" aria-busy={updating || undefined}>
            <Stat
              label="Revenue"
              value={money(g.revenue, currency)}
              raw={g.revenue}
              note="Completed orders, before refunds"
            />
            <Stat label="Orders" value={count(g.ordersCount)} raw={g.ordersCount} note="Created, any status" />
            <Stat label="Completed orders" value={count(g.completedOrders)} raw={g.completedOrders} />
            <Stat label="Awaiting payment" value={count(g.pendingOrders)} raw={g.pendingOrders} />
            <Stat label="Average order value" value={money(g.averageOrderValue, currency)} raw={g.averageOrderValue} />
            <Stat label="Products sold" value={count(g.productsSold)} raw={g.productsSold} note="Units" />
            <Stat label="New customers" value={count(g.newCustomers)} raw={g.newCustomers} />
            <AdvancedStats data={a} loading={advanced.isPending} />
          </div>
          {advanced.error ? <ErrorWithRetry error={advanced.error} retry={() => advanced.refetch()} /> : null}
          {g.ordersCount === 0 && g.completedOrders === 0 ? (
            <NoOrders range={range} />
          ) : (
            <Charts series={g.series} currency={currency} />
          )}
        </>
      )}

      <div className="grid-2 dash-row">
        <RealTime shopId={shopId} />
        {a ? (
          <BusiestHours hours={a.ordersByHour} />
        ) : (
          <Card title="Busiest hours">{advanced.error ? null : <Loading />}</Card>
        )}
      </div>
      {a ? (
        <div className="grid-2 dash-row">
          <TopProducts products={a.topProducts} currency={a.currency} />
          <Gateways gateways={a.revenueByGateway} currency={a.currency} />
        </div>
      ) : null}
    </Page>
  );
}

function AdvancedStats(props: { data: AdvancedDashboard | undefined; loading: boolean }) {
  const a = props.data;
  if (!a) {
    if (!props.loading) return null;
    return (
      <>
        {['Conversion', 'Repeat purchases', 'Average rating', 'Replacements', 'Refunds'].map((label) => (
          <Stat key={label} label={label} value="…" busy />
        ))}
      </>
    );
  }
  const r = a.refundsAndReplacements;
  return (
    <>
      <Stat
        label="Conversion"
        value={percent.format(a.conversionRate)}
        raw={a.conversionRate}
        note="Orders completed"
      />
      <Stat
        label="Repeat purchases"
        value={percent.format(a.returningCustomerRate)}
        raw={a.returningCustomerRate}
        note="By returning customers"
      />
      <Stat
        label="Average rating"
        value={a.averageRating === null ? '—' : `${rating.format(a.averageRating)} / 5`}
        raw={a.averageRating}
        {...(a.averageRating === null ? { note: 'No feedback yet' } : {})}
      />
      <Stat
        label="Replacements"
        value={count(r.replacements)}
        raw={r.replacements}
        note={`${count(r.units)} ${r.units === 1 ? 'unit' : 'units'} replaced`}
      />
      <Stat
        label="Refunds"
        value={money(r.refundedAmount, a.currency)}
        raw={r.refundedAmount}
        note={`${count(r.refunds)} ${r.refunds === 1 ? 'refund' : 'refunds'}`}
      />
    </>
  );
}

type Series = { date: string; revenue: number; orders: number }[];

function Charts(props: { series: Series; currency: string }) {
  const { series, currency } = props;
  const [showTable, setShowTable] = useState(false);
  const data = useMemo(
    () => ({
      days: series.map((d) => d.date),
      revenue: series.map((d) => d.revenue),
      orders: series.map((d) => d.orders),
    }),
    [series],
  );
  if (series.length < 2)
    return <p className="muted">The daily charts need a range of two days or more; the busiest hours are below.</p>;
  const peak = (values: number[]) => {
    const top = Math.max(...values);
    return { top, day: series[values.indexOf(top)]?.date ?? '' };
  };
  const revenuePeak = peak(data.revenue);
  const ordersPeak = peak(data.orders);
  const span = `${dayLabel(data.days[0]!)} to ${dayLabel(data.days[data.days.length - 1]!)}`;
  return (
    <>
      <div className="grid-2 dash-row">
        <Card title="Revenue per day" className="dash-chart-card">
          <Suspense fallback={<div className="dash-chart-placeholder" />}>
            <TimeChart
              label="Revenue"
              days={data.days}
              values={data.revenue}
              unit={{ money: currency }}
              kind="area"
              summary={`Revenue per day, ${span}; the best day is ${dayLabel(revenuePeak.day)} with ${money(revenuePeak.top, currency)}.`}
            />
          </Suspense>
        </Card>
        <Card title="Orders per day" className="dash-chart-card">
          <Suspense fallback={<div className="dash-chart-placeholder" />}>
            <TimeChart
              label="Orders"
              days={data.days}
              values={data.orders}
              unit="count"
              kind="bars"
              summary={`Orders per day, ${span}; the busiest day is ${dayLabel(ordersPeak.day)} with ${count(ordersPeak.top)}.`}
            />
          </Suspense>
        </Card>
      </div>
      <details className="dash-days" onToggle={(e) => setShowTable(e.currentTarget.open)}>
        <summary>Figures by day</summary>
        {showTable ? (
          <div className="table-wrap">
            <table className="table">
              <caption className="sr-only">Revenue and orders by day</caption>
              <thead>
                <tr>
                  <th scope="col">Day</th>
                  <th scope="col" className="num">
                    Orders
                  </th>
                  <th scope="col" className="num">
                    Revenue
                  </th>
                </tr>
              </thead>
              <tbody>
                {series.map((d) => (
                  <tr key={d.date}>
                    <td>{dayLabel(d.date)}</td>
                    <td className="num" data-label="Orders">
                      {count(d.orders)}
                    </td>
                    <td className="num" data-label="Revenue">
                      {money(d.revenue, currency)}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
      </details>
    </>
  );
}

function NoOrders(props: { range: DashboardRange }) {
  const shopPath = useShopPath();
  return (
    <Card>
      <div className="dash-empty">
        <h2>No orders in this range</h2>
        <p className="muted">
          Nothing was ordered between {dayLabel(props.range.fromDate)} and {dayLabel(props.range.toDate)}. When
          customers buy, revenue and orders show up here day by day.
        </p>
        <p className="row">
          <Link href={shopPath('/products')} className="btn">
            Products
          </Link>
          <Link href={shopPath('/orders')} className="btn btn-ghost">
            All orders
          </Link>
        </p>
      </div>
    </Card>
  );
}

/** The API's message and problems; a retry only where one can help (not for a refused range). */
function ErrorWithRetry(props: { error: unknown; retry: () => void }) {
  const final = props.error instanceof ApiError && props.error.status < 500;
  return (
    <div className="stack">
      <FormError error={props.error} />
      {final ? null : (
        <p>
          <button type="button" className="btn" onClick={props.retry}>
            Try again
          </button>
        </p>
      )}
    </div>
  );
}
