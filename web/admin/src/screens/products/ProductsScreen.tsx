import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'wouter';
import { api, unwrap } from '../../api/client';
import { queryKeys } from '../../api/queries/keys';
import { type ProductListItem, useProductList } from '../../api/queries/products';
import { useGateways } from '../../api/queries/settings';
import { useShop, useShopPath } from '../../app/shop';
import { useBodyForm } from '../../forms/body-form';
import { strings } from '../../strings';
import { Dialog } from '../../ui/Dialog';
import { FormError, FormProblems } from '../../ui/Field';
import { count, money } from '../../ui/format';
import { type Column, DataTable, Pager, SearchBox } from '../../ui/list';
import { Badge, LoadError, Page } from '../../ui/Page';
import { useToast } from '../../ui/Toast';
import { gatewayLabel } from '../orders/orders';
import { type Gateway, productTypeShort, visibilityWords } from './catalog';
import './catalog.css';

/** How many products one bulk call carries: small enough that the progress bar moves. */
const BULK_CHUNK = 25;

type BulkAction =
  | { kind: 'visibility'; label: string; flags: { unlisted?: boolean; private?: boolean; onHold?: boolean } }
  | { kind: 'delete'; label: string }
  | { kind: 'payment-methods'; label: string; gatewaysList: Partial<Record<Gateway, boolean>> };

const visibilityActions: { label: string; flags: { unlisted?: boolean; private?: boolean; onHold?: boolean } }[] = [
  { label: strings.products.makePublic, flags: { unlisted: false, private: false } },
  { label: strings.products.unlist, flags: { unlisted: true } },
  { label: strings.products.makePrivate, flags: { private: true } },
  { label: strings.products.putOnHold, flags: { onHold: true } },
  { label: strings.products.releaseHold, flags: { onHold: false } },
];

function stockOf(product: ProductListItem): number | null {
  let total = 0;
  for (const variant of product.variants) {
    if (variant.stock === null) return null;
    total += variant.stock;
  }
  return total;
}

function priceRange(product: ProductListItem, currency: string): string {
  const prices = product.variants.map((v) => v.priceDetails.amount);
  if (prices.length === 0) return '—';
  const low = Math.min(...prices);
  const high = Math.max(...prices);
  return low === high ? money(low, currency) : `${money(low, currency)} – ${money(high, currency)}`;
}

export default function ProductsScreen() {
  const { shopId, currency } = useShop();
  const shopPath = useShopPath();
  const queryClient = useQueryClient();
  const notify = useToast();
  const [selected, setSelected] = useState<Set<string | number>>(new Set());
  const [progress, setProgress] = useState<{ label: string; done: number; total: number } | null>(null);
  const [bulkError, setBulkError] = useState<unknown>(null);
  const [paymentsOpen, setPaymentsOpen] = useState(false);

  const list = useProductList(shopId);

  const columns: Column<ProductListItem>[] = [
    { header: strings.common.title, sort: 'title', cell: (p) => p.title },
    {
      header: strings.common.type,
      cell: (p) => [...new Set(p.variants.map((v) => productTypeShort[v.productType]))].join(', ') || '—',
    },
    { header: strings.common.price, sort: 'price', className: 'num', cell: (p) => priceRange(p, currency) },
    {
      header: strings.common.stock,
      className: 'num',
      cell: (p) => {
        const stock = stockOf(p);
        return stock === null ? strings.products.unlimited : count(stock);
      },
    },
    {
      header: strings.common.visibility,
      cell: (p) => {
        const words = visibilityWords(p);
        return words.length === 0 ? (
          <Badge tone="ok">{strings.products.public}</Badge>
        ) : (
          <span className="row">
            {words.map((w) => (
              <Badge key={w} tone={w === 'On hold' ? 'warn' : 'muted'}>
                {w}
              </Badge>
            ))}
          </span>
        );
      },
    },
    { header: strings.common.variants, className: 'num', cell: (p) => count(p.variants.length) },
  ];

  const run = async (action: BulkAction) => {
    const ids = [...selected].map(Number);
    if (ids.length === 0) return;
    if (action.kind === 'delete' && !window.confirm(strings.products.deleteProductSOrders(ids.length))) return;
    setBulkError(null);
    setProgress({ label: action.label, done: 0, total: ids.length });
    let done = 0;
    try {
      for (let i = 0; i < ids.length; i += BULK_CHUNK) {
        const productIds = ids.slice(i, i + BULK_CHUNK);
        const params = { path: { shopId } };
        if (action.kind === 'visibility')
          await unwrap(
            api.PUT('/self/{shopId}/products/bulk/update/visibility', {
              params,
              body: { productIds, ...action.flags },
            }),
          );
        else if (action.kind === 'delete')
          await unwrap(api.POST('/self/{shopId}/products/bulk/delete', { params, body: { productIds } }));
        else
          await unwrap(
            api.PUT('/self/{shopId}/v2/products/bulk/update/payment-methods', {
              params,
              body: { productIds, gatewaysList: action.gatewaysList },
            }),
          );
        done += productIds.length;
        setProgress({ label: action.label, done, total: ids.length });
      }
      notify(strings.products.productSDone(action.label, count(done)));
      setSelected(new Set());
    } catch (error) {
      setBulkError(error);
      notify(strings.products.stoppedAfterOf(action.label, count(done), count(ids.length)), 'bad');
    } finally {
      setProgress(null);
      await queryClient.invalidateQueries({ queryKey: queryKeys.products.all(shopId) });
      await queryClient.invalidateQueries({ queryKey: queryKeys.listings.all(shopId) });
    }
  };

  const busy = progress !== null;
  return (
    <Page
      title={strings.common.products}
      actions={
        <Link href={shopPath('/products/new')} className="btn btn-primary">
          {strings.products.addProduct}
        </Link>
      }
    >
      <div className="toolbar">
        <SearchBox value={list.search} onChange={list.setSearch} label={strings.common.searchProducts} />
      </div>

      {selected.size > 0 || busy ? (
        <section className="card catalog-bulk" aria-label={strings.products.bulkActions}>
          <div className="row">
            <strong>{strings.products.selected(count(selected.size))}</strong>
            {visibilityActions.map((a) => (
              <button
                key={a.label}
                type="button"
                className="btn"
                disabled={busy}
                onClick={() => run({ kind: 'visibility', ...a })}
              >
                {a.label}
              </button>
            ))}
            <button type="button" className="btn" disabled={busy} onClick={() => setPaymentsOpen(true)}>
              {strings.products.paymentMethods}
            </button>
            <button
              type="button"
              className="btn btn-danger"
              disabled={busy}
              onClick={() => run({ kind: 'delete', label: strings.common.delete })}
            >
              {strings.products.deleteSelected}
            </button>
            <button type="button" className="btn btn-ghost" disabled={busy} onClick={() => setSelected(new Set())}>
              {strings.products.clearSelection}
            </button>
          </div>
          {progress ? (
            <div className="stack catalog-progress">
              <label htmlFor="bulk-progress">
                {strings.products.of(progress.label, count(progress.done), count(progress.total))}
              </label>
              <progress id="bulk-progress" value={progress.done} max={progress.total} />
            </div>
          ) : null}
          <FormError error={bulkError} />
        </section>
      ) : null}

      {list.result.error ? <LoadError error={list.result.error} retry={() => list.result.refetch()} /> : null}
      <DataTable
        rows={list.rows}
        columns={columns}
        rowKey={(p) => p.id}
        href={(p) => shopPath(`/products/${p.id}`)}
        list={list}
        loading={list.result.isPending}
        selection={{ selected, onChange: setSelected }}
        rowLabel={(p) => p.title}
        caption={strings.common.products}
        empty={list.search ? strings.products.noProductMatchesThis : strings.products.noProductsYetAdd}
      />
      <Pager list={list} />

      <PaymentMethodsDialog
        open={paymentsOpen}
        onClose={() => setPaymentsOpen(false)}
        shopId={shopId}
        productIds={[...selected].map(Number)}
        onApply={(gatewaysList) => {
          setPaymentsOpen(false);
          void run({ kind: 'payment-methods', label: strings.common.paymentMethods, gatewaysList });
        }}
      />
    </Page>
  );
}

type Choice = '' | 'allow' | 'remove';

/** Allow or remove gateways on every variant of the selected products. */
function PaymentMethodsDialog(props: {
  open: boolean;
  onClose: () => void;
  shopId: number;
  productIds: number[];
  onApply: (gatewaysList: Partial<Record<Gateway, boolean>>) => void;
}) {
  const gateways = useGateways(props.shopId);
  const form = useBodyForm({
    operation: 'PUT /self/{shopId}/v2/products/bulk/update/payment-methods',
    defaultValues: { choices: {} as Partial<Record<Gateway, Choice>> },
    // Checked as the first call of the bulk action will be (it sends the products 25 at a time).
    toBody: (values) => ({
      productIds: props.productIds.slice(0, BULK_CHUNK),
      gatewaysList: Object.fromEntries(
        Object.entries(values.choices).flatMap(([name, choice]) => (choice ? [[name, choice === 'allow']] : [])),
      ),
    }),
  });
  const choices = form.watch('choices');
  const chosen = Object.values(choices).filter(Boolean).length;
  return (
    <Dialog open={props.open} onClose={props.onClose} title={strings.common.paymentMethods}>
      <form
        className="stack"
        onSubmit={form.submit(async (body) => {
          props.onApply(body.gatewaysList);
          form.reset();
        })}
      >
        <p className="muted">{strings.products.forTheSelectedProduct(count(props.productIds.length))}</p>
        <FormProblems form={form} error={null} />
        {gateways.error ? <LoadError error={gateways.error} /> : null}
        {(gateways.data ?? []).map((g) => (
          <label key={g.name} className="row catalog-gateway-choice">
            <span className="grow">
              {gatewayLabel(g.name)}{' '}
              {g.enabled ? null : <span className="muted small">{strings.common.notEnabledInSettings}</span>}
            </span>
            <select
              className="input"
              aria-label={strings.products.gateway(gatewayLabel(g.name))}
              {...form.register(`choices.${g.name}`)}
            >
              <option value="">{strings.common.unchanged}</option>
              <option value="allow">{strings.products.allow}</option>
              <option value="remove">{strings.common.remove}</option>
            </select>
          </label>
        ))}
        <div className="row">
          <button type="submit" className="btn btn-primary" disabled={chosen === 0}>
            {strings.products.apply}
          </button>
          <button type="button" className="btn" onClick={props.onClose}>
            {strings.common.cancel}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
