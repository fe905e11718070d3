import { useEffect, useMemo, useState } from 'react';
import { useController } from 'react-hook-form';
import { GATEWAY_NAMES } from '../../../../../src/shared/gateway-names';
import { type Coupon, type CouponBody, coupons } from '../../api/queries/coupons';
import { useCouponProductSearch } from '../../api/queries/products';
import { useShop } from '../../app/shop';
import { useShopDates } from '../../app/shop-dates';
import type { BodyForm } from '../../forms/body-form';
import { strings } from '../../strings';
import { Field } from '../../ui/Field';
import { count, money, type ShopDates } from '../../ui/format';
import { Badge, LoadError, Loading, Page } from '../../ui/Page';
import { ResourceScreen, type ResourceScreenConfig } from '../../ui/ResourceScreen';
import './marketing.css';

type Gateway = NonNullable<CouponBody['restrictToGateways']>[number];

/** Every gateway the API knows, by its name (a Record, so a new one in the schema fails the type check here). */
const gatewayLabels: Record<Gateway, string> = GATEWAY_NAMES;
const gateways = Object.keys(gatewayLabels) as Gateway[];

type CouponValues = {
  name: string;
  note: string;
  /** The discount type's radio value. */
  isFixed: 'true' | 'false';
  discount: string;
  maxUses: string;
  /** `datetime-local` values, on the shop's clock (not the browser's). */
  startDate: string;
  endDate: string;
  restrictToProducts: number[];
  restrictToGateways: Gateway[];
};
type CouponForm = BodyForm<CouponValues, unknown>;

/**
 * A `datetime-local` value as the API reads it: without an offset, so on the shop's clock (its
 * time zone, daylight saving included, or its fixed offset), the clock the form shows it on.
 */
function fromLocalInput(value: string): string | null {
  if (!value) return null;
  return value.length === 16 ? `${value}:00` : value;
}

function couponState(c: Coupon): { label: string; tone: 'ok' | 'warn' | 'bad' | 'muted' } {
  const now = Date.now();
  if (c.endDate && Date.parse(c.endDate) < now) return { label: strings.coupons.expired, tone: 'muted' };
  if (c.maxUses !== null && c.uses >= c.maxUses) return { label: strings.coupons.usedUp, tone: 'bad' };
  if (c.startDate && Date.parse(c.startDate) > now) return { label: strings.coupons.scheduled, tone: 'warn' };
  return { label: strings.common.active, tone: 'ok' };
}

/** The discount in the shop's currency (a fixed one) or as a percentage. */
function Discount(props: { coupon: Coupon }) {
  const { currency } = useShop();
  const c = props.coupon;
  return <>{c.isFixed ? money(c.discount, c.currency ?? currency) : `${c.discount} %`}</>;
}

/** When a coupon is valid, on the shop's clock. */
function Validity(props: { coupon: Coupon }) {
  const { dateTime } = useShopDates();
  const c = props.coupon;
  return (
    <>
      <Badge tone={couponState(c).tone}>{couponState(c).label}</Badge>
      <div className="small muted">
        {c.startDate ? strings.coupons.from(dateTime(c.startDate)) : strings.coupons.fromCreation}
        <br />
        {c.endDate ? strings.coupons.until(dateTime(c.endDate)) : strings.coupons.neverExpires}
      </div>
    </>
  );
}

/** The screen, its form's dates on the shop's clock. */
const couponsConfig = (dates: ShopDates): ResourceScreenConfig<typeof coupons, CouponValues> => ({
  resource: coupons,
  title: strings.common.coupons,
  addLabel: strings.coupons.addCoupon,
  searchLabel: strings.coupons.searchCodes,
  caption: strings.coupons.couponsNewestFirst,
  empty: () => strings.coupons.noCouponsYet,
  rowKey: (c) => c.id,
  columns: () => [
    {
      header: strings.coupons.code,
      cell: (c) => (
        <>
          <code>{c.name}</code>
          {c.note ? <div className="muted small">{c.note}</div> : null}
        </>
      ),
    },
    { header: strings.common.discount, cell: (c) => <Discount coupon={c} /> },
    {
      header: strings.coupons.uses,
      className: 'num',
      cell: (c) => `${count(c.uses)} / ${c.maxUses === null ? '∞' : count(c.maxUses)}`,
    },
    {
      header: strings.coupons.valid,
      cell: (c) => <Validity coupon={c} />,
    },
    {
      header: strings.coupons.appliesTo,
      cell: (c) => (
        <span className="small">
          {c.restrictToProducts.length === 0
            ? strings.coupons.everyProduct
            : strings.coupons.products(count(c.restrictToProducts.length), c.restrictToProducts.length)}
          <br />
          {c.restrictToGateways.length === 0
            ? strings.coupons.everyGateway
            : c.restrictToGateways.map((g) => gatewayLabels[g as Gateway] ?? g).join(', ')}
        </span>
      ),
    },
  ],
  remove: {
    label: strings.common.delete,
    question: (c) => strings.coupons.deleteTheCouponOrders(c.name),
    done: strings.coupons.couponDeleted,
  },
  dialog: { title: (c) => (c ? strings.coupons.editCoupon : strings.coupons.newCoupon), wide: true },
  form: {
    values: (c) => ({
      name: c?.name ?? '',
      note: c?.note ?? '',
      isFixed: c?.isFixed ? 'true' : 'false',
      discount: c ? String(c.discount) : '',
      maxUses: c === null || c.maxUses === null ? '' : String(c.maxUses),
      startDate: dates.wallInput(c?.startDate ?? null),
      endDate: dates.wallInput(c?.endDate ?? null),
      restrictToProducts: c?.restrictToProducts ?? [],
      restrictToGateways: (c?.restrictToGateways ?? []) as Gateway[],
    }),
    toBody: (v) => ({
      name: v.name,
      note: v.note.trim() === '' ? null : v.note,
      // An empty discount is sent missing, so the schema names the field.
      discount: (v.discount.trim() === '' ? undefined : Number(v.discount)) as number,
      isFixed: v.isFixed === 'true',
      startDate: fromLocalInput(v.startDate),
      endDate: fromLocalInput(v.endDate),
      restrictToProducts: v.restrictToProducts,
      restrictToGateways: v.restrictToGateways,
      maxUses: v.maxUses.trim() === '' ? null : Number(v.maxUses),
    }),
    saved: (c) => (c ? strings.coupons.couponSaved : strings.coupons.couponAdded),
    Fields: CouponFields,
  },
});

export default function CouponsScreen() {
  const dates = useShopDates();
  const config = useMemo(() => couponsConfig(dates), [dates]);
  // A coupon's dates are read and written on the shop's clock: its form waits for the shop.
  if (!dates.known)
    return (
      <Page title={strings.common.coupons}>
        <Loading />
      </Page>
    );
  return <ResourceScreen config={config} />;
}

function CouponFields({ form, row }: { form: CouponForm; row: Coupon | null }) {
  const { currency } = useShop();
  const { register, problem } = form;
  const isFixed = form.watch('isFixed') === 'true';
  const { zone } = useShopDates();
  return (
    <>
      <div className="grid-2">
        <Field label={strings.coupons.code} error={problem('name')} hint={strings.coupons.lettersDigitsAndBuyers}>
          {(ids) => <input {...ids} {...register('name')} className="input" maxLength={64} autoComplete="off" />}
        </Field>
        <Field label={strings.coupons.maximumUses} error={problem('maxUses')} hint={strings.coupons.emptyUnlimited}>
          {(ids) => (
            <input
              {...ids}
              {...register('maxUses')}
              className="input"
              type="number"
              min={0}
              step={1}
              inputMode="numeric"
            />
          )}
        </Field>
      </div>
      <fieldset className="choice-group">
        <legend>{strings.coupons.discountType}</legend>
        <label className="check">
          <input type="radio" value="false" {...register('isFixed')} />
          {strings.coupons.percentage}
        </label>
        <label className="check">
          <input type="radio" value="true" {...register('isFixed')} />
          {strings.coupons.fixedAmount(currency)}
        </label>
      </fieldset>
      {problem('isFixed') ? <p className="field-error">{problem('isFixed')}</p> : null}
      <Field
        label={isFixed ? strings.coupons.discount(currency) : strings.coupons.discountPercent}
        error={problem('discount')}
        hint={isFixed ? strings.coupons.takenOffTheEligible : strings.coupons.moreThan0At}
      >
        {(ids) => (
          <input
            {...ids}
            {...register('discount')}
            className="input"
            type="number"
            min={0}
            step="any"
            inputMode="decimal"
          />
        )}
      </Field>
      <div className="grid-2">
        <Field
          label={strings.coupons.validFrom}
          error={problem('startDate')}
          hint={strings.coupons.emptyAtOnceTimes(zone)}
        >
          {(ids) => <input {...ids} {...register('startDate')} className="input" type="datetime-local" />}
        </Field>
        <Field label={strings.common.expires} error={problem('endDate')} hint={strings.coupons.emptyNeverExpires}>
          {(ids) => <input {...ids} {...register('endDate')} className="input" type="datetime-local" />}
        </Field>
      </div>
      <ProductPicker form={form} />
      <fieldset className="choice-group">
        <legend>{strings.coupons.paymentMethodsNoneChosen}</legend>
        {gateways.map((g) => (
          <label key={g} className="check">
            <input type="checkbox" value={g} {...register('restrictToGateways')} />
            {gatewayLabels[g]}
          </label>
        ))}
      </fieldset>
      {problem('restrictToGateways') ? <p className="field-error">{problem('restrictToGateways')}</p> : null}
      <Field label={strings.common.note} error={problem('note')} hint={strings.common.forYouOnly}>
        {(ids) => <textarea {...ids} {...register('note')} className="input" rows={2} />}
      </Field>
      {row ? <p className="muted small">{strings.coupons.usedByOrdersSo(count(row.uses))}</p> : null}
    </>
  );
}

/**
 * The products a coupon is limited to: a search over the shop's products (on the server) with
 * a checkbox each, and the chosen ones as removable chips.
 */
function ProductPicker({ form }: { form: CouponForm }) {
  const { shopId } = useShop();
  const { field } = useController({ control: form.control, name: 'restrictToProducts' });
  const chosen = field.value;
  const [text, setText] = useState('');
  const [search, setSearch] = useState('');
  // Ask the server once typing pauses.
  useEffect(() => {
    const timer = setTimeout(() => setSearch(text.trim()), 300);
    return () => clearTimeout(timer);
  }, [text]);
  const products = useCouponProductSearch(shopId, search);
  // Titles of every product seen, so chosen ones keep their names when the search changes.
  const [titles, setTitles] = useState<Record<number, string>>({});
  const page = products.data;
  useEffect(() => {
    if (page) setTitles((all) => ({ ...all, ...Object.fromEntries(page.items.map((p) => [p.id, p.title])) }));
  }, [page]);
  const toggle = (id: number, on: boolean) =>
    field.onChange(on ? [...chosen, id] : chosen.filter((other) => other !== id));
  const problem = form.problem('restrictToProducts');
  return (
    <fieldset className="choice-group marketing-fieldset-column">
      <legend>{strings.coupons.productsNoneChosenEvery}</legend>
      {chosen.length > 0 ? (
        <ul className="marketing-chips" aria-label={strings.coupons.chosenProducts}>
          {chosen.map((id) => (
            <li key={id}>
              {titles[id] ?? strings.coupons.productId(id)}
              <button
                type="button"
                className="btn btn-ghost"
                aria-label={strings.coupons.remove(titles[id] ?? strings.coupons.productIdLower(id))}
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
        aria-label={strings.common.searchProducts}
        placeholder={strings.common.searchProducts}
        value={text}
        onChange={(e) => setText(e.target.value)}
      />
      {products.error ? <LoadError error={products.error} /> : null}
      <div className="marketing-picker">
        {page?.items.length === 0 ? <span className="muted">{strings.coupons.noProductsFound}</span> : null}
        {page?.items.map((p) => (
          <label key={p.id} className="check">
            <input type="checkbox" checked={chosen.includes(p.id)} onChange={(e) => toggle(p.id, e.target.checked)} />
            {p.title}
          </label>
        ))}
        {page && page.totalCount > page.items.length ? (
          <span className="muted small">
            {strings.coupons.moreSearchToNarrow(count(page.totalCount - page.items.length))}
          </span>
        ) : null}
      </div>
      {problem ? <p className="field-error">{problem}</p> : null}
    </fieldset>
  );
}
