import { Link } from 'wouter';
import type { Invoice } from '../../../api/queries/invoices';
import { useShopPath } from '../../../app/shop';
import { Card } from '../../../ui/Page';

export function Customer(props: { order: Invoice }) {
  const { order } = props;
  const shopPath = useShopPath();
  return (
    <Card title="Customer">
      <dl className="orders-facts">
        <dt>E-mail</dt>
        <dd>
          <Link href={shopPath(`/customers/${order.customerId}`)}>{order.customerEmail}</Link>
        </dd>
        <dt>IP address</dt>
        <dd>{order.ip ?? '—'}</dd>
        <dt>Country</dt>
        <dd>{order.country ?? '—'}</dd>
        <dt>Browser</dt>
        <dd className="small">{order.userAgent ?? '—'}</dd>
        {order.chatUserId ? (
          <>
            <dt>Chat user id</dt>
            <dd>
              <code>{order.chatUserId}</code>
            </dd>
          </>
        ) : null}
      </dl>
      <p>
        <Link href={shopPath(`/orders?customerId=${order.customerId}`)} className="small">
          All orders of this customer
        </Link>
      </p>
    </Card>
  );
}
