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

/**
 * What the checkout form holds, as typed (kept when the form comes back with errors). Its names
 * on the wire: `product, variant, quantity, email, gateway, coupon, ref, chatUserId, terms` and
 * `field.<custom field id>` per custom field (a checkbox sends `true` when ticked).
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
  data: CheckoutData;
  variant: CheckoutVariant;
  /** The gateways this buyer may choose for the variant now (never `balance` for a buyer who is not signed in). */
  gateways: GatewayOption[];
  values: CheckoutValues;
  errors: PlacedErrors;
  csrf: string;
  maxAnswerLength: number;
  /** The buyer signed in to the customer area: their address is fixed, and the store balance is offered. */
  customer?: { email: string; balance: number } | null | undefined;
  /** The shop asks this buyer for a proof-of-work challenge (and what was wrong with the last solution). */
  challenge?: { error?: string | undefined } | null | undefined;
}

export function CheckoutPage(props: CheckoutPageProps) {
  const { site, data, variant, gateways, values, errors } = props;
  const lang = useLang();
  const { t, money } = lang;
  const { product, mainDetails: details } = data;
  const currency = details.currency;
  const blockedBy =
    unavailableReason(product, variant, details.onHold) ?? (gateways.length === 0 ? 'product.noPayment' : null);
  const blocked = blockedBy ? t(blockedBy) : null;
  const quantity = Number(values.quantity);
  const samePrice = gateways.every((g) => g.price.amount === variant.priceDetails.amount);
  const chosen = gateways.some((g) => g.gateway === values.gateway) ? values.gateway : gateways[0]?.gateway;
  const e = errors.fields;
  const showChatUser = values.chatUserId !== '' || e.chatUserId !== undefined;
  const hasErrors = Object.keys(e).length > 0 || errors.other.length > 0 || errors.message !== undefined;
  return (
    <Layout site={site} details={details} title={t('checkout.title')} noindex>
      <p class="breadcrumbs">
        <a href={flowHref(site, `/products/${encodeURIComponent(product.path)}`)}>
          {t('checkout.back', { product: product.title })}
        </a>
      </p>
      <h1>{t('checkout.title')}</h1>
      <section aria-labelledby="summary" class="card">
        <h2 id="summary">{t('checkout.summary')}</h2>
        <table>
          <tbody>
            <tr>
              <th scope="row">{t('checkout.product')}</th>
              <td>{product.title}</td>
            </tr>
            <tr>
              <th scope="row">{t('checkout.option')}</th>
              <td>{variant.title}</td>
            </tr>
            <tr>
              <th scope="row">{t('checkout.unitPrice')}</th>
              <td>{money(variant.priceDetails.amount, currency)}</td>
            </tr>
            <tr>
              <th scope="row">{t('checkout.quantity')}</th>
              <td>{Number.isSafeInteger(quantity) && quantity > 0 ? quantity : variant.minAmount}</td>
            </tr>
            {samePrice && Number.isSafeInteger(quantity) && quantity > 0 ? (
              <tr>
                <th scope="row">{t('checkout.subtotal')}</th>
                <td>
                  {money(variant.priceDetails.amount * quantity, currency)}{' '}
                  <span class="muted small">{t('checkout.beforeCoupon')}</span>
                </td>
              </tr>
            ) : null}
          </tbody>
        </table>
      </section>

      {blocked ? (
        <p class="notice warning" role="status">
          {blocked} {t('checkout.blocked')}{' '}
          <a href={href(site, '/')} target={site.embed ? '_blank' : undefined}>
            {t('common.backToShop')}
          </a>
        </p>
      ) : (
        <form method="post" action={flowHref(site, '/checkout')} class="checkout" data-submit-once>
          <input type="hidden" name="_csrf" value={props.csrf} />
          <input type="hidden" name="product" value={String(product.id)} />
          <input type="hidden" name="variant" value={String(variant.id)} />
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

          <Field
            id="quantity"
            label={t('checkout.quantity')}
            error={e.quantity}
            hint={
              variant.maxAmount === null
                ? t('checkout.atLeast', { min: variant.minAmount })
                : t('checkout.between', { min: variant.minAmount, max: variant.maxAmount })
            }
          >
            <input
              id="quantity"
              name="quantity"
              type="number"
              inputMode="numeric"
              min={variant.minAmount}
              max={variant.maxAmount ?? undefined}
              required
              value={values.quantity}
              {...describedBy('quantity', { error: e.quantity, hint: true })}
            />
          </Field>

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
                  {samePrice ? null : ` · ${t('checkout.each', { price: money(g.price.amount, currency) })}`}
                </label>
              </div>
            ))}
            {e.gateway ? (
              <p class="error" id="gateway-error" role="alert">
                {e.gateway}
              </p>
            ) : null}
          </fieldset>

          {variant.customFields.length > 0 ? (
            <fieldset>
              <legend>{t('product.details')}</legend>
              {variant.customFields.map((f) => (
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

          <Field id="coupon" label={t('product.coupon')} error={e.coupon}>
            <input
              id="coupon"
              name="coupon"
              type="text"
              maxLength={64}
              autoComplete="off"
              value={values.coupon}
              {...describedBy('coupon', { error: e.coupon })}
            />
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

          <button type="submit" class="button primary">
            {t('checkout.placeOrder')}
          </button>
        </form>
      )}
    </Layout>
  );
}
