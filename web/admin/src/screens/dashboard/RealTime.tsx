import { useRealTimeVisits } from '../../api/queries/dashboard';
import { count } from '../../ui/format';
import { Card, LoadError, Loading } from '../../ui/Page';
import { Stat } from './Stat';

/** Visitors of the storefront in the last minutes, polled every 10 s while the tab is visible. */
export function RealTime(props: { shopId: number }) {
  const { shopId } = props;
  const visits = useRealTimeVisits(shopId);
  const data = visits.data;
  const largest = data ? Math.max(0, ...data.series.map((m) => m.visits)) : 0;
  return (
    <Card title="Right now">
      {visits.error && !data ? (
        <LoadError error={visits.error} retry={() => visits.refetch()} />
      ) : !data ? (
        <Loading />
      ) : (
        <div className="stack">
          <div className="dash-stats dash-stats-2">
            <Stat
              label="Active visitors"
              value={count(data.activeVisitors)}
              raw={data.activeVisitors}
              note="Last 5 minutes"
            />
            <Stat label="Page views" value={count(data.visitsLastHour)} raw={data.visitsLastHour} note="Last hour" />
          </div>
          <div>
            <div
              className="dash-minutes"
              role="img"
              aria-label={`Page views per minute over the last 30 minutes, at most ${count(largest)} a minute.`}
            >
              {data.series.map((m) => (
                <div
                  key={m.minute}
                  className="dash-minute"
                  style={{ height: largest > 0 ? `${(m.visits / largest) * 100}%` : 0 }}
                  title={`${new Date(m.minute).toLocaleTimeString(undefined, { timeStyle: 'short' })}: ${count(m.visits)}`}
                />
              ))}
            </div>
            <p className="muted small">Page views per minute, last 30 minutes</p>
          </div>
          <h3 className="dash-subhead">Top pages, last hour</h3>
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
            <p className="muted">No storefront visits in the last hour.</p>
          )}
        </div>
      )}
    </Card>
  );
}
