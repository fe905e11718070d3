import { useState } from 'react';
import { Link, useParams } from 'wouter';
import { useInvoice, useInvoiceChanged } from '../../../api/queries/invoices';
import { useShopPath } from '../../../app/shop';
import { strings } from '../../../strings';
import { LoadError, Loading, Page } from '../../../ui/Page';
import '../orders.css';
import { ActionError } from './ActionError';
import { Customer } from './Customer';
import { CustomFields } from './CustomFields';
import { Downloads, Licenses } from './Delivery';
import { OrderActions } from './OrderActions';
import { Parts } from './Parts';
import { Payment } from './Payment';
import { Summary } from './Summary';
import { Timeline } from './Timeline';

/**
 * One order: its actions (OrderActions, with a dialog and form each), then its summary, buyer,
 * payment, items, licences and downloads, custom fields and timeline.
 */
export default function OrderScreen() {
  const params = useParams<{ shopId: string; invoiceId: string }>();
  const shopId = Number(params.shopId);
  const invoiceId = params.invoiceId;
  const shopPath = useShopPath();
  const [actionError, setActionError] = useState<unknown>(null);
  const invoice = useInvoice(shopId, invoiceId);
  /** A changed invoice: show it, and refresh the lists and figures it counts in. */
  const changed = useInvoiceChanged(shopId, invoiceId);

  const back = (
    <Link href={shopPath('/orders')} className="small">
      {strings.order.orders}
    </Link>
  );
  if (invoice.error)
    return (
      <Page title={strings.common.order} back={back}>
        <LoadError error={invoice.error} retry={() => invoice.refetch()} />
      </Page>
    );
  if (!invoice.data)
    return (
      <Page title={strings.common.order} back={back}>
        <Loading />
      </Page>
    );
  const order = invoice.data;

  return (
    <Page
      title={strings.order.order(order.id)}
      back={back}
      actions={<OrderActions order={order} onChange={changed} onError={setActionError} />}
    >
      <div className="stack">
        <ActionError error={actionError} />
        {order.deliveryError ? (
          <div className="alert alert-error" role="alert">
            <p>{strings.order.theLastDeliveryFailed(order.deliveryError)}</p>
          </div>
        ) : null}
        {order.dispute ? (
          <div className="alert orders-warning" role="alert">
            <p>
              <strong>{strings.order.paymentDisputed}</strong>{' '}
              {strings.order.theOrdersLicencesAnd(order.dispute.reason, order.dispute.status.replace('_', ' '))}{' '}
              {order.dispute.evidenceSubmittedAt
                ? strings.order.theEvidenceWasSubmitted
                : strings.order.theEvidenceIsNot}
              <Link href={shopPath(`/disputes/${order.dispute.id}`)}>{strings.order.seeTheDisputeAnd}</Link>
            </p>
          </div>
        ) : null}
        {order.payment.note ? (
          <div className="alert orders-warning" role="alert">
            <p>
              <strong>{strings.order.paymentNeedsYourAttention}</strong> {order.payment.note}
            </p>
          </div>
        ) : null}
        <div className="grid-2">
          <Summary order={order} />
          <Customer order={order} />
        </div>
        <Payment order={order} />
        <Parts order={order} />
        <Licenses order={order} />
        <Downloads order={order} />
        <div className="grid-2">
          <CustomFields order={order} />
          <Timeline order={order} />
        </div>
      </div>
    </Page>
  );
}
