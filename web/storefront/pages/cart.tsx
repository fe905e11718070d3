import { MAX_ORDER_PARTS } from '../../../src/schemas/rules.js';
import { MAX_CART_QUANTITY, typedQuantity } from '../cart.js';
import { sumPrices } from '../format.js';
import { useLang } from '../i18n.js';
import { Layout } from '../layout.js';
import { href, type Site } from '../site.js';
import type { CheckoutPageProps, CheckoutProduct, CheckoutVariant } from './checkout.js';
import { unavailableReason } from './product.js';

/** A line of the cart as the page shows it: the quantity as typed (kept when the form comes back), and its problem. */
export interface CartPageLine {
  product: CheckoutProduct;
  variant: CheckoutVariant;
  /** The quantity the cart holds, or as typed when an update was refused. */
  quantity: string;
  /** What is wrong with the quantity (a whole number within the option's limits), in the buyer's words. */
  error?: string | undefined;
}

/** What the page says above the cart, after the buyer's last step. */
export type CartNotice =
  | { kind: 'added'; product: string }
  | { kind: 'updated' }
  | { kind: 'full' }
  | { kind: 'gone' }
  | { kind: 'invalid' };

export interface CartPageProps {
  site: Site;
  details: CheckoutPageProps['details'];
  lines: CartPageLine[];
  notice: CartNotice | null;
  csrf: string;
}

/** The form names of the cart page: `quantity.<variant id>` per line, `intent` (`update` or `checkout`), or `remove`. */
export const cartQuantityName = (variantId: number) => `quantity.${variantId}`;

/**
 * The cart: each line with its price, quantity (changed here, 0 removes it) and a button to
 * remove it, the subtotal at the listed prices, and the way to the checkout, where the coupon
 * and the payment method (which may price a product differently) are chosen. Works without
 * script: the quantities are one form, each "Remove" a form of its own.
 */
export function CartPage({ site, details, lines, notice, csrf }: CartPageProps) {
  const lang = useLang();
  const { t, money } = lang;
  const currency = details.currency;
  // A line's quantity as the totals count it: none for one refused as typed (no number, above the cart's cap).
  const counted = (l: CartPageLine) => {
    const quantity = typedQuantity(l.quantity);
    return quantity !== undefined && quantity <= MAX_CART_QUANTITY ? quantity : 0;
  };
  const subtotal = sumPrices(
    lines.map((l) => ({ price: l.variant.priceDetails.amount, quantity: counted(l) })),
    currency,
  );
  return (
    <Layout site={site} details={details} title={t('cart.title')} noindex>
      <h1>{t('cart.heading')}</h1>
      {notice ? <CartNoticeText notice={notice} /> : null}
      {lines.length === 0 ? (
        <p>
          {t('cart.empty')} <a href={href(site, '/')}>{t('cart.browse')}</a>
        </p>
      ) : (
        <>
          <form id="cart" method="post" action={href(site, '/cart')} class="cart">
            <input type="hidden" name="_csrf" value={csrf} />
            <table class="cart-lines">
              <thead>
                <tr>
                  <th scope="col">{t('checkout.item')}</th>
                  <th scope="col" class="num">
                    {t('checkout.price')}
                  </th>
                  <th scope="col">{t('checkout.quantity')}</th>
                  <th scope="col" class="num">
                    {t('checkout.total')}
                  </th>
                  <th scope="col">
                    <span class="visually-hidden">{t('cart.remove')}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {lines.map((line) => {
                  const id = cartQuantityName(line.variant.id);
                  const errorId = `${id}-error`;
                  const reason = unavailableReason(line.product, line.variant, details.onHold);
                  const quantity = counted(line);
                  return (
                    <tr key={line.variant.id} class={line.error ? 'invalid' : undefined}>
                      <th scope="row">
                        <a href={href(site, `/products/${encodeURIComponent(line.product.path)}`)}>
                          {line.product.title}
                        </a>
                        {line.product.variants.length > 1 ? (
                          <span class="muted small block">{line.variant.title}</span>
                        ) : null}
                        {reason ? <span class="badge out block">{t(reason)}</span> : null}
                      </th>
                      <td class="num" data-label={t('checkout.price')}>
                        {money(line.variant.priceDetails.amount, currency)}
                      </td>
                      <td data-label={t('checkout.quantity')}>
                        <input
                          id={id}
                          name={id}
                          type="number"
                          inputMode="numeric"
                          min={0}
                          max={line.variant.maxAmount ?? undefined}
                          required
                          value={line.quantity}
                          class="quantity"
                          aria-label={t('cart.quantityOf', { product: line.product.title })}
                          aria-invalid={line.error ? 'true' : undefined}
                          aria-describedby={line.error ? errorId : undefined}
                        />
                        {line.error ? (
                          <p class="error" id={errorId} role="alert">
                            {line.error}
                          </p>
                        ) : null}
                      </td>
                      <td class="num" data-label={t('checkout.total')}>
                        {quantity > 0
                          ? money(
                              sumPrices([{ price: line.variant.priceDetails.amount, quantity }], currency),
                              currency,
                            )
                          : null}
                      </td>
                      <td>
                        <button
                          type="submit"
                          form={`remove-${line.variant.id}`}
                          class="link"
                          aria-label={t('cart.removeLabel', { product: line.product.title })}
                        >
                          {t('cart.remove')}
                        </button>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
              <tfoot>
                <tr>
                  <th scope="row" colSpan={3}>
                    {t('checkout.subtotal')}
                  </th>
                  <td class="num">{money(subtotal, currency)}</td>
                  <td />
                </tr>
              </tfoot>
            </table>
            <p class="muted small">{t('cart.subtotalNote')}</p>
            <div class="actions">
              <button type="submit" name="intent" value="update" class="button">
                {t('cart.update')}
              </button>
              <button type="submit" name="intent" value="checkout" class="button primary">
                {t('cart.checkout')}
              </button>
            </div>
          </form>
          {lines.map((line) => (
            <form
              key={line.variant.id}
              id={`remove-${line.variant.id}`}
              method="post"
              action={href(site, '/cart')}
              hidden
            >
              <input type="hidden" name="_csrf" value={csrf} />
              <input type="hidden" name="remove" value={String(line.variant.id)} />
            </form>
          ))}
        </>
      )}
      <p>
        <a href={href(site, '/')}>{t('cart.continue')}</a>
      </p>
    </Layout>
  );
}

function CartNoticeText({ notice }: { notice: CartNotice }) {
  const { t } = useLang();
  switch (notice.kind) {
    case 'added':
      return (
        <p class="notice" role="status">
          {t('cart.added', { product: notice.product })}
        </p>
      );
    case 'updated':
      return (
        <p class="notice" role="status">
          {t('cart.updated')}
        </p>
      );
    case 'full':
      return (
        <p class="notice warning" role="status">
          {t('cart.full', { max: MAX_ORDER_PARTS })}
        </p>
      );
    case 'gone':
      return (
        <p class="notice warning" role="status">
          {t('cart.gone')}
        </p>
      );
    case 'invalid':
      return (
        <p class="notice warning" role="alert">
          {t('form.correct')}
        </p>
      );
  }
}
