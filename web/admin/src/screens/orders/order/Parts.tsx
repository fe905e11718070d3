import { useState } from 'react';
import type { Invoice } from '../../../api/queries/invoices';
import { ShopTime, useShopDates } from '../../../app/shop-dates';
import { strings } from '../../../strings';
import { money } from '../../../ui/format';
import { Card } from '../../../ui/Page';

/** Goods are secrets the buyer paid for: masked until the owner asks to see them. */
function Goods(props: { items: string[]; shown: boolean; label: string }) {
  if (props.items.length === 0) return <p className="muted small">{strings.order.nothingDelivered}</p>;
  return (
    <ol className="orders-goods" aria-label={props.label}>
      {props.items.map((item, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the same serial text may repeat; the order is fixed
        <li key={i}>{props.shown ? item : <span className="orders-masked">••••••••••••</span>}</li>
      ))}
    </ol>
  );
}

export function Parts(props: { order: Invoice }) {
  const { dateTime } = useShopDates();
  const { order } = props;
  const [shown, setShown] = useState(false);
  const delivered =
    order.parts.some((p) => p.deliverables.length > 0) || order.replacements.some((r) => r.deliverables.length > 0);
  const partTitle = (partId: number) => {
    const part = order.parts.find((p) => p.id === partId);
    return part ? `${part.title} — ${part.variantTitle}` : strings.order.partId(partId);
  };
  return (
    <Card
      title={strings.order.items}
      actions={
        delivered ? (
          <button type="button" className="btn" aria-pressed={shown} onClick={() => setShown(!shown)}>
            {shown ? strings.order.hideGoods : strings.order.showGoods}
          </button>
        ) : null
      }
    >
      <div className="table-wrap">
        <table className="table">
          <caption className="sr-only">{strings.order.itemsOfTheOrder}</caption>
          <thead>
            <tr>
              <th>{strings.common.product}</th>
              <th>{strings.order.variant}</th>
              <th className="num">{strings.order.quantity}</th>
              <th className="num">{strings.order.unitPrice}</th>
              <th className="num">{strings.common.total}</th>
              <th>{strings.order.goodsDelivered}</th>
            </tr>
          </thead>
          <tbody>
            {order.parts.map((p) => (
              <tr key={p.id}>
                <td data-label={strings.common.product}>{p.title}</td>
                <td data-label={strings.order.variant}>{p.variantTitle}</td>
                <td data-label={strings.order.quantity} className="num">
                  {p.quantity}
                </td>
                <td data-label={strings.order.unitPrice} className="num">
                  {money(p.unitPrice, order.currency)}
                </td>
                <td data-label={strings.common.total} className="num">
                  {money(p.total, order.currency)}
                </td>
                <td data-label={strings.order.goodsDelivered}>
                  <Goods items={p.deliverables} shown={shown} label={strings.order.goodsOf(p.title, p.variantTitle)} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {order.replacements.length > 0 ? (
        <>
          <h3>{strings.common.replacements}</h3>
          <ul className="orders-replacements">
            {order.replacements.map((r, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: replacements have no id and never reorder
              <li key={i}>
                <ShopTime iso={r.createdAt} />
                {r.quantity} × {partTitle(r.partInvoiceId)}
                <Goods
                  items={r.deliverables}
                  shown={shown}
                  label={strings.order.replacementGoodsOf(dateTime(r.createdAt))}
                />
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </Card>
  );
}
