import { lazy, Suspense, useMemo, useState } from 'react';
import { Link, useSearchParams } from 'wouter';
import { ApiError } from '../../api/client';
import { useAdvancedDashboard, useGeneralDashboard } from '../../api/queries/dashboard';
import { useShop, useShopPath } from '../../app/shop';
import { useShopDates } from '../../app/shop-dates';
import { strings } from '../../strings';
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
  const dates = useShopDates();
  // The range's days are the shop's; until the shop list is in, its clock is unknown.
  const range = shop ? readRange(params, shop) : null;
  const query = range ? { fromDate: range.fromDate, toDate: range.toDate } : {};

  const general = useGeneralDashboard(shopId, query, range !== null);
  const advanced = useAdvancedDashboard(shopId, query, range !== null);

  const picker =
    range && shop ? (
      <RangePicker
        range={range}
        today={todayAt(shop)}
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
    <Page title={strings.common.dashboard}>
      {range ? (
        <div className="dash-toolbar">
          <p className="muted dash-range-label">
            {rangeLabel(range)}
            {dates.known ? <span className="small"> · {strings.dashboard.daysIn(dates.zone)}</span> : null}
            {updating ? (
              <span role="status" className="dash-updating">
                {' '}
                {strings.dashboard.updating}
              </span>
            ) : null}
          </p>
          {picker}
        </div>
      ) : null}
      {g?.rollupsRebuilding || a?.rollupsRebuilding ? (
        <div className="alert alert-info" role="status">
          {strings.dashboard.theFiguresAreBeing}
        </div>
      ) : null}

      {general.error ? (
        <ErrorWithRetry error={general.error} retry={() => general.refetch()} />
      ) : !g || !range ? (
        <Loading label={strings.common.loadingTheFigures} />
      ) : (
        <>
          <div className="dash-stats" aria-busy={updating || undefined}>
            <Stat
              label={strings.dashboard.revenue}
              value={money(g.revenue, currency)}
              raw={g.revenue}
              note={strings.dashboard.completedOrdersBeforeRefunds}
            />
            <Stat
              label={strings.common.orders}
              value={count(g.ordersCount)}
              raw={g.ordersCount}
              note={strings.dashboard.createdAnyStatus}
            />
            <Stat label={strings.common.completedOrders} value={count(g.completedOrders)} raw={g.completedOrders} />
            <Stat label={strings.dashboard.awaitingPayment} value={count(g.pendingOrders)} raw={g.pendingOrders} />
            <Stat
              label={strings.dashboard.averageOrderValue}
              value={money(g.averageOrderValue, currency)}
              raw={g.averageOrderValue}
            />
            <Stat
              label={strings.dashboard.productsSold}
              value={count(g.productsSold)}
              raw={g.productsSold}
              note={strings.dashboard.units}
            />
            <Stat label={strings.dashboard.newCustomers} value={count(g.newCustomers)} raw={g.newCustomers} />
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
          <Card title={strings.dashboard.busiestHours}>{advanced.error ? null : <Loading />}</Card>
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
        {[
          strings.dashboard.conversion,
          strings.dashboard.repeatPurchases,
          strings.dashboard.averageRating,
          strings.common.replacements,
          strings.common.refunds,
        ].map((label) => (
          <Stat key={label} label={label} value="…" busy />
        ))}
      </>
    );
  }
  const r = a.refundsAndReplacements;
  return (
    <>
      <Stat
        label={strings.dashboard.conversion}
        value={percent.format(a.conversionRate)}
        raw={a.conversionRate}
        note={strings.dashboard.ordersCompleted}
      />
      <Stat
        label={strings.dashboard.repeatPurchases}
        value={percent.format(a.returningCustomerRate)}
        raw={a.returningCustomerRate}
        note={strings.dashboard.byReturningCustomers}
      />
      <Stat
        label={strings.dashboard.averageRating}
        value={a.averageRating === null ? '—' : `${rating.format(a.averageRating)} / 5`}
        raw={a.averageRating}
        {...(a.averageRating === null ? { note: strings.dashboard.noFeedbackYet } : {})}
      />
      <Stat
        label={strings.common.replacements}
        value={count(r.replacements)}
        raw={r.replacements}
        note={strings.dashboard.unitsReplaced(count(r.units), r.units)}
      />
      <Stat
        label={strings.common.refunds}
        value={money(r.refundedAmount, a.currency)}
        raw={r.refundedAmount}
        note={strings.dashboard.refunds(count(r.refunds), r.refunds)}
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
  if (series.length < 2) return <p className="muted">{strings.dashboard.theDailyChartsNeed}</p>;
  const peak = (values: number[]) => {
    const top = Math.max(...values);
    return { top, day: series[values.indexOf(top)]?.date ?? '' };
  };
  const revenuePeak = peak(data.revenue);
  const ordersPeak = peak(data.orders);
  const span = strings.dashboard.rangeSpan(dayLabel(data.days[0]!), dayLabel(data.days[data.days.length - 1]!));
  return (
    <>
      <div className="grid-2 dash-row">
        <Card title={strings.dashboard.revenuePerDay} className="dash-chart-card">
          <Suspense fallback={<div className="dash-chart-placeholder" />}>
            <TimeChart
              label={strings.dashboard.revenue}
              days={data.days}
              values={data.revenue}
              unit={{ money: currency }}
              kind="area"
              summary={strings.dashboard.revenuePerDayThe(
                span,
                dayLabel(revenuePeak.day),
                money(revenuePeak.top, currency),
              )}
            />
          </Suspense>
        </Card>
        <Card title={strings.dashboard.ordersPerDay} className="dash-chart-card">
          <Suspense fallback={<div className="dash-chart-placeholder" />}>
            <TimeChart
              label={strings.common.orders}
              days={data.days}
              values={data.orders}
              unit="count"
              kind="bars"
              summary={strings.dashboard.ordersPerDayThe(span, dayLabel(ordersPeak.day), count(ordersPeak.top))}
            />
          </Suspense>
        </Card>
      </div>
      <details className="dash-days" onToggle={(e) => setShowTable(e.currentTarget.open)}>
        <summary>{strings.dashboard.figuresByDay}</summary>
        {showTable ? (
          <div className="table-wrap">
            <table className="table">
              <caption className="sr-only">{strings.dashboard.revenueAndOrdersBy}</caption>
              <thead>
                <tr>
                  <th scope="col">{strings.dashboard.day}</th>
                  <th scope="col" className="num">
                    {strings.common.orders}
                  </th>
                  <th scope="col" className="num">
                    {strings.dashboard.revenue}
                  </th>
                </tr>
              </thead>
              <tbody>
                {series.map((d) => (
                  <tr key={d.date}>
                    <td>{dayLabel(d.date)}</td>
                    <td className="num" data-label={strings.common.orders}>
                      {count(d.orders)}
                    </td>
                    <td className="num" data-label={strings.dashboard.revenue}>
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
        <h2>{strings.dashboard.noOrdersInThis}</h2>
        <p className="muted">
          {strings.dashboard.nothingWasOrderedBetween(dayLabel(props.range.fromDate), dayLabel(props.range.toDate))}
        </p>
        <p className="row">
          <Link href={shopPath('/products')} className="btn">
            {strings.common.products}
          </Link>
          <Link href={shopPath('/orders')} className="btn btn-ghost">
            {strings.dashboard.allOrders}
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
            {strings.common.tryAgain}
          </button>
        </p>
      )}
    </div>
  );
}
