import { useState } from 'react';
import type { Invoice } from '../../../api/queries/invoices';
import { dateTime, money } from '../../../ui/format';
import { Card } from '../../../ui/Page';

/** Goods are secrets the buyer paid for: masked until the owner asks to see them. */
function Goods(props: { items: string[]; shown: boolean; label: string }) {
  if (props.items.length === 0) return <p className="muted small">Nothing delivered.</p>;
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
  const { order } = props;
  const [shown, setShown] = useState(false);
  const delivered =
    order.parts.some((p) => p.deliverables.length > 0) || order.replacements.some((r) => r.deliverables.length > 0);
  const partTitle = (partId: number) => {
    const part = order.parts.find((p) => p.id === partId);
    return part ? `${part.title} — ${part.variantTitle}` : `Part ${partId}`;
  };
  return (
    <Card
      title="Items"
      actions={
        delivered ? (
          <button type="button" className="btn" aria-pressed={shown} onClick={() => setShown(!shown)}>
            {shown ? 'Hide goods' : 'Show goods'}
          </button>
        ) : null
      }
    >
      <div className="table-wrap">
        <table className="table">
          <caption className="sr-only">Items of the order</caption>
          <thead>
            <tr>
              <th>Product</th>
              <th>Variant</th>
              <th className="num">Quantity</th>
              <th className="num">Unit price</th>
              <th className="num">Total</th>
              <th>Goods delivered</th>
            </tr>
          </thead>
          <tbody>
            {order.parts.map((p) => (
              <tr key={p.id}>
                <td data-label="Product">{p.title}</td>
                <td data-label="Variant">{p.variantTitle}</td>
                <td data-label="Quantity" className="num">
                  {p.quantity}
                </td>
                <td data-label="Unit price" className="num">
                  {money(p.unitPrice, order.currency)}
                </td>
                <td data-label="Total" className="num">
                  {money(p.total, order.currency)}
                </td>
                <td data-label="Goods delivered">
                  <Goods items={p.deliverables} shown={shown} label={`Goods of ${p.title} — ${p.variantTitle}`} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {order.replacements.length > 0 ? (
        <>
          <h3>Replacements</h3>
          <ul className="orders-replacements">
            {order.replacements.map((r, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: replacements have no id and never reorder
              <li key={i}>
                <time dateTime={r.createdAt}>{dateTime(r.createdAt)}</time>
                {r.quantity} × {partTitle(r.partInvoiceId)}
                <Goods items={r.deliverables} shown={shown} label={`Replacement goods of ${dateTime(r.createdAt)}`} />
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </Card>
  );
}
