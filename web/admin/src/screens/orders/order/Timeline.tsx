import type { Invoice } from '../../../api/queries/invoices';
import { dateTime, money } from '../../../ui/format';
import { Card } from '../../../ui/Page';
import { gatewayLabel } from '../orders';

/** What happened to the order, from the dates the API gives. */
export function Timeline(props: { order: Invoice }) {
  const { order } = props;
  const events: { at: string | null; text: string }[] = [
    {
      at: order.createdAt,
      text: `Order placed with ${gatewayLabel(order.gateway)} for ${money(order.total, order.currency)}`,
    },
  ];
  if (order.completedAt) events.push({ at: order.completedAt, text: 'Completed: goods delivered and mailed' });
  for (const r of order.refunds)
    events.push({
      at: r.createdAt,
      text: `Refunded ${money(r.amount, order.currency)}${r.reason ? ` — “${r.reason}”` : ''}`,
    });
  for (const r of order.replacements) {
    const part = order.parts.find((p) => p.id === r.partInvoiceId);
    events.push({ at: r.createdAt, text: `Replacement of ${r.quantity} × ${part?.title ?? 'an item'}` });
  }
  if (order.feedback)
    events.push({
      at: order.feedback.createdAt,
      text: `Feedback: ${order.feedback.rating} of 5${order.feedback.comment ? ` — “${order.feedback.comment}”` : ''}`,
    });
  events.sort((a, b) => (a.at ?? '').localeCompare(b.at ?? ''));
  if (order.status === 'expired') events.push({ at: order.expiresAt, text: 'Expired unpaid' });
  if (order.status === 'cancelled') events.push({ at: null, text: 'Cancelled' });
  if (order.status === 'pending') events.push({ at: order.expiresAt, text: 'Expires unless paid by then' });
  return (
    <Card title="Timeline">
      <ol className="orders-timeline">
        {events.map((event) => (
          <li key={`${event.at}-${event.text}`}>
            {event.at ? <time dateTime={event.at}>{dateTime(event.at)}</time> : null}
            {event.text}
          </li>
        ))}
      </ol>
    </Card>
  );
}
