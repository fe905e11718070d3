import { ApiError } from '../../api/client';
import { type Invoice, invoiceFilters, invoiceStatuses, useInvoiceList } from '../../api/queries/invoices';
import type { ListState } from '../../api/queries/list';
import { useProductChoices } from '../../api/queries/products';
import { useGatewayNames } from '../../api/queries/settings';
import { useShop, useShopPath } from '../../app/shop';
import { useShopDates } from '../../app/shop-dates';
import { strings } from '../../strings';
import { FormError } from '../../ui/Field';
import { FilterSelect, Pager, SearchBox } from '../../ui/list';
import { LoadError, Page } from '../../ui/Page';
import { InvoiceTable } from './InvoiceTable';
import { gatewayLabel, invoiceStatusLabels } from './orders';
import './orders.css';

export default function OrdersScreen() {
  const { shopId } = useShop();
  const shopPath = useShopPath();
  const list = useInvoiceList(shopId);
  const dates = useShopDates();
  const filtered = Object.keys(list.filters).length > 0 || list.search !== '';

  return (
    <Page title={strings.common.orders}>
      <OrderFilters list={list} shopId={shopId} />
      {dates.known ? <p className="muted small orders-zone">{strings.orders.datesIn(dates.zone)}</p> : null}
      {list.result.error instanceof ApiError && list.result.error.status === 400 ? (
        <FormError error={list.result.error} />
      ) : list.result.error ? (
        <LoadError error={list.result.error} retry={() => list.result.refetch()} />
      ) : null}
      <InvoiceTable
        list={list}
        href={(i) => shopPath(`/orders/${i.id}`)}
        empty={filtered ? strings.orders.noOrderMatchesThese : strings.orders.noOrdersYet}
      />
      <Pager list={list} />
    </Page>
  );
}

/** Every filter the invoice list takes, bound to the URL. */
function OrderFilters(props: { list: ListState<Invoice>; shopId: number }) {
  const { list, shopId } = props;
  const gateways = useGatewayNames(shopId);
  const products = useProductChoices(shopId);
  const productId = list.filters.productId;
  const productOptions: [string, string][] = (products.data?.items ?? []).map((p) => [String(p.id), p.title]);
  if (productId && !productOptions.some(([id]) => id === productId))
    productOptions.unshift([productId, strings.orders.product(productId)]);
  const gatewayOptions: [string, string][] = (gateways.data ?? []).map((g) => [
    g.name,
    g.enabled ? gatewayLabel(g.name) : strings.orders.disabled(gatewayLabel(g.name)),
  ]);
  const gateway = list.filters.gateway;
  if (gateway && !gatewayOptions.some(([name]) => name === gateway)) gatewayOptions.unshift([gateway, gateway]);
  const customerId = list.filters.customerId;

  return (
    <div className="toolbar orders-toolbar">
      <SearchBox value={list.search} onChange={list.setSearch} label={strings.orders.searchByOrderId} />
      <FilterSelect
        list={list}
        name="status"
        label={strings.common.status}
        options={invoiceStatuses.map((s) => [s, invoiceStatusLabels[s]] as const)}
      />
      <FilterSelect list={list} name="gateway" label={strings.common.gateway} options={gatewayOptions} />
      <FilterSelect list={list} name="productId" label={strings.common.product} options={productOptions} />
      <label className="orders-date">
        <span>{strings.common.from}</span>
        <input
          type="date"
          className="input"
          value={list.filters.fromDate ?? ''}
          max={list.filters.toDate}
          onChange={(e) => list.setFilter('fromDate', e.target.value || undefined)}
        />
      </label>
      <label className="orders-date">
        <span>{strings.common.to}</span>
        <input
          type="date"
          className="input"
          value={list.filters.toDate ?? ''}
          min={list.filters.fromDate}
          onChange={(e) => list.setFilter('toDate', e.target.value || undefined)}
        />
      </label>
      {customerId ? (
        <button
          type="button"
          className="btn btn-ghost"
          onClick={() => list.setFilter('customerId', undefined)}
          aria-label={strings.orders.removeTheFilterOn(customerId)}
        >
          {strings.orders.customer(customerId)}
        </button>
      ) : null}
      {Object.keys(list.filters).length > 0 ? (
        <button
          type="button"
          className="btn btn-ghost"
          onClick={() => {
            for (const name of invoiceFilters) list.setFilter(name, undefined);
          }}
        >
          {strings.common.clearFilters}
        </button>
      ) : null}
    </div>
  );
}
