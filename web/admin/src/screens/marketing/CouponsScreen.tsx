import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { ApiError, api, unwrap } from '../../api/client';
import type { paths } from '../../api/schema';
import { useShop } from '../../app/shop';
import { ConfirmButton, Dialog } from '../../ui/Dialog';
import { Field, FormError } from '../../ui/Field';
import { count, dateTime, money } from '../../ui/format';
import { DataTable, type ListQuery, Pager, pageQuery, SearchBox, useList } from '../../ui/list';
import { Badge, LoadError, Page } from '../../ui/Page';
import { useToast } from '../../ui/Toast';
import './marketing.css';
import { useRemove } from '../../ui/remove';

type Coupon =
  paths['/self/{shopId}/coupons']['get']['responses'][200]['content']['application/json']['data']['items'][number];
type CouponBody = paths['/self/{shopId}/coupons']['post']['requestBody']['content']['application/json'];
type Gateway = NonNullable<CouponBody['restrictToGateways']>[number];

/** Every gateway the API knows (a Record, so a new one in the schema fails the type check here). */
const gatewayLabels: Record<Gateway, string> = {
  cryptocommerce: 'Crypto commerce',
  'virtual-payments': 'Virtual payments',
  tipjar: 'Tip jar',
  balance: 'Shop balance',
  cardconnect: 'CardConnect',
  walletemail: 'Wallet e-mail',
  mobilecash: 'Mobile cash',
  'wallet-ff': 'Wallet FF',
  cardreader: 'Card reader',
};
const gateways = Object.keys(gatewayLabels) as Gateway[];

const fields = [
  'name',
  'note',
  'discount',
  'isFixed',
  'startDate',
  'endDate',
  'restrictToProducts',
  'restrictToGateways',
  'maxUses',
] as const;

/** The API's problem with a field or any entry of it (`restrictToProducts[2]`). */
function problemWith(error: unknown, name: string): string | undefined {
  if (!(error instanceof ApiError)) return undefined;
  if (error.fields[name]) return error.fields[name];
  const entry = Object.keys(error.fields).find((path) => path.startsWith(`${name}[`) || path.startsWith(`${name}.`));
  return entry ? `${entry}: ${error.fields[entry]}` : undefined;
}

/** The field paths a form shows, entries included, so FormError lists only the rest. */
function shownPaths(error: unknown): string[] {
  if (!(error instanceof ApiError)) return [...fields];
  const entries = Object.keys(error.fields).filter((path) =>
    fields.some((name) => path.startsWith(`${name}[`) || path.startsWith(`${name}.`)),
  );
  return [...fields, ...entries];
}

/** An ISO instant as a `datetime-local` value in this browser's time zone. */
function toLocalInput(iso: string | null): string {
  if (!iso) return '';
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

/** A `datetime-local` value with this browser's offset, so the API reads the time the owner meant. */
function fromLocalInput(value: string): string | null {
  if (!value) return null;
  const offset = -new Date(value).getTimezoneOffset();
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  const hh = String(Math.floor(abs / 60)).padStart(2, '0');
  const mm = String(abs % 60).padStart(2, '0');
  return `${value.length === 16 ? `${value}:00` : value}${sign}${hh}:${mm}`;
}

function couponState(c: Coupon): { label: string; tone: 'ok' | 'warn' | 'bad' | 'muted' } {
  const now = Date.now();
  if (c.endDate && Date.parse(c.endDate) < now) return { label: 'Expired', tone: 'muted' };
  if (c.maxUses !== null && c.uses >= c.maxUses) return { label: 'Used up', tone: 'bad' };
  if (c.startDate && Date.parse(c.startDate) > now) return { label: 'Scheduled', tone: 'warn' };
  return { label: 'Active', tone: 'ok' };
}

export default function CouponsScreen() {
  const { shopId, currency } = useShop();
  const [editing, setEditing] = useState<Coupon | 'new' | null>(null);
  const list = useList<Coupon>(['shop', shopId, 'coupons', 'list'], (query: ListQuery) =>
    unwrap(
      api.GET('/self/{shopId}/coupons', {
        params: {
          path: { shopId },
          query: {
            ...pageQuery(query),
          },
        },
      }),
    ),
  );
  const remove = useRemove(['shop', shopId, 'coupons'], 'Coupon deleted', (couponId: number) =>
    unwrap(api.DELETE('/self/{shopId}/coupons/{couponId}', { params: { path: { shopId, couponId } } })),
  );

  return (
    <Page
      title="Coupons"
      actions={
        <button type="button" className="btn btn-primary" onClick={() => setEditing('new')}>
          Add coupon
        </button>
      }
    >
      <div className="toolbar">
        <SearchBox value={list.search} onChange={list.setSearch} label="Search codes" />
      </div>
      {list.result.error ? <LoadError error={list.result.error} retry={() => list.result.refetch()} /> : null}
      <DataTable
        caption="Coupons, newest first"
        rows={list.rows}
        list={list}
        loading={list.result.isLoading}
        rowKey={(c) => c.id}
        empty="No coupons yet."
        columns={[
          {
            header: 'Code',
            cell: (c) => (
              <>
                <code>{c.name}</code>
                {c.note ? <div className="muted small">{c.note}</div> : null}
              </>
            ),
          },
          {
            header: 'Discount',
            cell: (c) => (c.isFixed ? money(c.discount, c.currency ?? currency) : `${c.discount} %`),
          },
          {
            header: 'Uses',
            className: 'num',
            cell: (c) => `${count(c.uses)} / ${c.maxUses === null ? '∞' : count(c.maxUses)}`,
          },
          {
            header: 'Valid',
            cell: (c) => (
              <>
                <Badge tone={couponState(c).tone}>{couponState(c).label}</Badge>
                <div className="small muted">
                  {c.startDate ? `from ${dateTime(c.startDate)}` : 'from creation'}
                  <br />
                  {c.endDate ? `until ${dateTime(c.endDate)}` : 'never expires'}
                </div>
              </>
            ),
          },
          {
            header: 'Applies to',
            cell: (c) => (
              <span className="small">
                {c.restrictToProducts.length === 0
                  ? 'Every product'
                  : `${count(c.restrictToProducts.length)} product${c.restrictToProducts.length === 1 ? '' : 's'}`}
                <br />
                {c.restrictToGateways.length === 0
                  ? 'Every gateway'
                  : c.restrictToGateways.map((g) => gatewayLabels[g as Gateway] ?? g).join(', ')}
              </span>
            ),
          },
          {
            header: 'Actions',
            cell: (c) => (
              <div className="row">
                <button type="button" className="btn" onClick={() => setEditing(c)}>
                  Edit
                </button>
                <ConfirmButton
                  label="Delete"
                  danger
                  question={`Delete the coupon ${c.name}? Orders that used it keep its code.`}
                  disabled={remove.isPending}
                  onConfirm={() => remove.mutate(c.id)}
                />
              </div>
            ),
          },
        ]}
      />
      <Pager list={list} />
      <Dialog
        open={editing !== null}
        onClose={() => setEditing(null)}
        title={editing === 'new' ? 'New coupon' : 'Edit coupon'}
        wide
      >
        {editing ? <CouponForm coupon={editing === 'new' ? null : editing} onDone={() => setEditing(null)} /> : null}
      </Dialog>
    </Page>
  );
}

function CouponForm(props: { coupon: Coupon | null; onDone: () => void }) {
  const { shopId, currency } = useShop();
  const queryClient = useQueryClient();
  const notify = useToast();
  const c = props.coupon;
  const [name, setName] = useState(c?.name ?? '');
  const [note, setNote] = useState(c?.note ?? '');
  const [isFixed, setFixed] = useState(c?.isFixed ?? false);
  const [discount, setDiscount] = useState(c ? String(c.discount) : '');
  const [maxUses, setMaxUses] = useState(c?.maxUses === null || c === null ? '' : String(c.maxUses));
  const [startDate, setStartDate] = useState(toLocalInput(c?.startDate ?? null));
  const [endDate, setEndDate] = useState(toLocalInput(c?.endDate ?? null));
  const [products, setProducts] = useState<number[]>(c?.restrictToProducts ?? []);
  const [chosenGateways, setGateways] = useState<Gateway[]>((c?.restrictToGateways ?? []) as Gateway[]);

  const save = useMutation({
    mutationFn: () => {
      const body: CouponBody = {
        name,
        note: note.trim() === '' ? null : note,
        discount: Number(discount),
        isFixed,
        startDate: fromLocalInput(startDate),
        endDate: fromLocalInput(endDate),
        restrictToProducts: products,
        restrictToGateways: chosenGateways,
        maxUses: maxUses.trim() === '' ? null : Number(maxUses),
      };
      return c
        ? unwrap(api.PUT('/self/{shopId}/coupons/{couponId}', { params: { path: { shopId, couponId: c.id } }, body }))
        : unwrap(api.POST('/self/{shopId}/coupons', { params: { path: { shopId } }, body }));
    },
    onSuccess: async () => {
      notify(c ? 'Coupon saved' : 'Coupon added');
      await queryClient.invalidateQueries({ queryKey: ['shop', shopId, 'coupons'] });
      props.onDone();
    },
  });
  const err = save.error;
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;

  return (
    <form
      className="stack"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate();
      }}
    >
      <FormError error={err} fields={shownPaths(err)} />
      <div className="grid-2">
        <Field
          label="Code"
          error={problemWith(err, 'name')}
          hint="Letters, digits, _ and -; buyers enter it at checkout."
        >
          {(ids) => (
            <input
              {...ids}
              className="input"
              maxLength={64}
              autoComplete="off"
              value={name}
              onChange={(e) => setName(e.target.value)}
            />
          )}
        </Field>
        <Field label="Maximum uses" error={problemWith(err, 'maxUses')} hint="Empty: unlimited.">
          {(ids) => (
            <input
              {...ids}
              className="input"
              type="number"
              min={0}
              step={1}
              inputMode="numeric"
              value={maxUses}
              onChange={(e) => setMaxUses(e.target.value)}
            />
          )}
        </Field>
      </div>
      <fieldset className="marketing-fieldset">
        <legend>Discount type</legend>
        <label className="check">
          <input type="radio" name="discount-type" checked={!isFixed} onChange={() => setFixed(false)} />
          Percentage
        </label>
        <label className="check">
          <input type="radio" name="discount-type" checked={isFixed} onChange={() => setFixed(true)} />
          Fixed amount ({currency})
        </label>
      </fieldset>
      {problemWith(err, 'isFixed') ? <p className="field-error">{problemWith(err, 'isFixed')}</p> : null}
      <Field
        label={isFixed ? `Discount (${currency})` : 'Discount (%)'}
        error={problemWith(err, 'discount')}
        hint={
          isFixed
            ? 'Taken off the eligible subtotal, never more than it.'
            : 'More than 0, at most 100, up to 2 decimals.'
        }
      >
        {(ids) => (
          <input
            {...ids}
            className="input"
            type="number"
            min={0}
            step="any"
            inputMode="decimal"
            value={discount}
            onChange={(e) => setDiscount(e.target.value)}
          />
        )}
      </Field>
      <div className="grid-2">
        <Field label="Valid from" error={problemWith(err, 'startDate')} hint={`Empty: at once. Times in ${zone}.`}>
          {(ids) => (
            <input
              {...ids}
              className="input"
              type="datetime-local"
              value={startDate}
              onChange={(e) => setStartDate(e.target.value)}
            />
          )}
        </Field>
        <Field label="Expires" error={problemWith(err, 'endDate')} hint="Empty: never expires.">
          {(ids) => (
            <input
              {...ids}
              className="input"
              type="datetime-local"
              value={endDate}
              onChange={(e) => setEndDate(e.target.value)}
            />
          )}
        </Field>
      </div>
      <ProductPicker
        shopId={shopId}
        chosen={products}
        onChange={setProducts}
        error={problemWith(err, 'restrictToProducts')}
      />
      <fieldset className="marketing-fieldset">
        <legend>Payment methods (none chosen: every one)</legend>
        {gateways.map((g) => (
          <label key={g} className="check">
            <input
              type="checkbox"
              checked={chosenGateways.includes(g)}
              onChange={(e) =>
                setGateways((all) => (e.target.checked ? [...all, g] : all.filter((other) => other !== g)))
              }
            />
            {gatewayLabels[g]}
          </label>
        ))}
      </fieldset>
      {problemWith(err, 'restrictToGateways') ? (
        <p className="field-error">{problemWith(err, 'restrictToGateways')}</p>
      ) : null}
      <Field label="Note" error={problemWith(err, 'note')} hint="For you only.">
        {(ids) => (
          <textarea {...ids} className="input" rows={2} value={note} onChange={(e) => setNote(e.target.value)} />
        )}
      </Field>
      {c ? <p className="muted small">Used by {count(c.uses)} orders so far.</p> : null}
      <div className="row">
        <button type="submit" className="btn btn-primary" disabled={save.isPending}>
          Save
        </button>
        <button type="button" className="btn" onClick={props.onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/**
 * The products a coupon is limited to: a search over the shop's products (on the server) with
 * a checkbox each, and the chosen ones as removable chips.
 */
function ProductPicker(props: {
  shopId: number;
  chosen: number[];
  onChange: (next: number[]) => void;
  error: string | undefined;
}) {
  const { shopId, chosen, onChange } = props;
  const [text, setText] = useState('');
  const [search, setSearch] = useState('');
  // Ask the server once typing pauses.
  useEffect(() => {
    const timer = setTimeout(() => setSearch(text.trim()), 300);
    return () => clearTimeout(timer);
  }, [text]);
  // Titles of every product seen, so chosen ones keep their names when the search changes.
  const [titles, setTitles] = useState<Record<number, string>>({});
  const products = useQuery({
    queryKey: ['shop', shopId, 'products', 'coupon-picker', search],
    queryFn: async () => {
      const page = await unwrap(
        api.GET('/self/{shopId}/products', {
          params: {
            path: { shopId },
            query: { pageSize: 100, orderBy: 'title', ...(search ? { searchString: search } : {}) },
          },
        }),
      );
      setTitles((all) => ({ ...all, ...Object.fromEntries(page.items.map((p) => [p.id, p.title])) }));
      return page;
    },
    placeholderData: keepPreviousData,
  });
  const toggle = (id: number, on: boolean) => onChange(on ? [...chosen, id] : chosen.filter((other) => other !== id));
  return (
    <fieldset className="marketing-fieldset marketing-fieldset-column">
      <legend>Products (none chosen: every product)</legend>
      {chosen.length > 0 ? (
        <ul className="marketing-chips" aria-label="Chosen products">
          {chosen.map((id) => (
            <li key={id}>
              {titles[id] ?? `Product #${id}`}
              <button
                type="button"
                className="btn btn-ghost"
                aria-label={`Remove ${titles[id] ?? `product #${id}`}`}
                onClick={() => toggle(id, false)}
              >
                ✕
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <input
        type="search"
        className="input"
        aria-label="Search products"
        placeholder="Search products"
        value={text}
        onChange={(e) => setText(e.target.value)}
      />
      {products.error ? <LoadError error={products.error} /> : null}
      <div className="marketing-picker">
        {products.data?.items.length === 0 ? <span className="muted">No products found.</span> : null}
        {products.data?.items.map((p) => (
          <label key={p.id} className="check">
            <input type="checkbox" checked={chosen.includes(p.id)} onChange={(e) => toggle(p.id, e.target.checked)} />
            {p.title}
          </label>
        ))}
        {products.data && products.data.totalCount > products.data.items.length ? (
          <span className="muted small">
            {count(products.data.totalCount - products.data.items.length)} more; search to narrow.
          </span>
        ) : null}
      </div>
      {props.error ? <p className="field-error">{props.error}</p> : null}
    </fieldset>
  );
}
