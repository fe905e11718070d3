import type { OrderQuote } from '../../../src/modules/orders/index.js';
import type { checkoutPage } from '../../../src/modules/storefront/index.js';
import { ChallengeField, Field, FormErrors } from '../components.js';
import { describedBy, type PlacedErrors } from '../form.js';
import { gatewayLabel, useLang } from '../i18n.js';
import { Layout } from '../layout.js';
import { flowHref, href, type Site } from '../site.js';
import { CustomFieldInput } from './custom-field.js';
import { checkoutFieldName, unavailableReason } from './product.js';

type CheckoutData = Awaited<ReturnType<typeof checkoutPage>>;
export type CheckoutProduct = CheckoutData['product'];
export type CheckoutVariant = CheckoutProduct['variants'][number];
export type GatewayOption = CheckoutVariant['gateways'][number];

/** A line of the order: a product's option and how many (on the one-product page, the quantity as typed when it is one, else the least). */
export interface CheckoutLine {
  product: CheckoutProduct;
  variant: CheckoutVariant;
  quantity: number;
}

/** A way to pay the whole order, and its subtotal paid so (a variant may price a gateway differently). */
export interface OfferedGateway {
  gateway: string;
  subtotal: number;
}

/**
 * What the checkout form holds, as typed (kept when the form comes back with errors). Its names
 * on the wire: `product, variant, quantity` (one product bought now) or one `line` per cart line
 * (`<product id>.<variant id>.<quantity>`), and `email, gateway, coupon, ref, chatUserId, terms`,
 * `field.<custom field id>` per custom field (a checkbox sends `true` when ticked), and `intent`:
 * `apply` (the coupon's "Apply": the page again with its effect, nothing placed) or `place`.
 */
export interface CheckoutValues {
  quantity: string;
  email: string;
  gateway: string;
  coupon: string;
  ref: string;
  chatUserId: string;
  fields: Record<string, string>;
  terms: boolean;
}

export interface CheckoutPageProps {
  site: Site;
  details: CheckoutData['mainDetails'];
  /** One product bought now, its quantity chosen here; or the cart's lines, their quantities chosen in the cart. */
  mode: 'product' | 'cart';
  lines: CheckoutLine[];
  /** The ways this buyer may pay for every line now (never `balance` for a buyer who is not signed in). */
  gateways: OfferedGateway[];
  /** The gateway the summary is priced for: the one chosen, else the first offered. */
  chosen: string | undefined;
  /** The order priced for that gateway (in major units, as every amount of the page), with the coupon applied when it is valid (orders' quoteOrder). */
  quote: OrderQuote;
  values: CheckoutValues;
  errors: PlacedErrors;
  csrf: string;
  maxAnswerLength: number;
  /** The buyer signed in to the customer area: their address is fixed, and the store balance is offered. */
  customer?: { email: string; balance: number } | null | undefined;
  /** The shop asks this buyer for a proof-of-work challenge (and what was wrong with the last solution). */
  challenge?: { error?: string | undefined } | null | undefined;
  /** The coupon was just applied ("Apply"): the page says what it took off. */
  applied?: boolean;
  /** Lines of the cart were dropped: their products are no longer sold here. */
  dropped?: boolean;
}

/** Each custom field the order's options ask, once (the checkout service takes one answer per field id). */
function customFieldsOf(lines: CheckoutLine[]): CheckoutVariant['customFields'] {
  const seen = new Set<string>();
  return lines.flatMap((l) => l.variant.customFields.filter((f) => !seen.has(f.id) && seen.add(f.id)));
}

/** What keeps the order from being placed now, in the buyer's words; null when nothing does. */
function blockedReason(props: CheckoutPageProps): string | null {
  const { t } = useLang();
  for (const line of props.lines) {
    const reason = unavailableReason(line.product, line.variant, props.details.onHold);
    if (reason)
      return props.mode === 'cart'
        ? t('cart.lineBlocked', { product: line.product.title, reason: t(reason) })
        : t(reason);
  }
  if (props.gateways.length > 0) return null;
  return props.lines.length > 1 ? t('cart.noCommonGateway') : t('product.noPayment');
}

/** The order as it would be invoiced: each line, the subtotal, the coupon's discount and the total. */
function OrderSummary({ lines, quote, currency }: { lines: CheckoutLine[]; quote: OrderQuote; currency: string }) {
  const { t, money } = useLang();
  return (
    <table class="summary">
      <thead>
        <tr>
          <th scope="col">{t('checkout.item')}</th>
          <th scope="col" class="num">
            {t('checkout.quantity')}
          </th>
          <th scope="col" class="num">
            {t('checkout.price')}
          </th>
        </tr>
      </thead>
      <tbody>
        {lines.map((line, i) => {
          const priced = quote.parts[i];
          return (
            <tr key={line.variant.id}>
              <th scope="row">
                {line.product.title}
                {line.product.variants.length > 1 ? <span class="muted small block">{line.variant.title}</span> : null}
              </th>
              <td class="num">{line.quantity}</td>
              <td class="num">
                {priced ? money(priced.total, currency) : null}
                {priced && line.quantity > 1 ? (
                  <span class="muted small block">
                    {t('checkout.each', { price: money(priced.unitPrice, currency) })}
                  </span>
                ) : null}
              </td>
            </tr>
          );
        })}
      </tbody>
      <tfoot>
        <tr>
          <th scope="row" colSpan={2}>
            {t('checkout.subtotal')}
          </th>
          <td class="num">{money(quote.subtotal, currency)}</td>
        </tr>
        {quote.coupon ? (
          <tr>
            <th scope="row" colSpan={2}>
              {t('checkout.discount', { code: quote.coupon.code })}
            </th>
            <td class="num">−{money(quote.coupon.discount, currency)}</td>
          </tr>
        ) : null}
        <tr class="total">
          <th scope="row" colSpan={2}>
            {t('checkout.total')}
          </th>
          <td class="num">{money(quote.total, currency)}</td>
        </tr>
      </tfoot>
    </table>
  );
}

export function CheckoutPage(props: CheckoutPageProps) {
  const { site, details, lines, gateways, values, errors, quote, chosen } = props;
  const lang = useLang();
  const { t, money } = lang;
  const currency = details.currency;
  const blocked = blockedReason(props);
  const single = props.mode === 'product' ? lines[0] : undefined;
  const samePrice = gateways.every((g) => g.subtotal === gateways[0]?.subtotal);
  const customFields = customFieldsOf(lines);
  const e = errors.fields;
  const showChatUser = values.chatUserId !== '' || e.chatUserId !== undefined;
  const hasErrors = Object.keys(e).length > 0 || errors.other.length > 0 || errors.message !== undefined;
  const action = flowHref(site, props.mode === 'cart' ? '/cart/checkout' : '/checkout');
  return (
    <Layout site={site} details={details} title={t('checkout.title')} noindex>
      <p class="breadcrumbs">
        {single ? (
          <a href={flowHref(site, `/products/${encodeURIComponent(single.product.path)}`)}>
            {t('checkout.back', { product: single.product.title })}
          </a>
        ) : (
          <a href={href(site, '/cart')}>{t('cart.back')}</a>
        )}
      </p>
      <h1>{t('checkout.title')}</h1>
      {props.dropped ? (
        <p class="notice warning" role="status">
          {t('cart.gone')}
        </p>
      ) : null}
      {props.applied && quote.coupon ? (
        <p class="notice" role="status">
          {t('checkout.applied', { code: quote.coupon.code, amount: money(quote.coupon.discount, currency) })}
        </p>
      ) : null}
      <section aria-labelledby="summary" class="card">
        <h2 id="summary">{t('checkout.summary')}</h2>
        <OrderSummary lines={lines} quote={quote} currency={currency} />
        {!samePrice && chosen ? (
          <p class="muted small">{t('checkout.pricedFor', { method: gatewayLabel(lang, chosen) })}</p>
        ) : null}
      </section>

      {blocked ? (
        <p class="notice warning" role="status">
          {blocked} {single ? t('checkout.blocked') : null}{' '}
          {single ? (
            <a href={href(site, '/')} target={site.embed ? '_blank' : undefined}>
              {t('common.backToShop')}
            </a>
          ) : (
            <a href={href(site, '/cart')}>{t('cart.back')}</a>
          )}
        </p>
      ) : (
        <form method="post" action={action} class="checkout" data-submit-once>
          {/* The form's default button (Enter in a field): it places the order, as the visible one does, not "Apply". */}
          <button type="submit" name="intent" value="place" class="visually-hidden" tabIndex={-1} aria-hidden="true">
            {t('checkout.placeOrder')}
          </button>
          <input type="hidden" name="_csrf" value={props.csrf} />
          {single ? (
            <>
              <input type="hidden" name="product" value={String(single.product.id)} />
              <input type="hidden" name="variant" value={String(single.variant.id)} />
            </>
          ) : (
            lines.map((l) => (
              <input
                key={l.variant.id}
                type="hidden"
                name="line"
                value={`${l.product.id}.${l.variant.id}.${l.quantity}`}
              />
            ))
          )}
          {hasErrors ? <FormErrors errors={errors.other} message={errors.message ?? t('form.correct')} /> : null}

          <Field
            id="email"
            label={t('checkout.email')}
            error={e.email}
            hint={props.customer ? t('checkout.emailSignedIn') : t('checkout.emailHint')}
          >
            <input
              id="email"
              name="email"
              type="email"
              autoComplete="email"
              required
              maxLength={254}
              value={values.email}
              readOnly={props.customer ? true : undefined}
              {...describedBy('email', { error: e.email, hint: true })}
            />
          </Field>

          {single ? (
            <Field
              id="quantity"
              label={t('checkout.quantity')}
              error={e.quantity}
              hint={
                single.variant.maxAmount === null
                  ? t('checkout.atLeast', { min: single.variant.minAmount })
                  : t('checkout.between', { min: single.variant.minAmount, max: single.variant.maxAmount })
              }
            >
              <input
                id="quantity"
                name="quantity"
                type="number"
                inputMode="numeric"
                min={single.variant.minAmount}
                max={single.variant.maxAmount ?? undefined}
                required
                value={values.quantity}
                {...describedBy('quantity', { error: e.quantity, hint: true })}
              />
            </Field>
          ) : null}

          <fieldset class={e.gateway ? 'invalid' : undefined}>
            <legend>{t('checkout.payWith')}</legend>
            {gateways.map((g) => (
              <div key={g.gateway} class="field checkbox">
                <input
                  id={`gateway-${g.gateway}`}
                  name="gateway"
                  type="radio"
                  value={g.gateway}
                  checked={g.gateway === chosen}
                  required
                  {...describedBy('gateway', { error: e.gateway })}
                />
                <label for={`gateway-${g.gateway}`}>
                  {gatewayLabel(lang, g.gateway)}
                  {g.gateway === 'balance' && props.customer
                    ? ` ${t('checkout.youHave', { amount: money(props.customer.balance, currency) })}`
                    : null}
                  {samePrice ? null : ` · ${t('checkout.subtotalOf', { amount: money(g.subtotal, currency) })}`}
                </label>
              </div>
            ))}
            {e.gateway ? (
              <p class="error" id="gateway-error" role="alert">
                {e.gateway}
              </p>
            ) : null}
          </fieldset>

          {customFields.length > 0 ? (
            <fieldset>
              <legend>{t('product.details')}</legend>
              {customFields.map((f) => (
                <CustomFieldInput
                  key={f.id}
                  field={f}
                  name={checkoutFieldName(f.id)}
                  value={values.fields[f.id] ?? ''}
                  error={e[checkoutFieldName(f.id)]}
                  maxLength={props.maxAnswerLength}
                />
              ))}
            </fieldset>
          ) : null}

          <Field id="coupon" label={t('product.coupon')} error={e.coupon} hint={t('checkout.applyHint')}>
            <div class="inline-field">
              <input
                id="coupon"
                name="coupon"
                type="text"
                maxLength={64}
                autoComplete="off"
                value={values.coupon}
                {...describedBy('coupon', { error: e.coupon, hint: true })}
              />
              <button type="submit" name="intent" value="apply" class="button" formNoValidate>
                {t('checkout.apply')}
              </button>
            </div>
          </Field>
          <Field id="ref" label={t('product.referral')} error={e.ref}>
            <input
              id="ref"
              name="ref"
              type="text"
              maxLength={64}
              autoComplete="off"
              value={values.ref}
              {...describedBy('ref', { error: e.ref })}
            />
          </Field>
          {showChatUser ? (
            <Field
              id="chatUserId"
              label={t('checkout.chatUser')}
              error={e.chatUserId}
              hint={t('checkout.chatUserHint')}
            >
              <input
                id="chatUserId"
                name="chatUserId"
                type="text"
                inputMode="numeric"
                maxLength={32}
                value={values.chatUserId}
                {...describedBy('chatUserId', { error: e.chatUserId, hint: true })}
              />
            </Field>
          ) : null}

          {details.terms ? (
            <div class={e.terms ? 'field checkbox invalid' : 'field checkbox'}>
              <input
                id="terms"
                name="terms"
                type="checkbox"
                value="accepted"
                checked={values.terms}
                required
                {...describedBy('terms', { error: e.terms })}
              />
              <label for="terms">
                {lang.rich('checkout.terms', {
                  link: (chunks) => (
                    <a key="terms" href={href(site, '/terms')} target={site.embed ? '_blank' : undefined}>
                      {chunks}
                    </a>
                  ),
                })}
              </label>
              {e.terms ? (
                <p class="error" id="terms-error" role="alert">
                  {e.terms}
                </p>
              ) : null}
            </div>
          ) : null}

          {props.challenge ? <ChallengeField shopId={site.shop.id} error={props.challenge.error} /> : null}

          <button type="submit" name="intent" value="place" class="button primary">
            {t('checkout.placeOrder')}
          </button>
        </form>
      )}
    </Layout>
  );
}
