import { Link } from 'wouter';
import type { Invoice } from '../../../api/queries/invoices';
import { useShopPath } from '../../../app/shop';
import { bytes, dateTime } from '../../../ui/format';
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
    <Card title="Downloads">
      {downloads.length === 0 ? (
        <p className="muted">No file of this order has been downloaded yet.</p>
      ) : (
        <div className="table-wrap">
          <table className="table">
            <caption className="sr-only">Downloads of the order</caption>
            <thead>
              <tr>
                <th>Time</th>
                <th>File</th>
                <th>IP</th>
                <th>User agent</th>
                <th className="num">Bytes</th>
                <th>Counted</th>
              </tr>
            </thead>
            <tbody>
              {downloads.map((d, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: log entries have no id and never reorder
                <tr key={i}>
                  <td data-label="Time">
                    <time dateTime={d.at}>{dateTime(d.at)}</time>
                  </td>
                  <td data-label="File" className="orders-file">
                    {d.name}
                  </td>
                  <td data-label="IP">{d.ip ? <code>{d.ip}</code> : <span className="muted">—</span>}</td>
                  <td data-label="User agent">
                    {d.userAgent ? (
                      <span className="orders-agent" title={d.userAgent}>
                        {d.userAgent}
                      </span>
                    ) : (
                      <span className="muted">—</span>
                    )}
                  </td>
                  <td data-label="Bytes" className="num">
                    {bytes(d.bytes)}
                  </td>
                  <td data-label="Counted">{d.counted ? 'Yes' : <span className="muted">No (resumed)</span>}</td>
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
    <Card title="Licenses">
      <div className="table-wrap">
        <table className="table">
          <caption className="sr-only">Licenses of the order</caption>
          <thead>
            <tr>
              <th>Key</th>
              <th>Status</th>
              <th className="num">Activations</th>
              <th>Expires</th>
            </tr>
          </thead>
          <tbody>
            {licenses.map((l) => (
              <tr key={l.id}>
                <td data-label="Key">
                  <Link href={shopPath(`/licenses/${l.id}`)} className="orders-id">
                    <code>{l.licenseKey}</code>
                  </Link>
                </td>
                <td data-label="Status">
                  <Badge tone={licenseStatusTones[l.status]}>{licenseStatusLabels[l.status]}</Badge>
                </td>
                <td data-label="Activations" className="num">
                  {activationText(l)}
                </td>
                <td data-label="Expires">{l.expiresAt ? dateTime(l.expiresAt) : 'Never'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </Card>
  );
}
