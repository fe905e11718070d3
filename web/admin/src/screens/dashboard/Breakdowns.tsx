import { Link } from 'wouter';
import type { paths } from '../../api/schema';
import { useShopPath } from '../../app/shop';
import { strings } from '../../strings';
import { count, money } from '../../ui/format';
import { Card } from '../../ui/Page';
import { gatewayLabel } from '../orders/orders';

export type AdvancedDashboard =
  paths['/self/{shopId}/dashboard/advanced']['get']['responses'][200]['content']['application/json']['data'];

/** A share of the largest value, as a bar's width. */
const share = (value: number, largest: number) => `${largest > 0 ? Math.max(2, (value / largest) * 100) : 0}%`;

export function TopProducts(props: { products: AdvancedDashboard['topProducts']; currency: string }) {
  const shopPath = useShopPath();
  const { products, currency } = props;
  return (
    <Card title={strings.dashboard.topProducts}>
      {products.length === 0 ? (
        <p className="muted">{strings.dashboard.noProductsSoldIn}</p>
      ) : (
        <div className="table-wrap">
          <table className="table">
            <caption className="sr-only">{strings.dashboard.topProductsByRevenue}</caption>
            <thead>
              <tr>
                <th scope="col">{strings.common.product}</th>
                <th scope="col" className="num">
                  {strings.dashboard.units}
                </th>
                <th scope="col" className="num">
                  {strings.dashboard.revenue}
                </th>
              </tr>
            </thead>
            <tbody>
              {products.map((p) => (
                <tr key={p.productId}>
                  <td>
                    <Link href={shopPath(`/products/${p.productId}`)}>{p.title}</Link>
                  </td>
                  <td className="num" data-label={strings.dashboard.units}>
                    {count(p.quantity)}
                  </td>
                  <td className="num" data-label={strings.dashboard.revenue}>
                    {money(p.revenue, currency)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Card>
  );
}

export function Gateways(props: { gateways: AdvancedDashboard['revenueByGateway']; currency: string }) {
  const { gateways, currency } = props;
  const largest = Math.max(0, ...gateways.map((g) => g.revenue));
  return (
    <Card title={strings.dashboard.revenueByGateway}>
      {gateways.length === 0 ? (
        <p className="muted">{strings.dashboard.noPaymentsInThis}</p>
      ) : (
        <ul className="dash-bars">
          {gateways.map((g) => (
            <li key={g.gateway}>
              <div className="dash-bar-text">
                <span className="dash-bar-name">{gatewayLabel(g.gateway)}</span>
                <span className="dash-bar-value">
                  {money(g.revenue, currency)}{' '}
                  <span className="muted small">
                    · {count(g.orders)} {strings.common.ordersWord(g.orders)}
                  </span>
                </span>
              </div>
              <div className="dash-bar-track" aria-hidden="true">
                <div className="dash-bar-fill" style={{ width: share(g.revenue, largest) }} />
              </div>
            </li>
          ))}
        </ul>
      )}
    </Card>
  );
}

const hourLabel = (hour: number) => `${String(hour).padStart(2, '0')}:00`;

/** Completed orders by hour of day, as 24 columns; the busiest hour in words for screen readers. */
export function BusiestHours(props: { hours: readonly number[] }) {
  const { hours } = props;
  const largest = Math.max(0, ...hours);
  const busiest = hours.indexOf(largest);
  return (
    <Card title={strings.dashboard.busiestHours}>
      {largest === 0 ? (
        <p className="muted">{strings.dashboard.noCompletedOrdersIn}</p>
      ) : (
        <>
          <div
            className="dash-hours"
            role="img"
            aria-label={strings.dashboard.completedOrdersByHour(hourLabel(busiest), count(largest))}
          >
            {hours.map((n, hour) => (
              <div
                // biome-ignore lint/suspicious/noArrayIndexKey: the index is the hour
                key={hour}
                className="dash-hour"
                style={{ height: `${(n / largest) * 100}%` }}
                title={strings.dashboard.orders(hourLabel(hour), count(n))}
              />
            ))}
          </div>
          <div className="dash-hours-axis muted small" aria-hidden="true">
            <span>00</span>
            <span>06</span>
            <span>12</span>
            <span>18</span>
            <span>23</span>
          </div>
          <p className="muted small">{strings.dashboard.shopTimeCompletedOrders}</p>
        </>
      )}
    </Card>
  );
}
