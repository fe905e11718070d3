import type { Invoice } from '../../api/queries/invoices';
import type { ListState } from '../../api/queries/list';
import { dateTime, money } from '../../ui/format';
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
      caption="Orders"
      rows={list.rows}
      list={list}
      loading={list.result.isLoading}
      rowKey={(i) => i.id}
      href={props.href}
      empty={props.empty}
      columns={[
        { header: 'Order', cell: (i) => <code className="orders-id">{i.id}</code> },
        {
          header: 'Status',
          cell: (i) => <Badge tone={invoiceStatusTones[i.status]}>{invoiceStatusLabels[i.status]}</Badge>,
        },
        ...(props.withEmail === false ? [] : [{ header: 'E-mail', cell: (i: Invoice) => i.customerEmail }]),
        { header: 'Total', className: 'num', sort: 'total', cell: (i) => money(i.total, i.currency) },
        { header: 'Gateway', cell: (i) => i.gateway },
        { header: 'Created', sort: 'createdAt', cell: (i) => dateTime(i.createdAt) },
      ]}
    />
  );
}
