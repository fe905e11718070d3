import type { Invoice } from '../../api/queries/invoices';
import type { ListState } from '../../api/queries/list';
import { ShopTime } from '../../app/shop-dates';
import { strings } from '../../strings';
import { money } from '../../ui/format';
import { DataTable } from '../../ui/list';
import { Badge } from '../../ui/Page';
import { invoiceStatusLabels, invoiceStatusTones } from './orders';
import './orders.css';

/** The invoice columns, shared with the customer screen's order list. */
export function InvoiceTable(props: {
  list: ListState<Invoice>;
  href: (invoice: Invoice) => string;
  empty: string;
  withEmail?: boolean;
}) {
  const { list } = props;
  return (
    <DataTable
      caption={strings.common.orders}
      rows={list.rows}
      list={list}
      loading={list.result.isLoading}
      rowKey={(i) => i.id}
      href={props.href}
      empty={props.empty}
      columns={[
        { header: strings.common.order, cell: (i) => <code className="orders-id">{i.id}</code> },
        {
          header: strings.common.status,
          cell: (i) => <Badge tone={invoiceStatusTones[i.status]}>{invoiceStatusLabels[i.status]}</Badge>,
        },
        ...(props.withEmail === false ? [] : [{ header: strings.common.eMail, cell: (i: Invoice) => i.customerEmail }]),
        { header: strings.common.total, className: 'num', sort: 'total', cell: (i) => money(i.total, i.currency) },
        { header: strings.common.gateway, cell: (i) => i.gateway },
        { header: strings.common.created, sort: 'createdAt', cell: (i) => <ShopTime iso={i.createdAt} /> },
      ]}
    />
  );
}
