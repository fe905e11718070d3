import type { Invoice } from '../../../api/queries/invoices';
import { ShopTime } from '../../../app/shop-dates';
import { strings } from '../../../strings';
import { money } from '../../../ui/format';
import { Card } from '../../../ui/Page';
import { gatewayLabel } from '../orders';

/** What happened to the order, from the dates the API gives. */
export function Timeline(props: { order: Invoice }) {
  const { order } = props;
  const events: { at: string | null; text: string }[] = [
    {
      at: order.createdAt,
      text: strings.order.orderPlacedWithFor(gatewayLabel(order.gateway), money(order.total, order.currency)),
    },
  ];
  if (order.completedAt) events.push({ at: order.completedAt, text: strings.order.completedGoodsDeliveredAnd });
  for (const r of order.refunds)
    events.push({
      at: r.createdAt,
      text: strings.order.refundedEvent(money(r.amount, order.currency), r.reason ? ` — “${r.reason}”` : ''),
    });
  for (const r of order.replacements) {
    const part = order.parts.find((p) => p.id === r.partInvoiceId);
    events.push({
      at: r.createdAt,
      text: strings.order.replacementOf(r.quantity, part?.title ?? strings.order.anItem),
    });
  }
  if (order.feedback)
    events.push({
      at: order.feedback.createdAt,
      text: strings.order.feedbackEvent(
        order.feedback.rating,
        order.feedback.comment ? ` — “${order.feedback.comment}”` : '',
      ),
    });
  events.sort((a, b) => (a.at ?? '').localeCompare(b.at ?? ''));
  if (order.status === 'expired') events.push({ at: order.expiresAt, text: strings.order.expiredUnpaid });
  if (order.status === 'cancelled') events.push({ at: null, text: strings.order.cancelled });
  if (order.status === 'pending') events.push({ at: order.expiresAt, text: strings.order.expiresUnlessPaidBy });
  return (
    <Card title={strings.order.timeline}>
      <ol className="orders-timeline">
        {events.map((event) => (
          <li key={`${event.at}-${event.text}`}>
            {event.at ? <ShopTime iso={event.at} /> : null}
            {event.text}
          </li>
        ))}
      </ol>
    </Card>
  );
}
