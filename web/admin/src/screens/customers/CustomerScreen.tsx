import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useParams } from 'wouter';
import type { BodyOf } from '../../api/bodies';
import { api, unwrap } from '../../api/client';
import { type Customer, useBalanceChanged, useCustomer, useCustomerIps } from '../../api/queries/customers';
import { useCustomerInvoiceList } from '../../api/queries/invoices';
import { useShopPath } from '../../app/shop';
import { ShopTime } from '../../app/shop-dates';
import { useBodyForm } from '../../forms/body-form';
import { strings } from '../../strings';
import { Dialog } from '../../ui/Dialog';
import { Field, FormProblems } from '../../ui/Field';
import { count, money } from '../../ui/format';
import { Pager, SearchBox } from '../../ui/list';
import { Badge, Card, LoadError, Loading, Page } from '../../ui/Page';
import { useToast } from '../../ui/Toast';
import { InvoiceTable } from '../orders/InvoiceTable';
import { useIdempotencyKey } from '../orders/orders';
import './customers.css';

export default function CustomerScreen() {
  const params = useParams<{ shopId: string; customerId: string }>();
  const shopId = Number(params.shopId);
  const customerId = Number(params.customerId);
  const shopPath = useShopPath();
  const customer = useCustomer(shopId, customerId);

  const back = (
    <Link href={shopPath('/customers')} className="small">
      {strings.customer.customers}
    </Link>
  );
  if (customer.error)
    return (
      <Page title={strings.common.customer} back={back}>
        <LoadError error={customer.error} retry={() => customer.refetch()} />
      </Page>
    );
  if (!customer.data)
    return (
      <Page title={strings.common.customer} back={back}>
        <Loading />
      </Page>
    );
  const c = customer.data;

  return (
    <Page title={c.email} back={back}>
      <div className="stack">
        <div className="grid-2">
          <Details customer={c} />
          <Balance customer={c} shopId={shopId} />
        </div>
        <CustomerOrders shopId={shopId} customerId={customerId} />
        <CustomerIps shopId={shopId} customerId={customerId} />
      </div>
    </Page>
  );
}

function Details(props: { customer: Customer }) {
  const c = props.customer;
  return (
    <Card title={strings.customer.details}>
      <dl className="customers-facts">
        <dt>{strings.common.eMail}</dt>
        <dd>{c.email}</dd>
        <dt>{strings.common.completedOrders}</dt>
        <dd>{count(c.ordersCount)}</dd>
        <dt>{strings.common.totalSpent}</dt>
        <dd>{money(c.totalSpent, c.currency)}</dd>
        <dt>{strings.customer.customerSince}</dt>
        <dd>
          <ShopTime iso={c.createdAt} />
        </dd>
        <dt>{strings.common.lastOrder}</dt>
        <dd>
          <ShopTime iso={c.lastOrderAt} />
        </dd>
        <dt>{strings.common.referralCode}</dt>
        <dd>
          <code>{c.referralCode}</code>{' '}
          {c.referralDisabled ? <Badge tone="muted">{strings.common.disabled}</Badge> : null}
        </dd>
      </dl>
    </Card>
  );
}

type Direction = 'add' | 'remove';

/** The balance, with "Add to balance" and "Remove from balance" (a ledger entry each). */
function Balance(props: { customer: Customer; shopId: number }) {
  const c = props.customer;
  const [direction, setDirection] = useState<Direction | null>(null);
  return (
    <Card title={strings.common.balance}>
      <p className="stat">
        <span className="stat-value">{money(c.balance, c.currency)}</span>
        <span className="stat-label">{strings.customer.spendableWithTheBalance}</span>
      </p>
      <div className="row">
        <button type="button" className="btn" onClick={() => setDirection('add')}>
          {strings.customer.addToBalance}
        </button>
        <button type="button" className="btn" onClick={() => setDirection('remove')} disabled={c.balance <= 0}>
          {strings.customer.removeFromBalance}
        </button>
      </div>
      <Dialog
        open={direction !== null}
        onClose={() => setDirection(null)}
        title={direction === 'remove' ? strings.customer.removeFromBalance : strings.customer.addToBalance}
      >
        {direction ? (
          <BalanceForm
            key={direction}
            customer={c}
            shopId={props.shopId}
            direction={direction}
            close={() => setDirection(null)}
          />
        ) : null}
      </Dialog>
    </Card>
  );
}

type BalanceBody = BodyOf<'POST /self/{shopId}/customers/{customerId}/balance/add'>;

function BalanceForm(props: { customer: Customer; shopId: number; direction: Direction; close: () => void }) {
  const { customer, shopId, direction } = props;
  const customerId = customer.id;
  const notify = useToast();
  const idempotency = useIdempotencyKey();
  const balanceChanged = useBalanceChanged(shopId);
  const form = useBodyForm({
    operation:
      direction === 'add'
        ? 'POST /self/{shopId}/customers/{customerId}/balance/add'
        : 'POST /self/{shopId}/customers/{customerId}/balance/remove',
    defaultValues: { amount: '', note: '' },
    // An empty amount is sent missing, so the schema names the field.
    toBody: (values) => ({
      amount: (values.amount.trim() === '' ? undefined : Number(values.amount)) as number,
      note: values.note.trim() || null,
    }),
  });
  const move = useMutation({
    mutationFn: (body: BalanceBody) => {
      const options = {
        params: { path: { shopId, customerId }, header: { 'idempotency-key': idempotency.keyFor(body) } },
        body,
      };
      return unwrap(
        direction === 'add'
          ? api.POST('/self/{shopId}/customers/{customerId}/balance/add', options)
          : api.POST('/self/{shopId}/customers/{customerId}/balance/remove', options),
      );
    },
    onSuccess: (answer) => {
      balanceChanged(customer, answer.balance);
      notify(strings.customer.balanceIsNow(money(answer.balance, answer.currency)));
      props.close();
    },
    onSettled: (_data, error) => idempotency.settled(error),
  });
  return (
    <form className="stack" onSubmit={form.submit(move.mutateAsync)} noValidate>
      <p className="muted small">
        {direction === 'add' ? strings.customer.credit : strings.customer.debit}{' '}
        {strings.customer.theBalanceIsNow(customer.email, money(customer.balance, customer.currency))}
      </p>
      <FormProblems form={form} error={move.error} />
      <Field label={strings.customer.amount(customer.currency)} error={form.problem('amount')}>
        {(ids) => (
          <input
            {...ids}
            {...form.register('amount')}
            className="input"
            type="number"
            inputMode="decimal"
            min={0}
            step="any"
            required
          />
        )}
      </Field>
      <Field label={strings.common.reason} error={form.problem('note')} hint={strings.customer.keptWithTheLedger}>
        {(ids) => <textarea {...ids} {...form.register('note')} className="input" rows={2} maxLength={500} />}
      </Field>
      <div className="row">
        <button
          type="submit"
          className={`btn ${direction === 'add' ? 'btn-primary' : 'btn-danger'}`}
          disabled={move.isPending}
        >
          {move.isPending ? strings.common.saving : direction === 'add' ? strings.common.add : strings.common.remove}
        </button>
        <button type="button" className="btn btn-ghost" onClick={props.close}>
          {strings.common.close}
        </button>
      </div>
    </form>
  );
}

/** This customer's orders: the invoice list filtered by customerId, with search and cursor paging. */
function CustomerOrders(props: { shopId: number; customerId: number }) {
  const { shopId, customerId } = props;
  const shopPath = useShopPath();
  const list = useCustomerInvoiceList(shopId, customerId);
  return (
    <Card
      title={strings.common.orders}
      actions={
        <Link href={shopPath(`/orders?customerId=${customerId}`)} className="small">
          {strings.customer.openInOrders}
        </Link>
      }
    >
      <div className="stack">
        <div className="toolbar">
          <SearchBox value={list.search} onChange={list.setSearch} label={strings.customer.searchThisCustomersOrders} />
        </div>
        {list.result.error ? <LoadError error={list.result.error} retry={() => list.result.refetch()} /> : null}
        <InvoiceTable
          list={list}
          withEmail={false}
          href={(i) => shopPath(`/orders/${i.id}`)}
          empty={list.search ? strings.customer.noOrderMatches : strings.customer.noOrders}
        />
        <Pager list={list} />
      </div>
    </Card>
  );
}

/** The IP addresses the customer bought from (a numbered page list). */
function CustomerIps(props: { shopId: number; customerId: number }) {
  const { shopId, customerId } = props;
  const [pageNumber, setPageNumber] = useState(1);
  const ips = useCustomerIps(shopId, customerId, pageNumber);
  const data = ips.data;
  return (
    <Card title={strings.customer.ipAddresses}>
      {ips.error ? <LoadError error={ips.error} retry={() => ips.refetch()} /> : null}
      <div className="table-wrap">
        <table className="table" aria-busy={ips.isLoading || undefined}>
          <caption className="sr-only">{strings.customer.ipAddresses}</caption>
          <thead>
            <tr>
              <th>{strings.common.ipAddress}</th>
              <th className="num">{strings.common.orders}</th>
              <th>{strings.customer.firstSeen}</th>
              <th>{strings.customer.lastSeen}</th>
            </tr>
          </thead>
          <tbody>
            {!data || data.items.length === 0 ? (
              <tr>
                <td colSpan={4} className="empty">
                  {ips.isLoading ? strings.common.loading : strings.customer.noIpAddressRecorded}
                </td>
              </tr>
            ) : (
              data.items.map((ip) => (
                <tr key={ip.ip}>
                  <td data-label={strings.common.ipAddress}>
                    <code>{ip.ip}</code>
                  </td>
                  <td data-label={strings.common.orders} className="num">
                    {count(ip.count)}
                  </td>
                  <td data-label={strings.customer.firstSeen}>
                    <ShopTime iso={ip.firstSeenAt} />
                  </td>
                  <td data-label={strings.customer.lastSeen}>
                    <ShopTime iso={ip.lastSeenAt} />
                  </td>
                </tr>
              ))
            )}
          </tbody>
        </table>
      </div>
      {data && data.totalPages > 1 ? (
        <nav className="pager" aria-label={strings.customer.ipAddressPages}>
          <span className="muted">{strings.customer.pageOf(data.pageNumber, data.totalPages)}</span>
          <button
            type="button"
            className="btn"
            disabled={pageNumber <= 1}
            onClick={() => setPageNumber((n) => Math.max(1, n - 1))}
          >
            {strings.common.previous}
          </button>
          <button
            type="button"
            className="btn"
            disabled={pageNumber >= data.totalPages}
            onClick={() => setPageNumber((n) => n + 1)}
          >
            {strings.common.next}
          </button>
        </nav>
      ) : null}
    </Card>
  );
}
