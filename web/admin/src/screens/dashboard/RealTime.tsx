import { useRealTimeVisits } from '../../api/queries/dashboard';
import { useShopDates } from '../../app/shop-dates';
import { strings } from '../../strings';
import { count } from '../../ui/format';
import { Card, LoadError, Loading } from '../../ui/Page';
import { Stat } from './Stat';

/** Visitors of the storefront in the last minutes, polled every 10 s while the tab is visible. */
export function RealTime(props: { shopId: number }) {
  const { shopId } = props;
  const visits = useRealTimeVisits(shopId);
  const { time } = useShopDates();
  const data = visits.data;
  const largest = data ? Math.max(0, ...data.series.map((m) => m.visits)) : 0;
  return (
    <Card title={strings.dashboard.rightNow}>
      {visits.error && !data ? (
        <LoadError error={visits.error} retry={() => visits.refetch()} />
      ) : !data ? (
        <Loading />
      ) : (
        <div className="stack">
          <div className="dash-stats dash-stats-2">
            <Stat
              label={strings.dashboard.activeVisitors}
              value={count(data.activeVisitors)}
              raw={data.activeVisitors}
              note={strings.dashboard.last5Minutes}
            />
            <Stat
              label={strings.dashboard.pageViews}
              value={count(data.visitsLastHour)}
              raw={data.visitsLastHour}
              note={strings.dashboard.lastHour}
            />
          </div>
          <div>
            <div className="dash-minutes" role="img" aria-label={strings.dashboard.pageViewsPerMinute(count(largest))}>
              {data.series.map((m) => (
                <div
                  key={m.minute}
                  className="dash-minute"
                  style={{ height: largest > 0 ? `${(m.visits / largest) * 100}%` : 0 }}
                  title={`${time(m.minute)}: ${count(m.visits)}`}
                />
              ))}
            </div>
            <p className="muted small">{strings.dashboard.pageViewsPerMinuteLast}</p>
          </div>
          <h3 className="dash-subhead">{strings.dashboard.topPagesLastHour}</h3>
          {data.topPages.length > 0 ? (
            <ol className="dash-pages">
              {data.topPages.map((p) => (
                <li key={p.page}>
                  <span className="dash-page">{p.page}</span>
                  <span className="muted">{count(p.visits)}</span>
                </li>
              ))}
            </ol>
          ) : (
            <p className="muted">{strings.dashboard.noStorefrontVisitsIn}</p>
          )}
        </div>
      )}
    </Card>
  );
}
