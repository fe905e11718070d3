import { Link } from 'wouter';
import type { Invoice } from '../../../api/queries/invoices';
import { useShopPath } from '../../../app/shop';
import { ShopTime } from '../../../app/shop-dates';
import { strings } from '../../../strings';
import { bytes } from '../../../ui/format';
import { Badge, Card } from '../../../ui/Page';
import { activationText, licenseStatusLabels, licenseStatusTones } from '../../licenses/licenses';

/**
 * Every download of the order's files. Shown once there is one, or on a completed order with an
 * item that delivered no text (a file product's part: its goods are the downloads).
 */
export function Downloads(props: { order: Invoice }) {
  const { order } = props;
  const downloads = order.downloads ?? [];
  const mayHaveFiles = order.status === 'completed' && order.parts.some((p) => p.deliverables.length === 0);
  if (downloads.length === 0 && !mayHaveFiles) return null;
  return (
    <Card title={strings.order.downloads}>
      {downloads.length === 0 ? (
        <p className="muted">{strings.order.noFileOfThis}</p>
      ) : (
        <div className="table-wrap">
          <table className="table">
            <caption className="sr-only">{strings.order.downloadsOfTheOrder}</caption>
            <thead>
              <tr>
                <th>{strings.common.time}</th>
                <th>{strings.order.file}</th>
                <th>{strings.common.ip}</th>
                <th>{strings.order.userAgent}</th>
                <th className="num">{strings.order.bytes}</th>
                <th>{strings.order.counted}</th>
              </tr>
            </thead>
            <tbody>
              {downloads.map((d, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: log entries have no id and never reorder
                <tr key={i}>
                  <td data-label={strings.common.time}>
                    <ShopTime iso={d.at} />
                  </td>
                  <td data-label={strings.order.file} className="orders-file">
                    {d.name}
                  </td>
                  <td data-label={strings.common.ip}>
                    {d.ip ? <code>{d.ip}</code> : <span className="muted">—</span>}
                  </td>
                  <td data-label={strings.order.userAgent}>
                    {d.userAgent ? (
                      <span className="orders-agent" title={d.userAgent}>
                        {d.userAgent}
                      </span>
                    ) : (
                      <span className="muted">—</span>
                    )}
                  </td>
                  <td data-label={strings.order.bytes} className="num">
                    {bytes(d.bytes)}
                  </td>
                  <td data-label={strings.order.counted}>
                    {d.counted ? strings.order.yes : <span className="muted">{strings.order.noResumed}</span>}
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

/** The licences the order issued, each a link to its screen. */
export function Licenses(props: { order: Invoice }) {
  const shopPath = useShopPath();
  const licenses = props.order.licenses ?? [];
  if (licenses.length === 0) return null;
  return (
    <Card title={strings.common.licenses}>
      <div className="table-wrap">
        <table className="table">
          <caption className="sr-only">{strings.order.licensesOfTheOrder}</caption>
          <thead>
            <tr>
              <th>{strings.common.key}</th>
              <th>{strings.common.status}</th>
              <th className="num">{strings.common.activations}</th>
              <th>{strings.common.expires}</th>
            </tr>
          </thead>
          <tbody>
            {licenses.map((l) => (
              <tr key={l.id}>
                <td data-label={strings.common.key}>
                  <Link href={shopPath(`/licenses/${l.id}`)} className="orders-id">
                    <code>{l.licenseKey}</code>
                  </Link>
                </td>
                <td data-label={strings.common.status}>
                  <Badge tone={licenseStatusTones[l.status]}>{licenseStatusLabels[l.status]}</Badge>
                </td>
                <td data-label={strings.common.activations} className="num">
                  {activationText(l)}
                </td>
                <td data-label={strings.common.expires}>
                  <ShopTime iso={l.expiresAt} none={strings.common.never} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Card>
  );
}
